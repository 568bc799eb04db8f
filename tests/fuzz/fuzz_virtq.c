// SPDX-License-Identifier: MIT
/*
 * The split-virtqueue walker (devices/virtio/virtqueue.c) and the
 * virtio-blk request parser (devices/virtio/blk_req.c) on guest memory
 * the fuzzer writes, and rewrites between steps as a racing driver would.
 * Guest RAM is a heap buffer of exactly RAM_SIZE bytes at GPA RAM_BASE,
 * so ASan reports any access past it.
 *
 * Input:
 *   u8 log2(queue size) (mod 9), u8 flags (1 event index, 2 indirect,
 *   4 read-only disk), u16 desc, u16 avail, u16 used (offsets in RAM),
 *   u32 disk capacity (sectors), u16 n + n bytes of initial RAM (from 0),
 *   then operations: u8 op:
 *     0 pop a chain, parse it as a blk request, complete it
 *     1 u16 offset, u8 n, n bytes: the driver writes RAM
 *     2 re-arm kicks (vq_notify_enable) / 3 suppress them
 *     4 reset and start the queue again
 *
 * Checked: every iovec lies inside guest RAM; a chain holds at most
 * VQ_CHAIN_MAX buffers and its lengths add up; a broken queue stays
 * broken; the parser's data slices lie inside the chain's buffers of the
 * right direction and add up to its length; a read fills every writable
 * buffer in chain order but the status byte, the last writable byte (by
 * position: buffers may overlap in guest memory); a request accepted with VIRTIO_BLK_S_OK stays inside the
 * disk, reads and writes whole sectors, and writes only a writable disk.
 */
#include "devices/virtio/blk_req.h"
#include "devices/virtio/spec.h"
#include "devices/virtio/virtqueue.h"
#include "tests/fuzz/fuzz_util.h"

#define RAM_BASE	0x10000ull
#define RAM_SIZE	0x4000ull
#define MAX_OPS		256

static uint8_t *ram;
static struct vq_chain chain;
static struct iovec slice[VQ_CHAIN_MAX];

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

static void check_chain(const struct vq *q, const struct vq_chain *c)
{
	uint64_t out = 0, in = 0;

	FZ_CHECK(c->n_out + c->n_in <= VQ_CHAIN_MAX, "%u buffers",
		 c->n_out + c->n_in);
	FZ_CHECK(c->head < q->s.size, "head %u", c->head);
	for (unsigned int i = 0; i < c->n_out + c->n_in; i++) {
		FZ_CHECK(c->iov[i].iov_len && inside(c->iov[i].iov_base,
						      c->iov[i].iov_len),
			 "buffer %u outside RAM", i);
		if (i < c->n_out)
			out += c->iov[i].iov_len;
		else
			in += c->iov[i].iov_len;
	}
	FZ_CHECK(out == c->out_len && in == c->in_len, "lengths");
}

/* Is [p, p+len) inside one of the chain's buffers of that direction? */
static bool in_chain(const struct vq_chain *c, const void *p, uint64_t len,
		     bool wr)
{
	unsigned int first = wr ? c->n_out : 0;
	unsigned int end = wr ? c->n_out + c->n_in : c->n_out;
	const uint8_t *b = p;

	for (unsigned int i = first; i < end; i++) {
		const uint8_t *s = c->iov[i].iov_base;

		if (b >= s && len <= c->iov[i].iov_len &&
		    (uint64_t)(b - s) <= c->iov[i].iov_len - len)
			return true;
	}
	return false;
}

/* Data read from the disk goes to every writable buffer in chain order
 * but the status byte, the last one's final byte.  Compared by position,
 * not address: buffers may overlap in guest memory, so another buffer
 * may well end where the status byte sits. */
static void check_in_slices(const struct vq_chain *c, const struct blk_req *r)
{
	unsigned int last = c->n_out + c->n_in - 1, k = 0;

	for (unsigned int i = c->n_out; i <= last; i++) {
		size_t len = c->iov[i].iov_len - (i == last);

		if (!len)
			continue;
		FZ_CHECK(k < r->niov && r->iov[k].iov_base ==
			 c->iov[i].iov_base && r->iov[k].iov_len == len,
			 "slice %u is not writable buffer %u less the status "
			 "byte", k, i);
		k++;
	}
	FZ_CHECK(k == r->niov, "%u slices for %u writable buffers",
		 r->niov, k);
}

