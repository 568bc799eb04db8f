// SPDX-License-Identifier: MIT
/*
 * Split virtqueue, device side; see virtqueue.h for the rules.  The rings
 * live in guest memory that the driver may change at any moment, so every
 * field is read once into a local and checked there, and the orderings
 * the specification requires (avail index before the entries it covers;
 * used entries before the used index; the used index before reading the
 * driver's event index) are explicit atomics and fences.
 */
#include <endian.h>
#include <string.h>

#include "devices/virtio/spec.h"
#include "devices/virtio/virtqueue.h"
#include "firmware/lib/le.h"

#define AVAIL_FLAGS	0
#define AVAIL_IDX	2
#define AVAIL_RING	4
#define USED_FLAGS	0
#define USED_IDX	2
#define USED_RING	4

struct desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

/* A walk through one descriptor table (the queue's or an indirect one). */
struct walk {
	const uint8_t *table;
	uint32_t n;			/* entries */
	uint32_t steps, max_steps;
	bool in_indirect;
};

/* Fields the driver reads or writes while we do (indexes, event
 * suppression): one access each, so neither side sees half an update. */
static uint16_t load16_shared(const uint8_t *p)
{
	return le16toh(__atomic_load_n((const uint16_t *)p, __ATOMIC_RELAXED));
}

static void store16_shared(uint8_t *p, uint16_t v)
{
	__atomic_store_n((uint16_t *)p, htole16(v), __ATOMIC_RELAXED);
}

static uint16_t load16_acquire(const uint8_t *p)
{
	return le16toh(__atomic_load_n((const uint16_t *)p, __ATOMIC_ACQUIRE));
}

static void store16_release(uint8_t *p, uint16_t v)
{
	__atomic_store_n((uint16_t *)p, htole16(v), __ATOMIC_RELEASE);
}

static int fail(struct vq *q, const char *why)
{
	q->s.broken = 1;
	q->error = why;
	return VQ_ERROR;
}

void vq_reset(struct vq *q, uint16_t max_size)
{
	const struct virtio_mem *mem = q->mem;

	memset(q, 0, sizeof(*q));
	q->mem = mem;
	q->s.size = max_size;
	q->s.msix_vector = VIRTIO_MSI_NO_VECTOR;
}

static bool pow2(uint32_t x)
{
	return x && !(x & (x - 1));
}

int vq_start(struct vq *q, const struct virtio_mem *mem, uint16_t max_size)
{
	uint16_t n = q->s.size;

	q->mem = mem;
	q->desc_p = q->avail_p = q->used_p = NULL;
	if (!pow2(n) || n > max_size || n > VQ_CHAIN_MAX)
		return fail(q, "queue size is not a power of two up to the "
			    "maximum");
	if ((q->s.desc & (VIRTQ_DESC_ALIGN - 1)) ||
	    (q->s.avail & (VIRTQ_AVAIL_ALIGN - 1)) ||
	    (q->s.used & (VIRTQ_USED_ALIGN - 1)))
		return fail(q, "ring address misaligned");
	q->desc_p = mem->ptr(mem->ctx, q->s.desc, VIRTQ_DESC_BYTES(n));
	q->avail_p = mem->ptr(mem->ctx, q->s.avail, VIRTQ_AVAIL_BYTES(n));
	q->used_p = mem->ptr(mem->ctx, q->s.used, VIRTQ_USED_BYTES(n));
	if (!q->desc_p || !q->avail_p || !q->used_p) {
		q->desc_p = q->avail_p = q->used_p = NULL;
		return fail(q, "ring outside guest RAM");
	}
	return 0;
}

uint16_t vq_pending(const struct vq *q)
{
	if (!vq_ready(q))
		return 0;
	return (uint16_t)(load16_acquire(q->avail_p + AVAIL_IDX) -
			  q->s.last_avail);
}

static void read_desc(const uint8_t *table, uint32_t i, struct desc *d)
{
	const uint8_t *p = table + (uint64_t)i * VIRTQ_DESC_SIZE;
	d->addr = le64_get(p);
	d->len = le32_get(p + 8);
	d->flags = le16_get(p + 12);
	d->next = le16_get(p + 14);
}

/* Switch w to the indirect table d names. */
static int enter_indirect(struct vq *q, struct walk *w, const struct desc *d)
{
	if (!q->s.indirect)
		return fail(q, "indirect descriptor not negotiated");
	if (w->in_indirect)
		return fail(q, "nested indirect descriptor");
	if (d->flags & VIRTQ_DESC_F_NEXT)
		return fail(q, "indirect descriptor with NEXT");
	if (!d->len || d->len % VIRTQ_DESC_SIZE ||
	    d->len / VIRTQ_DESC_SIZE > VQ_CHAIN_MAX)
		return fail(q, "bad indirect table length");
	w->table = q->mem->ptr(q->mem->ctx, d->addr, d->len);
	if (!w->table)
		return fail(q, "indirect table outside guest RAM");
	w->n = d->len / VIRTQ_DESC_SIZE;
	/* A table may be walked once, entry by entry: more steps than
	 * entries means a loop. */
	w->max_steps = w->n;
	w->steps = 0;
	w->in_indirect = true;
	return 0;
}

static int add_buffer(struct vq *q, struct vq_chain *c, const struct desc *d)
{
	bool wr = d->flags & VIRTQ_DESC_F_WRITE;
	unsigned int i = c->n_out + c->n_in;
	void *p;

	if (!d->len)
		return 0;	/* nothing to transfer; still a step */
	if (!wr && c->n_in)
		return fail(q, "readable descriptor after a writable one");
	p = q->mem->ptr(q->mem->ctx, d->addr, d->len);
	if (!p)
		return fail(q, "buffer outside guest RAM");
	c->iov[i].iov_base = p;
	c->iov[i].iov_len = d->len;
	if (wr) {
		c->n_in++;
		c->in_len += d->len;
	} else {
		c->n_out++;
		c->out_len += d->len;
	}
	return 0;
}

