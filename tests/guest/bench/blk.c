// SPDX-License-Identifier: MIT
/*
 * The virtio-blk cases: a polling driver on the first virtio-blk function
 * (any VMM's: it goes by the specification), set up once in ring 0, then
 * timed in ring 3 where it runs natively: keep qd requests in flight,
 * kick only when the device asked for it (event index), never take an
 * interrupt (used_event kept behind), reap completions by polling.  One op
 * is one request.  The BENCH line's extra words say the request size and
 * depth, the MB/s and IOPS when the TSC rate is known, the doorbell
 * writes made in all (kicks=, for notifications per request) and any
 * request that failed (errors=).
 */
#include "bench.h"
#include "../lib/virtio.h"

#define BLK_QSIZE	256
#define BLK_QD_MAX	32
#define BLK_BUF_MAX	BLK_BUF_BYTES	/* qd * request size */

struct blk_hdr {
	uint32_t type, reserved;
	uint64_t sector;
};

static struct blk_bench {
	struct gvirtio d;
	struct gvq *q;
	bool ready;
	uint64_t capacity;		/* sectors */
	uint64_t buf;			/* qd * size bytes of RAM */
	uint32_t size, qd;
	uint32_t type;
	bool random;
	uint64_t next, rng, errors;
	uint16_t free[BLK_QD_MAX];
	unsigned int nfree;
	struct blk_hdr hdr[BLK_QD_MAX];
	uint8_t status[BLK_QD_MAX];
} bb;

static uint8_t blk_qmem[16384] __attribute__((aligned(4096)));

/* Ring 0, once per boot. */
static const char *blk_open(const struct platform *p)
{
	uint64_t f = 1ull << VIRTIO_F_VERSION_1 |
		     1ull << VIRTIO_F_RING_EVENT_IDX;

	if (bb.ready)
		return NULL;
	if (!p->blk_buf)
		return "not-enough-ram";
	if (gv_find(VIRTIO_ID_BLOCK, 0, &bb.d) < 0)
		return "no-virtio-blk";
	if (!bb.d.common || bb.d.common >= (1ull << 32))
		return "virtio-bar-above-4g";
	if (!gv_negotiate(&bb.d, f, false) ||
	    gv_queue_setup(&bb.d, 0, BLK_QSIZE, blk_qmem,
			   VIRTIO_MSI_NO_VECTOR) < 0)
		return "virtio-blk-refused";
	bb.q = &bb.d.q[0];
	bb.capacity = gv_cfg_read64(&bb.d, VIRTIO_BLK_CFG_CAPACITY);
	gv_driver_ok(&bb.d);
	gv_no_interrupts(bb.q);
	bb.buf = p->blk_buf;
	bb.ready = true;
	return NULL;
}

static uint64_t blk_sector(void)
{
	uint64_t per = bb.size / 512, n = bb.capacity / per, s;

	if (bb.random) {
		bb.rng ^= bb.rng << 13;
		bb.rng ^= bb.rng >> 7;
		bb.rng ^= bb.rng << 17;
		return bb.rng % n * per;
	}
	s = bb.next;
	bb.next = bb.next + per + per > bb.capacity ? 0 : bb.next + per;
	return s;
}

/* Slot s: descriptors 3s (header), 3s + 1 (data), 3s + 2 (status). */
static void blk_issue(uint16_t s)
{
	struct gv_desc *d = bb.q->desc + 3u * s;
	uint16_t wr = bb.type == VIRTIO_BLK_T_IN ? VIRTQ_DESC_F_WRITE : 0;

	bb.hdr[s] = (struct blk_hdr){ bb.type, 0, blk_sector() };
	d[0] = (struct gv_desc){ (uintptr_t)&bb.hdr[s], 16, VIRTQ_DESC_F_NEXT,
				 (uint16_t)(3 * s + 1) };
	d[1] = (struct gv_desc){ bb.buf + (uint64_t)s * bb.size, bb.size,
				 (uint16_t)(VIRTQ_DESC_F_NEXT | wr),
				 (uint16_t)(3 * s + 2) };
	d[2] = (struct gv_desc){ (uintptr_t)&bb.status[s], 1,
				 VIRTQ_DESC_F_WRITE, 0 };
	gv_publish(bb.q, (uint16_t)(3 * s));
}

static uint64_t blk_reap(void)
{
	uint32_t id, len;
	uint64_t n = 0;

	while (gv_poll(bb.q, &id, &len)) {
		uint16_t s = (uint16_t)(id / 3);

		if (id % 3 || s >= bb.qd || bb.status[s]) {
			bb.errors++;
			if (id % 3 || s >= bb.qd)
				continue;
		}
		bb.free[bb.nfree++] = s;
		n++;
	}
	gv_no_interrupts(bb.q);
	return n;
}

/* The timed loop (ring 3): n requests, qd in flight; returns cycles. */
static uint64_t blk_loop(uint64_t arg, uint64_t value, uint64_t n,
			 uint64_t value2)
{
	uint64_t t0 = tsc_begin(), issued = 0, done = 0;

	(void)arg;
	(void)value;
	(void)value2;
	while (done < n) {
		uint16_t old = bb.q->avail_idx;

		while (bb.nfree && issued < n) {
			blk_issue(bb.free[--bb.nfree]);
			issued++;
		}
		if (bb.q->avail_idx != old)
			gv_kick(bb.q, old);
		done += blk_reap();
	}
	return tsc_end() - t0;
}

/* One case: random or sequential requests of size bytes, qd in flight. */
static const char *blk_setup(const struct platform *p, struct run *r,
			     bool random, uint32_t size, uint32_t type,
			     uint32_t qd)
{
	const char *why = blk_open(p);

	if (why)
		return why;
	if (!qd || qd > BLK_QD_MAX || (uint64_t)qd * size > BLK_BUF_MAX ||
	    bb.capacity < 2ull * size / 512)
		return "bad-geometry";
	bb.random = random;
	bb.size = size;
	bb.type = type;
	bb.qd = qd;
	bb.nfree = 0;
	for (uint16_t s = 0; s < bb.qd; s++)
		bb.free[bb.nfree++] = s;
	bb.rng = 0x9e3779b97f4a7c15ull;
	bb.next = 0;
	bb.errors = 0;
	r->loop = blk_loop;
	r->blk = true;
	return NULL;
}

/* The words after a blk case's BENCH line: size, depth, rates. */
static void blk_extra(char *buf, size_t len, uint64_t milli_ns)
{
	uint64_t ns = milli_ns / 1000;

	gsnprintf(buf, len, "size=%u qd=%u kicks=%llu errors=%llu", bb.size,
		  bb.qd, (unsigned long long)bb.q->kicks,
		  (unsigned long long)bb.errors);
	if (!ns)
		return;
	gsnprintf(buf + strlen(buf), len - strlen(buf), " mbps=%llu iops=%llu",
		  (unsigned long long)(bb.size * 1000ull / ns),
		  (unsigned long long)(1000000000ull / ns));
}
