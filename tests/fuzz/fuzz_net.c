// SPDX-License-Identifier: MIT
/*
 * virtio-net's frame path (devices/virtio/net_core.c) on guest memory the
 * fuzzer writes and rewrites between steps: transmit chains checked and
 * gathered for a fake backend, received frames placed into the receive
 * queue's chains (mergeable or not), header checks on raw bytes.  Guest
 * RAM is a heap buffer of exactly RAM_SIZE bytes at GPA RAM_BASE, so
 * ASan reports any access past it.
 *
 * Input:
 *   u8 log2(rx size) (mod 9), u8 log2(tx size) (mod 9), u8 flags
 *   (1 event index, 2 indirect, 4 mergeable), u64 negotiated features,
 *   u16 x 6 ring offsets in RAM (rx desc, avail, used, tx desc, avail,
 *   used), u16 n + n bytes of initial RAM, then operations: u8 op (mod 7):
 *     0 u8: pop a transmit chain, send it (the backend fails if bit 0)
 *     1 u16 len: place a frame of len bytes (at least a header)
 *     2 u16 offset, u8 n, n bytes: the driver writes RAM
 *     3 re-arm kicks on both queues / 4 reset and start both queues
 *     5 u16 len + 12 bytes: check a header for a frame of len bytes
 *     6 u16 len: as 1, the way the device reads a frame straight into
 *       the first chain (net_rx_place_rest)
 *
 * Checked: what the backend gets is the header copy then buffers inside
 * guest RAM adding up to the frame; an accepted header obeys the
 * features; a placed frame's lengths add up to it, a dropped one's are
 * zero, a frame that waits took nothing; used lengths never exceed the
 * frame.
 */
#include "devices/virtio/net_core.h"
#include "devices/virtio/spec.h"
#include "devices/virtio/virtqueue.h"
#include "tests/fuzz/fuzz_util.h"

#define RAM_BASE	0x10000ull
#define RAM_SIZE	0x8000ull
#define MAX_OPS		256

static uint8_t *ram;
static struct vq_chain chain, first, scratch;
static struct iovec iov[VQ_CHAIN_MAX + 1];
static struct net_rx rx;
/* The frames' bytes, written once: filling up to 64 KiB byte by byte
 * (instrumented) per step was most of an input's time. */
static uint8_t frame7[NET_RX_BUF], frame5[NET_RX_BUF];
static uint64_t features;
static bool send_fails;

static void *ptr(void *ctx, uint64_t gpa, uint64_t len)
{
	(void)ctx;
	if (!len || gpa < RAM_BASE || gpa - RAM_BASE >= RAM_SIZE ||
	    len > RAM_SIZE - (gpa - RAM_BASE))
		return NULL;
	return ram + (gpa - RAM_BASE);
}

static const struct virtio_mem mem = { ptr, NULL };

static bool inside(const void *p, uint64_t len)
{
	const uint8_t *b = p;

	return b >= ram && len <= RAM_SIZE && b - ram <= (long)(RAM_SIZE - len);
}

static ssize_t fake_send(void *ctx, const struct iovec *v, int n)
{
	uint64_t sum = 0;

	(void)ctx;
	FZ_CHECK(n >= 1 && v[0].iov_len == VIRTIO_NET_HDR_SIZE, "header iov");
	FZ_CHECK(!inside(v[0].iov_base, 1), "header not copied");
	FZ_CHECK(!net_tx_check(v[0].iov_base, chain.out_len -
			       VIRTIO_NET_HDR_SIZE, features),
		 "sent a header the check refuses");
	for (int i = 1; i < n; i++) {
		FZ_CHECK(v[i].iov_len && inside(v[i].iov_base, v[i].iov_len),
			 "frame buffer %d outside RAM", i);
		sum += v[i].iov_len;
	}
	FZ_CHECK(sum == chain.out_len - VIRTIO_NET_HDR_SIZE, "frame length");
	return send_fails ? -1 : (ssize_t)sum;
}

