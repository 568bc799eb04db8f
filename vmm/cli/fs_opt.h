/* SPDX-License-Identifier: MIT */
/*
 * The --fs SOCKET,tag=TAG and --share DIR[,tag=TAG][,ro] values as plain
 * data: syntax only (whether the socket answers or the directory exists
 * is checked when the VM is built).  A tag is what the guest mounts
 * (mount -t virtiofs TAG DIR): 1..36 bytes of [A-Za-z0-9._-], so it can
 * also travel on the kernel command line.
 */
#ifndef MINIVMM_FS_OPT_H
#define MINIVMM_FS_OPT_H

#include <stdbool.h>
#include <stddef.h>

#define FS_OPT_MAX	4		/* --fs and --share together */
#define FS_TAG_MAX	36
#define FS_PATH_MAX	4096

struct fs_opt {
	bool share;			/* --share: minivmm runs virtiofsd */
	char path[FS_PATH_MAX];		/* the socket, or the directory */
	char tag[FS_TAG_MAX + 1];
	bool ro;			/* --share ...,ro */
};

/* v is --fs's (share false) or --share's value; nth: how many --share
 * came before (the default tag is "share<nth>", "root" for /).  0, or -1
 * with why in err. */
int fs_opt_parse(const char *v, bool share, unsigned int nth,
		 struct fs_opt *o, char *err, size_t errlen);

/* The next of *n options in all[FS_OPT_MAX]: parsed, its tag not taken
 * by an earlier one.  0 (*n grows), or -1 with why in err. */
int fs_opt_add(struct fs_opt *all, unsigned int *n, const char *v,
	       bool share, char *err, size_t errlen);

#endif
