// SPDX-License-Identifier: MIT
/* The --cmd initramfs; see cmd.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmm/run/cmd.h"

#define NEWC_MAGIC	"070701"
#define DEFAULT_APPEND	"console=ttyS0 quiet panic=-1"

static char initrd_path[64];

struct buf {
	char *p;
	size_t len, cap;
};

static int put(struct buf *b, const void *data, size_t n)
{
	if (b->len + n + 4 > b->cap) {
		size_t cap = (b->cap + n + 4) * 2;
		char *p = realloc(b->p, cap);

		if (!p)
			return -1;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
	while (b->len & 3)		/* newc pads names and data to 4 */
		b->p[b->len++] = 0;
	return 0;
}

/* One newc entry: a directory (data NULL) or a regular file. */
static int entry(struct buf *b, const char *name, const char *data,
		 unsigned int ino)
{
	char hdr[200];
	size_t dlen = data ? strlen(data) : 0, nlen = strlen(name) + 1;
	unsigned int mode = data ? 0100644 : 040755;

	if (nlen > 64)
		return -1;
	snprintf(hdr, sizeof(hdr), NEWC_MAGIC "%08X%08X%08X%08X%08X%08X%08zX"
		 "%08X%08X%08X%08X%08zX%08X%s", ino, mode, 0, 0, data ? 1 : 2,
		 0, dlen, 0, 0, 0, 0, nlen, 0, name);
	if (put(b, hdr, 110 + nlen) < 0)
		return -1;
	return dlen ? put(b, data, dlen) : 0;
}

static const char *shipped(char *buf, size_t size)
{
	const char *env = getenv("MINIVMM_CMD_INITRAMFS");
	ssize_t n;
	char *slash;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", buf, size - 32);
	if (n <= 0)
		return "cmd-initramfs.cpio";
	buf[n] = 0;
	slash = strrchr(buf, '/');
	strcpy(slash ? slash + 1 : buf, "cmd-initramfs.cpio");
	return buf;
}

/* Is path (absolute, resolved) inside dir? */
static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return true;
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/* /minivmm/{cmd,cwd,shares,root}: the guest init's instructions. */
static int describe(const struct vmm_config *cfg, struct buf *b)
{
	char cwd[FS_PATH_MAX] = "/", real[FS_PATH_MAX], *shares;
	size_t cap = cfg->nfs * (FS_PATH_MAX + 64) + 1, len = 0;
	const char *root = "";
	bool in = false;
	int rc;

	shares = calloc(1, cap);
	if (!shares)
		return -1;
	if (!getcwd(real, sizeof(real)))
		strcpy(real, "/");
	for (unsigned int i = 0; i < cfg->nfs; i++) {
		const struct fs_opt *o = &cfg->fss[i];
		char dir[FS_PATH_MAX];

		if (!o->share || !realpath(o->path, dir))
			snprintf(dir, sizeof(dir), "%s", o->path);
		if (!strcmp(dir, "/") && o->share) {
			root = o->tag;
			in = true;
			continue;
		}
		in |= o->share && under(real, dir);
		len += (size_t)snprintf(shares + len, cap - len, "%s %s %s\n",
					o->tag, dir, o->ro ? "ro" : "rw");
	}
	if (in)
		snprintf(cwd, sizeof(cwd), "%s", real);
	rc = entry(b, "minivmm", NULL, 900001) ||
	     entry(b, "minivmm/cmd", cfg->cmd, 900002) ||
	     entry(b, "minivmm/cwd", cwd, 900003) ||
	     entry(b, "minivmm/shares", shares, 900004) ||
	     entry(b, "minivmm/root", root, 900005) ||
	     entry(b, "TRAILER!!!", "", 0);
	free(shares);
	return rc ? -1 : 0;
}

static int fail(const char *what, const char *why)
{
	fprintf(stderr, "minivmm: error: --cmd: %s: %s\n", what, why);
	return -1;
}

int cmd_prepare(struct vmm_config *cfg)
{
	char path[4096];
	const char *img;
	struct buf b = { 0 };
	struct stat st;
	int in, fd;

	if (!cfg->cmd)
		return 0;
	if (cfg->initrd)
		return fail("--initrd", "conflicts with --cmd (minivmm "
			    "brings the initramfs)");
	if (!cfg->kernel)
		return fail("--kernel", "a Linux kernel is needed");
	img = shipped(path, sizeof(path));
	in = open(img, O_RDONLY | O_CLOEXEC);
	if (in < 0 || fstat(in, &st) < 0) {
		fprintf(stderr, "minivmm: error: --cmd: %s: %s (make builds "
			"it, with busybox-static and cpio installed)\n", img,
			strerror(errno));
		return -1;
	}
	b.cap = (size_t)st.st_size + 4096;
	b.p = malloc(b.cap);
	if (!b.p || read(in, b.p, (size_t)st.st_size) != st.st_size) {
		close(in);
		free(b.p);
		return fail(img, "cannot read it");
	}
	close(in);
	b.len = (size_t)st.st_size;
	while (b.len & 3)
		b.p[b.len++] = 0;
	fd = memfd_create("minivmm-cmd-initrd", MFD_CLOEXEC);
	if (describe(cfg, &b) < 0 || fd < 0 ||
	    write(fd, b.p, b.len) != (ssize_t)b.len) {
		free(b.p);
		return fail("initramfs", "out of memory");
	}
	free(b.p);
	snprintf(initrd_path, sizeof(initrd_path), "/proc/self/fd/%d", fd);
	cfg->initrd = initrd_path;
	if (!cfg->append)
		cfg->append = DEFAULT_APPEND;
	return 0;
}