static void check_req(const struct vq_chain *c, const struct blk_geom *g,
		      const struct blk_req *r)
{
	bool wr = r->type == VIRTIO_BLK_T_IN || r->type == VIRTIO_BLK_T_GET_ID;
	uint64_t sum = 0;

	if (!r->status_at) {
		FZ_CHECK(c->n_in == 0, "writable bytes but no status");
		FZ_CHECK(blk_req_used_len(r) == 0, "used length without status");
		return;
	}
	FZ_CHECK(in_chain(c, r->status_at, 1, true), "status not writable");
	for (unsigned int i = 0; i < r->niov; i++) {
		const uint8_t *b = r->iov[i].iov_base;

		FZ_CHECK(in_chain(c, b, r->iov[i].iov_len, wr),
			 "slice %u outside the chain", i);
		sum += r->iov[i].iov_len;
	}
	FZ_CHECK(sum == r->len, "slice lengths");
	if (wr && c->out_len >= VIRTIO_BLK_HDR_SIZE)	/* type was read */
		check_in_slices(c, r);
	if (r->status != VIRTIO_BLK_S_OK)
		return;
	if (r->type == VIRTIO_BLK_T_IN || r->type == VIRTIO_BLK_T_OUT) {
		FZ_CHECK(r->len % 512 == 0, "partial sector");
		FZ_CHECK(r->sector <= g->capacity &&
			 r->len / 512 <= g->capacity - r->sector, "past the end");
		FZ_CHECK(r->type == VIRTIO_BLK_T_IN || !g->ro, "ro written");
	}
	for (unsigned int i = 0; i < r->nsegs; i++)
		FZ_CHECK(!g->ro && r->segs[i].sector <= g->capacity &&
			 r->segs[i].num <= g->capacity - r->segs[i].sector,
			 "segment %u", i);
	FZ_CHECK(blk_req_used_len(r) <= (uint64_t)c->in_len, "used length");
}

static void step_pop(struct vq *q, const struct blk_geom *g)
{
	bool was_broken = q->s.broken;
	struct blk_req r;
	int res = vq_pop(q, &chain);

	if (was_broken)
		FZ_CHECK(res == VQ_ERROR, "broken queue popped %d", res);
	if (res != VQ_CHAIN)
		return;
	check_chain(q, &chain);
	blk_req_parse(&chain, g, slice, &r);
	check_req(&chain, g, &r);
	vq_push(q, chain.head, blk_req_used_len(&r));
	vq_need_interrupt(q);
}

static void start(struct vq *q, const struct vq_state *cfg)
{
	vq_reset(q, 256);
	q->s = *cfg;
	vq_start(q, &mem, 256);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	struct vq_state cfg = { 0 };
	struct blk_geom g = { .max_discard_sectors = 0x3fffff,
			      .max_discard_seg = 16, .max_wz_sectors = 0x3fffff,
			      .max_wz_seg = 16 };
	struct vq q = { 0 };
	uint8_t flags;
	size_t n;
	const uint8_t *init;

	ram = calloc(1, RAM_SIZE);
	if (!ram)
		abort();
	cfg.size = (uint16_t)(1u << (fz_u8(&f) % 9));
	flags = fz_u8(&f);
	cfg.event_idx = flags & 1;
	cfg.indirect = !!(flags & 2);
	g.ro = flags & 4;
	cfg.desc = RAM_BASE + fz_u16(&f);
	cfg.avail = RAM_BASE + fz_u16(&f);
	cfg.used = RAM_BASE + fz_u16(&f);
	cfg.enabled = 1;
	g.capacity = fz_u32(&f);
	init = fz_bytes(&f, fz_u16(&f), &n);
	memcpy(ram, init, n < RAM_SIZE ? n : RAM_SIZE);
	start(&q, &cfg);
	for (int i = 0; i < MAX_OPS && !fz_empty(&f); i++) {
		uint8_t op = fz_u8(&f) % 5;
		uint16_t off;

		switch (op) {
		case 0:
			step_pop(&q, &g);
			break;
		case 1:
			off = fz_u16(&f) % RAM_SIZE;
			init = fz_bytes(&f, fz_u8(&f), &n);
			memcpy(ram + off, init, n < RAM_SIZE - off ? n :
			       RAM_SIZE - off);
			break;
		case 2:
			vq_notify_enable(&q);
			break;
		case 3:
			vq_notify_disable(&q);
			break;
		default:
			start(&q, &cfg);
			break;
		}
	}
	free(ram);
	return 0;
}