static int walk_chain(struct vq *q, struct vq_chain *c, uint16_t head)
{
	struct walk w = { q->desc_p, q->s.size, 0, q->s.size, false };
	unsigned int total = 0;
	uint32_t i = head;
	struct desc d;

	for (;;) {
		if (i >= w.n)
			return fail(q, "descriptor index out of range");
		if (++w.steps > w.max_steps)
			return fail(q, "descriptor chain loops");
		read_desc(w.table, i, &d);
		if (d.flags & VIRTQ_DESC_F_INDIRECT) {
			if (enter_indirect(q, &w, &d) < 0)
				return VQ_ERROR;
			i = 0;
			continue;
		}
		/* Buffers, not table pointers, fill c->iov. */
		if (++total > VQ_CHAIN_MAX)
			return fail(q, "descriptor chain too long");
		if (add_buffer(q, c, &d) < 0)
			return VQ_ERROR;
		if (!(d.flags & VIRTQ_DESC_F_NEXT))
			return VQ_CHAIN;
		i = d.next;
	}
}

enum vq_pop_result vq_pop(struct vq *q, struct vq_chain *c)
{
	uint16_t idx, head, slot;

	if (!vq_ready(q))
		return q->s.broken ? VQ_ERROR : VQ_EMPTY;
	idx = load16_acquire(q->avail_p + AVAIL_IDX);
	if (idx == q->s.last_avail)
		return VQ_EMPTY;
	if ((uint16_t)(idx - q->s.last_avail) > q->s.size)
		return fail(q, "avail index moved by more than the queue size");
	slot = q->s.last_avail & (q->s.size - 1);
	head = le16_get(q->avail_p + AVAIL_RING + 2u * slot);
	c->head = head;
	c->n_out = c->n_in = 0;
	c->out_len = c->in_len = 0;
	if (walk_chain(q, c, head) < 0)
		return VQ_ERROR;
	q->s.last_avail++;
	return VQ_CHAIN;
}

void vq_unpop(struct vq *q, uint16_t n)
{
	q->s.last_avail = (uint16_t)(q->s.last_avail - n);
}

void vq_push(struct vq *q, uint16_t head, uint32_t len)
{
	uint8_t *e;

	if (!q->used_p)
		return;
	e = q->used_p + USED_RING + VIRTQ_USED_ELEM_SIZE *
	    (uint64_t)(q->s.used_idx & (q->s.size - 1));
	le32_put(e, head);
	le32_put(e + 4, len);
	q->s.used_idx++;
	store16_release(q->used_p + USED_IDX, q->s.used_idx);
}

bool vq_need_interrupt(struct vq *q)
{
	uint16_t old = q->s.signalled, new = q->s.used_idx, event;

	if (!q->used_p)
		return false;
	q->s.signalled = new;
	/* Our used index must be visible before we read what the driver
	 * asked for, or both sides could decide the other one moves. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!q->s.event_idx)
		return !(load16_shared(q->avail_p + AVAIL_FLAGS) &
			 VIRTQ_AVAIL_F_NO_INTERRUPT);
	event = load16_shared(q->avail_p + AVAIL_RING + 2u * q->s.size);
	return (uint16_t)(new - event - 1) < (uint16_t)(new - old);
}

void vq_notify_disable(struct vq *q)
{
	/* With the event index, a stale avail_event already keeps the
	 * driver quiet: it kicks only when crossing it. */
	if (!q->used_p || q->s.event_idx)
		return;
	store16_shared(q->used_p + USED_FLAGS, VIRTQ_USED_F_NO_NOTIFY);
}

bool vq_notify_enable(struct vq *q)
{
	if (!q->used_p)
		return false;
	if (q->s.event_idx)
		store16_shared(q->used_p + USED_RING + VIRTQ_USED_ELEM_SIZE *
			       (uint64_t)q->s.size, q->s.last_avail);
	else
		store16_shared(q->used_p + USED_FLAGS, 0);
	/* Publish before re-reading avail: a buffer added meanwhile either
	 * sees the re-armed kick or is seen here. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return vq_pending(q) != 0;
}

/* writable: which part of the chain; to: into the chain, else out. */
static uint64_t copy(const struct vq_chain *c, bool writable, bool to,
		     uint64_t off, uint8_t *buf, uint64_t len)
{
	unsigned int first = writable ? c->n_out : 0;
	unsigned int end = writable ? c->n_out + c->n_in : c->n_out;
	uint64_t done = 0;

	for (unsigned int i = first; i < end && done < len; i++) {
		uint64_t l = c->iov[i].iov_len, n;
		uint8_t *p = c->iov[i].iov_base;

		if (off >= l) {
			off -= l;
			continue;
		}
		n = l - off < len - done ? l - off : len - done;
		if (to)
			memcpy(p + off, buf + done, n);
		else
			memcpy(buf + done, p + off, n);
		done += n;
		off = 0;
	}
	return done;
}

uint64_t vq_copy_from(const struct vq_chain *c, uint64_t off, void *buf,
		      uint64_t len)
{
	return copy(c, false, false, off, buf, len);
}

uint64_t vq_copy_written(const struct vq_chain *c, uint64_t off, void *buf,
			 uint64_t len)
{
	return copy(c, true, false, off, buf, len);
}

uint64_t vq_copy_to(const struct vq_chain *c, uint64_t off, const void *buf,
		    uint64_t len)
{
	return copy(c, true, true, off, (uint8_t *)buf, len);
}
