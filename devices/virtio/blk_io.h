/* SPDX-License-Identifier: MIT */
/*
 * virtio-blk's image I/O: preadv/pwritev of a whole request, retried
 * until done (a short count at the end of a shrunk image is an error).  A
 * large request is cut into pieces that a few helper threads copy at the
 * same time as the device thread, the way QEMU's thread pool runs
 * requests side by side: copying from the page cache is the whole cost of
 * a cached read, and one thread copies at most one core's worth.  The
 * call returns when every piece is done, so nothing is in flight once the
 * device thread is parked.
 */
#ifndef MINIVMM_VIRTIO_BLK_IO_H
#define MINIVMM_VIRTIO_BLK_IO_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "devices/virtio/virtqueue.h"

#define BLK_IO_HELPERS		3
#define BLK_IO_SPLIT_MIN	(256u * 1024)	/* below: one piece */
#define BLK_IO_PIECE_MIN	(128u * 1024)

struct blk_io_piece {
	struct iovec iov[VQ_CHAIN_MAX + 1];
	unsigned int n;
	uint64_t off;
	int result;
};

struct blk_io;

struct blk_io_helper {
	struct blk_io *io;
	unsigned int idx;		/* copies piece idx + 1 */
	pthread_t th;
};

struct blk_io {
	int fd;
	bool write;			/* the current request's direction */
	unsigned int nhelpers;		/* threads started */
	struct blk_io_helper helper[BLK_IO_HELPERS];
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	unsigned int gen;		/* bumped per request */
	unsigned int npieces, left;
	bool stop;
	struct blk_io_piece piece[BLK_IO_HELPERS + 1];
};

/* Start the helpers (none if they cannot be made: requests then run in
 * the device thread alone).  fd stays the caller's. */
void blk_io_init(struct blk_io *io, int fd);
void blk_io_destroy(struct blk_io *io);

/* All len bytes of iov[0..n) at offset off; 0 or -1.  May modify iov. */
int blk_io_rw(struct blk_io *io, struct iovec *iov, unsigned int n,
	      uint64_t len, uint64_t off, bool write);

#endif
