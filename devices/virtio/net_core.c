// SPDX-License-Identifier: MIT
/* virtio-net's frame path: checks, transmit gathering, receive placement;
 * see net_core.h. */
#include <limits.h>
#include <string.h>

#include "devices/virtio/net_core.h"
#include "firmware/lib/le.h"

static bool has(uint64_t features, unsigned int bit)
{
	return features >> bit & 1;
}

static const char *check_gso(const uint8_t *hdr, uint64_t frame_len,
			     uint64_t features)
{
	uint8_t type = hdr[VIRTIO_NET_HDR_GSO_TYPE];
	uint8_t gso = type & ~VIRTIO_NET_HDR_GSO_ECN;

	if (gso == VIRTIO_NET_HDR_GSO_NONE)
		return type ? "ECN bit without segmentation" : NULL;
	if (type & VIRTIO_NET_HDR_GSO_ECN &&
	    !has(features, VIRTIO_NET_F_HOST_ECN))
		return "ECN segmentation not negotiated";
	if (!(gso == VIRTIO_NET_HDR_GSO_TCPV4 &&
	      has(features, VIRTIO_NET_F_HOST_TSO4)) &&
	    !(gso == VIRTIO_NET_HDR_GSO_TCPV6 &&
	      has(features, VIRTIO_NET_F_HOST_TSO6)))
		return "segmentation type not negotiated";
	if (!(hdr[VIRTIO_NET_HDR_FLAGS] & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return "segmentation without a partial checksum";
	if (!le16_get(hdr + VIRTIO_NET_HDR_GSO_SIZE))
		return "segmentation with gso_size 0";
	if (le16_get(hdr + VIRTIO_NET_HDR_HDR_LEN) > frame_len)
		return "hdr_len beyond the frame";
	return NULL;
}

const char *net_tx_check(const uint8_t *hdr, uint64_t frame_len,
			 uint64_t features)
{
	uint8_t flags = hdr[VIRTIO_NET_HDR_FLAGS];

	if (frame_len < NET_ETH_HLEN)
		return "runt frame";
	if (frame_len > NET_FRAME_MAX)
		return "oversized frame";
	if (flags & ~VIRTIO_NET_HDR_F_NEEDS_CSUM)
		return "unknown header flags";
	if (flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		uint32_t start = le16_get(hdr + VIRTIO_NET_HDR_CSUM_START);
		uint32_t end = start +
			       le16_get(hdr + VIRTIO_NET_HDR_CSUM_OFFSET) + 2;

		if (!has(features, VIRTIO_NET_F_CSUM))
			return "partial checksum not negotiated";
		if (end > frame_len)
			return "checksum field beyond the frame";
	}
	return check_gso(hdr, frame_len, features);
}

/* The readable buffers from byte VIRTIO_NET_HDR_SIZE on into iov + 1. */
static int gather(const struct vq_chain *c, struct iovec *iov)
{
	uint64_t skip = VIRTIO_NET_HDR_SIZE;
	int n = 1;

	for (unsigned int i = 0; i < c->n_out; i++) {
		uint64_t l = c->iov[i].iov_len;

		if (skip >= l) {
			skip -= l;
			continue;
		}
		iov[n++] = (struct iovec){
			(uint8_t *)c->iov[i].iov_base + skip, l - skip };
		skip = 0;
	}
	return n;
}

const char *net_tx(const struct vq_chain *c, uint64_t features,
		   const struct net_port *port, struct iovec *iov)
{
	uint8_t hdr[VIRTIO_NET_HDR_SIZE];
	const char *why;
	int n;

	if (c->out_len < VIRTIO_NET_HDR_SIZE)
		return "short header";
	/* One copy: the guest may rewrite its buffer while we look. */
	vq_copy_from(c, 0, hdr, sizeof(hdr));
	why = net_tx_check(hdr, c->out_len - VIRTIO_NET_HDR_SIZE, features);
	if (why)
		return why;
	iov[0] = (struct iovec){ hdr, sizeof(hdr) };
	n = gather(c, iov);
	if (n > IOV_MAX)
		return "too many buffers";
	if (port->send(port->ctx, iov, n) < 0)
		return "backend refused the frame";
	return NULL;
}

/* Every chain taken is completed empty. */
static enum net_rx_result drop(struct net_rx *out)
{
	for (unsigned int i = 0; i < out->n; i++)
		out->lens[i] = 0;
	return NET_RX_DROP;
}

/* Bytes [off, len) of frame into chains after the out->n (0 or 1) the
 * caller holds; descs: the descriptors those take. */
static enum net_rx_result place(struct vq *q, struct vq_chain *first,
				struct vq_chain *scratch, const uint8_t *frame,
				uint32_t off, uint32_t len, uint32_t descs,
				bool mergeable, struct net_rx *out)
{
	uint8_t nb[2];

	while (off < len) {
		struct vq_chain *c = out->n ? scratch : first;
		enum vq_pop_result r = vq_pop(q, c);
		uint64_t got;

		if (r == VQ_ERROR)
			return NET_RX_BROKEN;
		if (r == VQ_EMPTY) {
			/* Every descriptor is ours and still too little:
			 * the driver cannot add more, so waiting would
			 * stall the queue for good. */
			if (descs >= q->s.size)
				return drop(out);
			vq_unpop(q, (uint16_t)out->n);
			out->n = 0;
			return NET_RX_WAIT;
		}
		descs += c->n_out + c->n_in ? c->n_out + c->n_in : 1;
		out->heads[out->n] = c->head;
		out->lens[out->n++] = 0;
		if (out->n == 1 && c->in_len < VIRTIO_NET_HDR_SIZE)
			return drop(out);
		got = vq_copy_to(c, 0, frame + off, len - off);
		out->lens[out->n - 1] = (uint32_t)got;
		off += (uint32_t)got;
		if (off < len && (!mergeable || out->n == NET_QUEUE_MAX))
			return drop(out);
	}
	nb[0] = (uint8_t)out->n;
	nb[1] = (uint8_t)(out->n >> 8);
	vq_copy_to(first, VIRTIO_NET_HDR_NUM_BUFFERS, nb, sizeof(nb));
	return NET_RX_OK;
}

enum net_rx_result net_rx_place(struct vq *q, struct vq_chain *first,
				struct vq_chain *scratch, const uint8_t *frame,
				uint32_t len, bool mergeable,
				struct net_rx *out)
{
	out->n = 0;
	return place(q, first, scratch, frame, 0, len, 0, mergeable, out);
}

enum net_rx_result net_rx_place_rest(struct vq *q, struct vq_chain *first,
				     struct vq_chain *scratch,
				     const uint8_t *frame, uint32_t len,
				     bool mergeable, struct net_rx *out)
{
	uint32_t got = first->in_len < len ? (uint32_t)first->in_len : len;

	out->n = 1;
	out->heads[0] = first->head;
	out->lens[0] = got;
	if (got < len && !mergeable)
		return drop(out);
	return place(q, first, scratch, frame, got, len,
		     first->n_out + first->n_in, mergeable, out);
}
