/* SPDX-License-Identifier: MIT */
/*
 * virtio-blk's image I/O.  blk_io_rw() is a whole preadv/pwritev, retried
 * until done (a short count at the end of a shrunk image is an error).
 * Large requests may instead go to one of a few helper threads
 * (blk_io_submit), so several of them copy at the same time the way
 * QEMU's thread pool runs requests side by side: copying from the page
 * cache is the whole cost of a cached read, and one thread copies at
 * most one core's worth.  The helper completes the request itself
 * through the done callback; blk_io_drain() waits until none is in
 * flight (device reset, snapshots).  Small requests stay in the device
 * thread, where a hand-off would only add latency.
 *
 * On an O_DIRECT image (align != 0) every offset and length is a multiple
 * of align (the request parser refuses others); guest buffers that are
 * not go through an aligned bounce buffer, 1 MiB at a time.
 */
#ifndef MINIVMM_VIRTIO_BLK_IO_H
#define MINIVMM_VIRTIO_BLK_IO_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "devices/virtio/virtqueue.h"

#define BLK_IO_HELPERS		4
#define BLK_IO_ASYNC_MIN	(64u * 1024)	/* smaller: in the caller */

/* One request handed to a helper: its own copy of the data iovecs, and
 * what completing it needs. */
struct blk_job {
	struct iovec iov[VQ_CHAIN_MAX];
	unsigned int niov;
	uint64_t off, len;
	bool write;
	uint16_t head;
	uint8_t *status_at;		/* in guest RAM */
	uint32_t used;			/* used length if it succeeds */
};

struct blk_io;

struct blk_io_helper {
	struct blk_io *io;
	pthread_t th;
	pthread_cond_t go;
	bool busy;
	struct blk_job job;
};

/* A helper finished job with result 0 (done) or -1 (I/O error). */
typedef void (*blk_io_done_fn)(void *ctx, struct blk_job *job, int result);

struct blk_io {
	int fd;
	unsigned int align;		/* O_DIRECT alignment, or 0 */
	unsigned int nhelpers;		/* threads started */
	struct blk_io_helper helper[BLK_IO_HELPERS];
	pthread_mutex_t mu;
	pthread_cond_t idle;
	unsigned int inflight;
	bool stop;
	blk_io_done_fn done;
	void *ctx;
};

/* Start the helpers (none if they cannot be made: then blk_io_submit
 * always declines).  fd stays the caller's; align as above. */
void blk_io_init(struct blk_io *io, int fd, unsigned int align,
		 blk_io_done_fn done, void *ctx);
void blk_io_destroy(struct blk_io *io);

/* All of iov[0..n) at offset off of io's image, in the calling thread;
 * 0 or -1.  May modify iov. */
int blk_io_rw(const struct blk_io *io, struct iovec *iov, unsigned int n,
	      uint64_t off, bool write);

/* Hand a request (what: all but iov and niov) to an idle helper; false
 * if it is smaller than BLK_IO_ASYNC_MIN or every helper is busy (the
 * caller then does it itself). */
bool blk_io_submit(struct blk_io *io, const struct iovec *iov,
		   unsigned int n, const struct blk_job *what);
/* Wait until no submitted request is in flight. */
void blk_io_drain(struct blk_io *io);

#endif
