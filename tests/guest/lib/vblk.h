/* SPDX-License-Identifier: MIT */
/*
 * virtio-blk requests for payloads, on top of virtio.h: one request at a
 * time, its data split over several descriptors or put behind an
 * indirect table, completed by polling.  Used by the test, hostile and
 * benchmark payloads.
 */
#ifndef GUEST_VBLK_H
#define GUEST_VBLK_H

#include <stdbool.h>
#include <stdint.h>

#include "virtio.h"

#define VBLK_TIMEOUT_CYCLES	(20ull * 1000 * 1000 * 1000)	/* ~7 s */

struct vblk {
	struct gvirtio d;
	struct gvq *q;
	uint64_t capacity;		/* sectors */
};

/* How a request is laid out. */
struct vblk_shape {
	unsigned int split;		/* data descriptors (>= 1) */
	bool indirect;
	bool no_interrupt;		/* suppress the used interrupt */
};

/* Find the nth virtio-blk, negotiate want (& offered), set up queue 0 of
 * size entries at mem with MSI-X vector vec (VIRTIO_MSI_NO_VECTOR: none),
 * DRIVER_OK.  0 or -1 (why printed). */
int vblk_open(struct vblk *b, unsigned int nth, uint64_t want,
	      uint16_t size, void *mem, uint16_t vec);

/* One request: type, sector, len bytes at buf (device-writable for IN
 * and GET_ID).  Returns the status byte, or -1 on timeout; *used (may be
 * NULL) gets the used length. */
int vblk_req(struct vblk *b, uint32_t type, uint64_t sector, void *buf,
	     uint32_t len, const struct vblk_shape *s, int64_t *used);

/* Discard / write zeroes of one range. */
int vblk_range(struct vblk *b, uint32_t type, uint64_t sector, uint32_t num,
	       uint32_t flags);

#endif