static const struct net_port port = { fake_send, NULL, NULL };

static void step_tx(struct vq *q, uint8_t arg)
{
	send_fails = arg & 1;
	if (vq_pop(q, &chain) != VQ_CHAIN)
		return;
	net_tx(&chain, features, &port, iov);
	vq_push(q, chain.head, 0);
	vq_need_interrupt(q);
}

/* What every placement must leave: a wait takes nothing, a placement
 * uses 1..NET_QUEUE_MAX chains inside the ring whose lengths add up to
 * the frame (or to 0 when it was dropped); then the chains complete. */
static void check_and_complete(struct vq *q, enum net_rx_result r,
			       uint16_t before, uint16_t len)
{
	uint64_t sum = 0;

	if (r == NET_RX_WAIT) {
		FZ_CHECK(q->s.last_avail == before && rx.n == 0, "wait took");
		return;
	}
	if (r == NET_RX_BROKEN)
		return;
	FZ_CHECK(rx.n >= 1 && rx.n <= NET_QUEUE_MAX, "%u chains", rx.n);
	for (unsigned int i = 0; i < rx.n; i++) {
		FZ_CHECK(rx.lens[i] <= len, "used length");
		FZ_CHECK(rx.heads[i] < q->s.size, "head");
		sum += rx.lens[i];
	}
	FZ_CHECK(r == NET_RX_OK ? sum == len : sum == 0, "lengths add up "
		 "to %llu of %u", (unsigned long long)sum, len);
	for (unsigned int i = 0; i < rx.n; i++)
		vq_push(q, rx.heads[i], rx.lens[i]);
	vq_need_interrupt(q);
}

static void step_rx(struct vq *q, uint16_t len)
{
	uint16_t before = q->s.last_avail;
	enum net_rx_result r;

	if (len < VIRTIO_NET_HDR_SIZE)
		len = VIRTIO_NET_HDR_SIZE;
	r = net_rx_place(q, &first, &scratch, frame7, len,
			 features >> VIRTIO_NET_F_MRG_RXBUF & 1, &rx);
	check_and_complete(q, r, before, len);
}

/* The device's fast path: the frame read straight into the first chain
 * (when a header fits there), the rest placed after it. */
static void step_rx_direct(struct vq *q, uint16_t len)
{
	uint16_t before = q->s.last_avail;
	enum net_rx_result r;

	if (len < VIRTIO_NET_HDR_SIZE)
		len = VIRTIO_NET_HDR_SIZE;
	if (vq_pop(q, &first) != VQ_CHAIN)
		return;
	if (first.in_len < VIRTIO_NET_HDR_SIZE) {
		vq_unpop(q, 1);
		return;
	}
	vq_copy_to(&first, 0, frame5, len);
	r = net_rx_place_rest(q, &first, &scratch, frame5, len,
			      features >> VIRTIO_NET_F_MRG_RXBUF & 1, &rx);
	check_and_complete(q, r, before, len);
}

static void step_check(struct fz *f)
{
	uint16_t len = fz_u16(f);
	uint8_t hdr[VIRTIO_NET_HDR_SIZE] = { 0 };
	size_t n;
	const uint8_t *b = fz_bytes(f, sizeof(hdr), &n);
	uint8_t gso, ecn;

	memcpy(hdr, b, n);
	if (net_tx_check(hdr, len, features))
		return;
	/* The ECN bit qualifies a segmentation type; it is no type. */
	gso = hdr[VIRTIO_NET_HDR_GSO_TYPE] & ~VIRTIO_NET_HDR_GSO_ECN;
	ecn = hdr[VIRTIO_NET_HDR_GSO_TYPE] & VIRTIO_NET_HDR_GSO_ECN;
	FZ_CHECK(len >= NET_ETH_HLEN, "runt accepted");
	FZ_CHECK(!ecn || (gso && features >> VIRTIO_NET_F_HOST_ECN & 1),
		 "ECN bit accepted with gso %#x", gso);
	FZ_CHECK(!(hdr[0] & ~VIRTIO_NET_HDR_F_NEEDS_CSUM), "flags accepted");
	FZ_CHECK(!(hdr[0] & 1) || features >> VIRTIO_NET_F_CSUM & 1,
		 "checksum not negotiated");
	FZ_CHECK(gso == 0 || (gso == VIRTIO_NET_HDR_GSO_TCPV4 &&
			      features >> VIRTIO_NET_F_HOST_TSO4 & 1) ||
		 (gso == VIRTIO_NET_HDR_GSO_TCPV6 &&
		  features >> VIRTIO_NET_F_HOST_TSO6 & 1), "gso %#x", gso);
}

