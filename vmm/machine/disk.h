/* SPDX-License-Identifier: MIT */
/*
 * Disk images for --disk: opening, checking and locking them before the
 * guest starts, so a missing, unreadable, unsuitable or busy image is one
 * line on stderr and exit status 2 rather than a failing guest.  Raw
 * images only: a regular file or a block device of at least one 512-byte
 * sector.  An image is locked for as long as it is open, with an
 * open-file-description lock over the whole file: exclusive for a
 * writable disk, shared for a read-only one, so no two minivmm processes
 * (nor two --disk options of one) write one image, and nobody writes an
 * image another has open read-only.  The lock is on the inode, so a
 * symlink or a hard link to a busy image finds it locked too.
 *
 * Cache modes (--disk ...,cache=): writeback opens the image normally;
 * none opens it O_DIRECT and finds the alignment direct I/O needs
 * (direct_align: the guest is offered that block size, buffers that are
 * not aligned go through a bounce buffer); unsafe warns on stderr, the
 * device then ignores flushes.
 */
#ifndef MINIVMM_DISK_H
#define MINIVMM_DISK_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/cli/cli.h"

struct disk {
	int fd;			/* -1: not open */
	uint64_t size;		/* bytes */
	bool ro;
	enum disk_cache cache;
	unsigned int direct_align;	/* cache=none: bytes; else 0 */
	const char *path;	/* the option's, for messages */
};

/* 0, or -1 after printing one line naming the path and the reason. */
int disk_open(const struct disk_opt *opt, struct disk *out);
void disk_close(struct disk *d);

#endif
