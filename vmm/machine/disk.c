// SPDX-License-Identifier: MIT
/* Opening, checking and locking raw disk images; see disk.h. */
#include "vmm/machine/disk.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define SECTOR	512u

static int fail(const char *path, const char *why)
{
	fprintf(stderr, "minivmm: error: --disk '%s': %s\n", path, why);
	return -1;
}

static int get_size(int fd, const struct stat *st, uint64_t *size)
{
	if (S_ISREG(st->st_mode)) {
		*size = (uint64_t)st->st_size;
		return 0;
	}
	if (S_ISBLK(st->st_mode))
		return ioctl(fd, BLKGETSIZE64, size);
	errno = EINVAL;
	return -1;
}

/* Whole-file OFD lock: conflicts across processes and across separate
 * opens in this one. */
static int lock(int fd, bool ro)
{
	struct flock fl = {
		.l_type = ro ? F_RDLCK : F_WRLCK,
		.l_whence = SEEK_SET,
	};

	return fcntl(fd, F_OFD_SETLK, &fl);
}

static int check(const struct disk_opt *opt, struct disk *d)
{
	struct stat st;

	if (fstat(d->fd, &st) < 0)
		return fail(opt->path, strerror(errno));
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return fail(opt->path, "not a regular file or block device");
	if (get_size(d->fd, &st, &d->size) < 0)
		return fail(opt->path, "cannot read its size");
	if (d->size < SECTOR)
		return fail(opt->path, "smaller than one 512-byte sector");
	if (lock(d->fd, opt->ro) < 0) {
		if (errno != EAGAIN && errno != EACCES)
			return fail(opt->path, strerror(errno));
		return fail(opt->path, opt->ro ?
			    "locked: another user writes to it (another VM?)" :
			    "locked: another user has it open (another VM, "
			    "or the same image given twice?)");
	}
	if (d->size % SECTOR)
		fprintf(stderr, "minivmm: warning: --disk '%s': the last %llu "
			"bytes are not a whole sector and stay invisible\n",
			opt->path, (unsigned long long)(d->size % SECTOR));
	return 0;
}

int disk_open(const struct disk_opt *opt, struct disk *out)
{
	char why[160];

	*out = (struct disk){ .fd = -1, .ro = opt->ro, .path = opt->path };
	/* O_NONBLOCK: a FIFO must not hang the start-up. */
	out->fd = open(opt->path, (opt->ro ? O_RDONLY : O_RDWR) | O_CLOEXEC |
		       O_NONBLOCK);
	if (out->fd < 0) {
		bool hint = !opt->ro && (errno == EACCES || errno == EROFS);

		snprintf(why, sizeof(why), "cannot open%s: %s%s",
			 opt->ro ? "" : " for writing", strerror(errno),
			 hint ? " (,ro opens it read-only)" : "");
		return fail(opt->path, why);
	}
	if (check(opt, out) < 0 ||
	    fcntl(out->fd, F_SETFL, 0) < 0) {
		disk_close(out);
		return -1;
	}
	return 0;
}

void disk_close(struct disk *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}