static void start(struct vq *q, const struct vq_state *cfg)
{
	vq_reset(q, NET_QUEUE_MAX);
	q->s = *cfg;
	vq_start(q, &mem, NET_QUEUE_MAX);
}

static void read_cfg(struct fz *f, struct vq_state *c, uint8_t lg,
		     uint8_t flags)
{
	c->size = (uint16_t)(1u << (lg % 9));
	c->event_idx = flags & 1;
	c->indirect = !!(flags & 2);
	c->enabled = 1;
	c->desc = RAM_BASE + fz_u16(f);
	c->avail = RAM_BASE + fz_u16(f);
	c->used = RAM_BASE + fz_u16(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	/* Allocated once and zeroed per input: a fresh allocation each time
	 * came from ASan's quarantine-cold memory, a page fault per page. */
	ram = malloc(RAM_SIZE);
	if (!ram)
		abort();
	for (unsigned int i = 0; i < NET_RX_BUF; i++) {
		frame7[i] = (uint8_t)(i * 7);
		frame5[i] = (uint8_t)(i * 5);
	}
	return 0;
}

static void run_ops(struct fz *f, struct vq *rq, struct vq *tq,
		    const struct vq_state *rc, const struct vq_state *tc)
{
	for (int i = 0; i < MAX_OPS && !fz_empty(f); i++) {
		uint8_t op = fz_u8(f) % 7;
		const uint8_t *b;
		uint16_t off;
		size_t n;

		switch (op) {
		case 0:
			step_tx(tq, fz_u8(f));
			break;
		case 1:
			step_rx(rq, fz_u16(f));
			break;
		case 2:
			off = fz_u16(f) % RAM_SIZE;
			b = fz_bytes(f, fz_u8(f), &n);
			memcpy(ram + off, b, n < RAM_SIZE - off ? n :
			       RAM_SIZE - off);
			break;
		case 3:
			vq_notify_enable(rq);
			vq_notify_enable(tq);
			break;
		case 4:
			start(rq, rc);
			start(tq, tc);
			break;
		case 6:
			step_rx_direct(rq, fz_u16(f));
			break;
		default:
			step_check(f);
			break;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	struct vq_state rc = { 0 }, tc = { 0 };
	struct vq rq = { 0 }, tq = { 0 };
	uint8_t lr, lt, flags;
	const uint8_t *init;
	size_t n;

	memset(ram, 0, RAM_SIZE);
	lr = fz_u8(&f);
	lt = fz_u8(&f);
	flags = fz_u8(&f);
	features = fz_u64(&f);
	if (flags & 4)
		features |= 1ull << VIRTIO_NET_F_MRG_RXBUF;
	else
		features &= ~(1ull << VIRTIO_NET_F_MRG_RXBUF);
	read_cfg(&f, &rc, lr, flags);
	read_cfg(&f, &tc, lt, flags);
	init = fz_bytes(&f, fz_u16(&f), &n);
	memcpy(ram, init, n < RAM_SIZE ? n : RAM_SIZE);
	start(&rq, &rc);
	start(&tq, &tc);
	run_ops(&f, &rq, &tq, &rc, &tc);
	return 0;
}
