/* SPDX-License-Identifier: MIT */
/*
 * virtio-net's frame path, pure: what a transmitted chain may carry (the
 * virtio_net_hdr checked against the negotiated features, the frame's
 * size), gathering it for the backend with the header copied once, and
 * placing a received frame into the receive queue's buffers (one chain,
 * or several with VIRTIO_F_MRG_RXBUF, num_buffers written).  Guest
 * memory only through the chains virtqueue.c checked; no threads, no
 * descriptors of its own: the device (net.c) and the fuzzer drive it.
 */
#ifndef MINIVMM_VIRTIO_NET_CORE_H
#define MINIVMM_VIRTIO_NET_CORE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "devices/virtio/spec.h"
#include "devices/virtio/virtqueue.h"

#define NET_ETH_HLEN	14
/* Largest frame either way: a 64 KiB IP packet (TSO) behind an Ethernet
 * header with a VLAN tag. */
#define NET_FRAME_MAX	(65535u + NET_ETH_HLEN + 4)
/* What one receive takes from the backend: header + frame. */
#define NET_RX_BUF	(VIRTIO_NET_HDR_SIZE + NET_FRAME_MAX)
/* Queue size, and so the most chains one frame can take. */
#define NET_QUEUE_MAX	256

/* The other end (a tap, or a test double): send one frame given as
 * iovecs, header first; receive one frame (header + frame) into iovecs.
 * Both return bytes or -1 with errno (EAGAIN: nothing to receive). */
struct net_port {
	ssize_t (*send)(void *ctx, const struct iovec *iov, int n);
	ssize_t (*recv)(void *ctx, const struct iovec *iov, int n);
	void *ctx;
};

/* NULL if a frame of frame_len bytes with header hdr may go out under
 * the negotiated features, else why not. */
const char *net_tx_check(const uint8_t *hdr, uint64_t frame_len,
			 uint64_t features);

/* Send chain c's readable part (header + frame) through port: the header
 * is copied and checked, the frame goes as the chain's own buffers.
 * iov: scratch of VQ_CHAIN_MAX + 1.  NULL when sent, else why dropped. */
const char *net_tx(const struct vq_chain *c, uint64_t features,
		   const struct net_port *port, struct iovec *iov);

/* Where one received frame went. */
struct net_rx {
	unsigned int n;			/* chains to complete */
	uint16_t heads[NET_QUEUE_MAX];
	uint32_t lens[NET_QUEUE_MAX];
};

enum net_rx_result {
	NET_RX_OK,		/* placed in out->n chains */
	NET_RX_DROP,		/* did not fit: out->n chains to complete
				 * empty, the frame is lost */
	NET_RX_WAIT,		/* too few buffers: nothing taken, try again
				 * when the driver adds some */
	NET_RX_BROKEN,		/* the ring is malformed */
};

/* Place frame[0..len) (header + frame, len >= VIRTIO_NET_HDR_SIZE) into
 * q's available chains; num_buffers is set in the copy the guest sees.
 * first and scratch: the caller's chain structs. */
enum net_rx_result net_rx_place(struct vq *q, struct vq_chain *first,
				struct vq_chain *scratch, const uint8_t *frame,
				uint32_t len, bool mergeable,
				struct net_rx *out);

/* The same for a frame received straight into chain first (popped by
 * the caller, at least a header's worth writable): its bytes up to
 * first->in_len are there already, frame[first->in_len..len) is the rest.
 * out->heads[0] is first; on NET_RX_WAIT first is given back too (the
 * caller keeps the frame: the bytes in first are still readable there). */
enum net_rx_result net_rx_place_rest(struct vq *q, struct vq_chain *first,
				     struct vq_chain *scratch,
				     const uint8_t *frame, uint32_t len,
				     bool mergeable, struct net_rx *out);

#endif
