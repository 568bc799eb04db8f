/* SPDX-License-Identifier: MIT */
/*
 * virtio-blk request parsing (virtio 1.2, 5.2.6), pure: from a walked
 * chain to what the device must do, with every guest-controlled number
 * checked before it is used.  A request is a 16-byte header (type,
 * reserved, sector) at the start of the readable part, data, and one
 * status byte: the last byte of the writable part.  The header may be
 * split across descriptors.
 *
 * blk_req_parse() decides the status the request will complete with if
 * execution does not fail: VIRTIO_BLK_S_OK for a request the device will
 * carry out, VIRTIO_BLK_S_IOERR for a malformed or out-of-range one (or a
 * write to a read-only disk), VIRTIO_BLK_S_UNSUPP for an unknown type or
 * flags.  A chain without a writable byte has nowhere to put a status:
 * status_at is then NULL and the device completes it with length 0.
 */
#ifndef MINIVMM_VIRTIO_BLK_REQ_H
#define MINIVMM_VIRTIO_BLK_REQ_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "devices/virtio/virtqueue.h"

/* The disk as the parser needs it. */
struct blk_geom {
	uint64_t capacity;		/* 512-byte sectors */
	uint32_t block;			/* bytes: requests must be aligned to
					 * it (0 or 512: any sector) */
	bool ro;
	uint32_t max_discard_sectors, max_discard_seg;
	uint32_t max_wz_sectors, max_wz_seg;
};

/* One discard / write-zeroes range. */
struct blk_seg {
	uint64_t sector;
	uint32_t num;
	uint32_t flags;
};

#define BLK_MAX_SEGS	16

struct blk_req {
	uint32_t type;
	uint64_t sector;
	uint8_t status;			/* VIRTIO_BLK_S_* (see above) */
	uint8_t *status_at;		/* NULL: no writable byte */
	/* IN: the writable buffers before the status byte; OUT: the
	 * readable bytes after the header.  Slices of the chain. */
	struct iovec *iov;
	unsigned int niov;
	uint64_t len;
	struct blk_seg segs[BLK_MAX_SEGS];	/* DISCARD, WRITE_ZEROES */
	unsigned int nsegs;
};

/* Parse c for a disk g; iov (room for VQ_CHAIN_MAX entries) receives the
 * data slice.  Always fills r (see above). */
void blk_req_parse(const struct vq_chain *c, const struct blk_geom *g,
		   struct iovec *iov, struct blk_req *r);

/* Bytes the device writes into the chain for r (data, ID, status). */
uint32_t blk_req_used_len(const struct blk_req *r);

#endif
