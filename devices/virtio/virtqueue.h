/* SPDX-License-Identifier: MIT */
/*
 * Split virtqueues (virtio 1.2, 2.7), device side.  Owns one queue's
 * state (plain data in struct vq_state, what a snapshot saves), the
 * checked walk of a descriptor chain into host iovecs, used-ring
 * completion, and notification/interrupt suppression (event index or the
 * ring flags).  Pure C: guest memory is reached only through struct
 * virtio_mem, whose ptr() must refuse any range that is not entirely
 * guest RAM.
 *
 * What a hostile driver cannot do here: make the device read or write
 * outside guest RAM (every ring part and every buffer is translated with
 * its full length), loop it forever (a chain may take at most size steps
 * in the descriptor table and at most the entry count of an indirect
 * table there, and hold at most VQ_CHAIN_MAX buffers), or make it trust a
 * value twice
 * (each descriptor is copied once, then checked).  A malformed ring marks
 * the queue broken: vq_pop() then refuses everything until a reset, and
 * the transport reports DEVICE_NEEDS_RESET.
 *
 * Threads: the transport fills the state and calls vq_start() while the
 * device's worker is parked; afterwards only the worker calls the rest.
 */
#ifndef MINIVMM_VIRTQUEUE_H
#define MINIVMM_VIRTQUEUE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

/* Longest chain the device accepts (descriptors, zero-length included);
 * also the largest indirect table.  Linux builds indirect chains longer
 * than the queue when seg_max allows it. */
#define VQ_CHAIN_MAX	1024

/* Guest memory as devices see it: a host pointer to [gpa, gpa + len)
 * when the whole range is guest RAM, else NULL. */
struct virtio_mem {
	void *(*ptr)(void *ctx, uint64_t gpa, uint64_t len);
	void *ctx;
};

/* Plain data: the driver's configuration and the device's progress. */
struct vq_state {
	uint64_t desc, avail, used;	/* guest-physical addresses */
	uint16_t size;			/* entries; power of two when ready */
	uint16_t last_avail;		/* next avail ring slot to take */
	uint16_t used_idx;		/* next used index to publish */
	uint16_t signalled;		/* used index at the last interrupt
					 * decision (event index) */
	uint16_t msix_vector;		/* VIRTIO_MSI_NO_VECTOR: none */
	uint8_t enabled;		/* queue_enable written with 1 */
	uint8_t event_idx;		/* VIRTIO_F_RING_EVENT_IDX negotiated */
	uint8_t indirect;		/* VIRTIO_F_RING_INDIRECT_DESC */
	uint8_t broken;			/* malformed ring seen */
};

struct vq {
	struct vq_state s;
	const struct virtio_mem *mem;
	/* Host pointers to the three parts, set by vq_start(). */
	uint8_t *desc_p, *avail_p, *used_p;
	const char *error;		/* why broken (static string) */
};

/* One popped chain: iov[0..n_out) device-readable, then n_in writable. */
struct vq_chain {
	uint16_t head;
	unsigned int n_out, n_in;
	uint64_t out_len, in_len;
	struct iovec iov[VQ_CHAIN_MAX];
};

enum vq_pop_result { VQ_EMPTY = 0, VQ_CHAIN = 1, VQ_ERROR = -1 };

/* Back to the reset state (addresses 0, disabled, no vector); size gets
 * max_size as the reset value of queue_size. */
void vq_reset(struct vq *q, uint16_t max_size);

/* Check the configured size and ring addresses against guest RAM and the
 * alignment rules, and cache the host pointers.  0 on success; -1 marks
 * the queue broken (q->error says why). */
int vq_start(struct vq *q, const struct virtio_mem *mem, uint16_t max_size);

static inline bool vq_ready(const struct vq *q)
{
	return q->s.enabled && !q->s.broken && q->desc_p;
}

/* Take the next available chain into *c.  VQ_ERROR marks the queue
 * broken. */
enum vq_pop_result vq_pop(struct vq *q, struct vq_chain *c);

/* Give back the last n chains vq_pop() took and nothing completed yet:
 * the next pops return them again (a device that found too few buffers
 * for what it must place, e.g. a network frame over mergeable buffers). */
void vq_unpop(struct vq *q, uint16_t n);

/* Publish head as used with len bytes written into its buffers. */
void vq_push(struct vq *q, uint16_t head, uint32_t len);

/* After a batch of vq_push(): must the driver be interrupted?  Applies
 * the event index or VIRTQ_AVAIL_F_NO_INTERRUPT, and remembers the
 * decision point. */
bool vq_need_interrupt(struct vq *q);

/* Suppress kicks while the device is busy; re-arm them when it is about
 * to sleep.  vq_notify_enable() returns true if buffers arrived that the
 * device has not taken (it must then go on instead of sleeping). */
void vq_notify_disable(struct vq *q);
bool vq_notify_enable(struct vq *q);

/* Chains in the avail ring the device has not taken yet. */
uint16_t vq_pending(const struct vq *q);

/* Copy up to len bytes starting at byte off of the chain's readable
 * (writable = false) or writable part into/out of buf; returns the bytes
 * copied.  For headers that may be split across descriptors. */
uint64_t vq_copy_from(const struct vq_chain *c, uint64_t off, void *buf,
		      uint64_t len);
uint64_t vq_copy_to(const struct vq_chain *c, uint64_t off, const void *buf,
		    uint64_t len);
/* Out of the writable part: what a backend wrote there directly. */
uint64_t vq_copy_written(const struct vq_chain *c, uint64_t off, void *buf,
			 uint64_t len);

#endif
