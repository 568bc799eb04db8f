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

#define SECTOR		512u
#define DIRECT_FALLBACK	4096u	/* when the kernel cannot say: always valid */
#define DIRECT_MAX	65536u

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

/* What O_DIRECT needs of offsets, lengths and buffers: the file
 * system's answer (statx) or the device's logical block size, never less
 * than a sector. */
static unsigned int direct_align(int fd, const struct stat *st)
{
	struct statx sx;
	unsigned int a = DIRECT_FALLBACK;
	int lbs;

	if (S_ISBLK(st->st_mode) && ioctl(fd, BLKSSZGET, &lbs) == 0 && lbs > 0)
		a = (unsigned int)lbs;
	else if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 &&
		 (sx.stx_mask & STATX_DIOALIGN) && sx.stx_dio_offset_align)
		a = sx.stx_dio_offset_align > sx.stx_dio_mem_align ?
		    sx.stx_dio_offset_align : sx.stx_dio_mem_align;
	return a < SECTOR ? SECTOR : a;
}

static int open_image(const struct disk_opt *opt, struct disk *out)
{
	bool direct = opt->cache == DISK_CACHE_NONE;
	char why[200];

	/* O_NONBLOCK: a FIFO must not hang the start-up. */
	out->fd = open(opt->path, (opt->ro ? O_RDONLY : O_RDWR) | O_CLOEXEC |
		       O_NONBLOCK | (direct ? O_DIRECT : 0));
	if (out->fd >= 0)
		return 0;
	if (direct && errno == EINVAL)
		return fail(opt->path, "cache=none: the file system does not "
			    "support O_DIRECT (tmpfs?); use cache=writeback");
	snprintf(why, sizeof(why), "cannot open%s: %s%s",
		 opt->ro ? "" : " for writing", strerror(errno),
		 !opt->ro && (errno == EACCES || errno == EROFS) ?
		 " (,ro opens it read-only)" : "");
	return fail(opt->path, why);
}

int disk_open(const struct disk_opt *opt, struct disk *out)
{
	struct stat st;

	*out = (struct disk){ .fd = -1, .ro = opt->ro, .path = opt->path,
			      .cache = opt->cache };
	if (open_image(opt, out) < 0)
		return -1;
	if (check(opt, out) < 0 || fcntl(out->fd, F_SETFL,
					 opt->cache == DISK_CACHE_NONE ?
					 O_DIRECT : 0) < 0) {
		disk_close(out);
		return -1;
	}
	if (opt->cache == DISK_CACHE_NONE && fstat(out->fd, &st) == 0) {
		out->direct_align = direct_align(out->fd, &st);
		if (out->direct_align > DIRECT_MAX || out->size %
		    out->direct_align) {
			fail(opt->path, "cache=none: the image's size is not a "
			     "multiple of its direct-I/O block; use "
			     "cache=writeback");
			disk_close(out);
			return -1;
		}
	}
	if (opt->cache == DISK_CACHE_UNSAFE && !opt->ro)
		fprintf(stderr, "minivmm: warning: --disk '%s': cache=unsafe: "
			"the guest's flushes are ignored; a host crash loses "
			"writes it was told are durable\n", opt->path);
	return 0;
}

void disk_close(struct disk *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}
