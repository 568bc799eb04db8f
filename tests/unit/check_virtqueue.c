// SPDX-License-Identifier: MIT
/*
 * devices/virtio/virtqueue.c: the split-ring walker against a fake guest
 * RAM: set-up checks, chains (direct, indirect, zero lengths), every
 * malformed ring a driver can build (loops, bad indices, buffers outside
 * RAM or wrapping, order, nested or un-negotiated indirect tables),
 * completion, event-index interrupt and kick suppression, and copying
 * across descriptors.
 */
#include <check.h>

#include "tests/unit/unit.h"
#include "devices/virtio/spec.h"
#include "devices/virtio/virtqueue.h"
#include "firmware/lib/le.h"

#define RAM_BASE	0x100000ull
#define RAM_SIZE	0x100000ull
#define DESC		(RAM_BASE + 0x0000)
#define AVAIL		(RAM_BASE + 0x1000)
#define USED		(RAM_BASE + 0x2000)
#define ITAB		(RAM_BASE + 0x3000)
#define BUF		(RAM_BASE + 0x10000)
#define SIZE		16

static uint8_t ram[RAM_SIZE] __attribute__((aligned(4096)));
static struct vq q;
static struct vq_chain chain;

static void *fake_ptr(void *ctx, uint64_t gpa, uint64_t len)
{
	(void)ctx;
	if (!len || gpa < RAM_BASE || gpa - RAM_BASE >= RAM_SIZE ||
	    len > RAM_SIZE - (gpa - RAM_BASE))
		return NULL;
	return ram + (gpa - RAM_BASE);
}

static const struct virtio_mem mem = { fake_ptr, NULL };

static uint8_t *at(uint64_t gpa)
{
	return ram + (gpa - RAM_BASE);
}

static void put16(uint64_t gpa, uint16_t v)
{
	le16_put(at(gpa), v);
}

static uint16_t get16(uint64_t gpa)
{
	return le16_get(at(gpa));
}

static uint32_t get32(uint64_t gpa)
{
	return le32_get(at(gpa));
}

static void desc_at(uint64_t table, unsigned int i, uint64_t addr,
		    uint32_t len, uint16_t flags, uint16_t next)
{
	uint8_t *p = at(table + 16ull * i);

	memcpy(p, &addr, 8);
	memcpy(p + 8, &len, 4);
	memcpy(p + 12, &flags, 2);
	memcpy(p + 14, &next, 2);
}

static void desc(unsigned int i, uint64_t addr, uint32_t len, uint16_t flags,
		 uint16_t next)
{
	desc_at(DESC, i, addr, len, flags, next);
}

/* Make head available (slot = current avail idx). */
static void offer(uint16_t head)
{
	uint16_t idx = get16(AVAIL + 2);

	put16(AVAIL + 4 + 2 * (idx % SIZE), head);
	put16(AVAIL + 2, (uint16_t)(idx + 1));
}

static void setup(void)
{
	memset(ram, 0, sizeof(ram));
	q.mem = &mem;
	vq_reset(&q, 256);
	q.s.size = SIZE;
	q.s.desc = DESC;
	q.s.avail = AVAIL;
	q.s.used = USED;
	q.s.indirect = 1;
	q.s.event_idx = 1;
	q.s.enabled = 1;
	ck_assert_int_eq(vq_start(&q, &mem, 256), 0);
}

static void expect_error(const char *why)
{
	ck_assert_int_eq(vq_pop(&q, &chain), VQ_ERROR);
	ck_assert(q.s.broken);
	ck_assert_msg(q.error && strstr(q.error, why), "error '%s', want '%s'",
		      q.error ? q.error : "(none)", why);
	/* Broken stays broken: nothing more is taken. */
	ck_assert_int_eq(vq_pop(&q, &chain), VQ_ERROR);
}

START_TEST(test_start_checks)
{
	static const struct {
		uint16_t size;
		uint64_t desc, avail, used;
		const char *why;
	} bad[] = {
		{ 0, DESC, AVAIL, USED, "power of two" },
		{ 24, DESC, AVAIL, USED, "power of two" },
		{ 512, DESC, AVAIL, USED, "power of two" },
		{ 16, DESC + 8, AVAIL, USED, "misaligned" },
		{ 16, DESC, AVAIL + 1, USED, "misaligned" },
		{ 16, DESC, AVAIL, USED + 2, "misaligned" },
		{ 16, 0x1000, AVAIL, USED, "outside" },
		{ 16, DESC, RAM_BASE + RAM_SIZE - 16, USED, "outside" },
		{ 256, RAM_BASE + RAM_SIZE - 2048, AVAIL, USED, "outside" },
		{ 16, DESC, AVAIL, ~0ull - 63, "outside" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		vq_reset(&q, 256);
		q.s.size = bad[i].size;
		q.s.desc = bad[i].desc;
		q.s.avail = bad[i].avail;
		q.s.used = bad[i].used;
		q.s.enabled = 1;
		ck_assert_int_eq(vq_start(&q, &mem, 256), -1);
		ck_assert_msg(strstr(q.error, bad[i].why), "case %zu: %s", i,
			      q.error);
		ck_assert(!vq_ready(&q));
		ck_assert_int_eq(vq_pop(&q, &chain), VQ_ERROR);
	}
}
END_TEST

START_TEST(test_simple_chain)
{
	ck_assert_int_eq(vq_pop(&q, &chain), VQ_EMPTY);
	desc(3, BUF, 16, VIRTQ_DESC_F_NEXT, 7);
	desc(7, BUF + 100, 0, VIRTQ_DESC_F_NEXT, 9);	/* zero: skipped */
	desc(9, BUF + 512, 512, VIRTQ_DESC_F_NEXT | VIRTQ_DESC_F_WRITE, 1);
	desc(1, BUF + 2048, 1, VIRTQ_DESC_F_WRITE, 0);
	offer(3);
	ck_assert_uint_eq(vq_pending(&q), 1);
	ck_assert_int_eq(vq_pop(&q, &chain), VQ_CHAIN);
	ck_assert_uint_eq(chain.head, 3);
	ck_assert_uint_eq(chain.n_out, 1);
	ck_assert_uint_eq(chain.n_in, 2);
	ck_assert_uint_eq(chain.out_len, 16);
	ck_assert_uint_eq(chain.in_len, 513);
	ck_assert_ptr_eq(chain.iov[0].iov_base, at(BUF));
	ck_assert_ptr_eq(chain.iov[2].iov_base, at(BUF + 2048));
	ck_assert_int_eq(vq_pop(&q, &chain), VQ_EMPTY);
	ck_assert_uint_eq(q.s.last_avail, 1);
}
END_TEST

START_TEST(test_indirect)
{
	desc_at(ITAB, 0, BUF, 16, VIRTQ_DESC_F_NEXT, 2);
	desc_at(ITAB, 2, BUF + 64, 4096, VIRTQ_DESC_F_NEXT |
		VIRTQ_DESC_F_WRITE, 1);
	desc_at(ITAB, 1, BUF + 8192, 1, VIRTQ_DESC_F_WRITE, 0);
	/* A direct buffer first, then the table (WRITE on it: ignored). */
	desc(0, BUF + 32, 8, VIRTQ_DESC_F_NEXT, 4);
	desc(4, ITAB, 3 * 16, VIRTQ_DESC_F_INDIRECT | VIRTQ_DESC_F_WRITE, 0);
	offer(0);
	ck_assert_int_eq(vq_pop(&q, &chain), VQ_CHAIN);
	ck_assert_uint_eq(chain.n_out, 2);
	ck_assert_uint_eq(chain.n_in, 2);
	ck_assert_uint_eq(chain.out_len, 24);
	ck_assert_uint_eq(chain.in_len, 4097);
}
END_TEST

/* The longest legal direct chain: every entry once. */
START_TEST(test_full_chain)
{
	for (unsigned int i = 0; i < SIZE; i++)
		desc(i, BUF + 16 * i, 16, i + 1 < SIZE ? VIRTQ_DESC_F_NEXT : 0,
		     (uint16_t)(i + 1));
	offer(0);
	ck_assert_int_eq(vq_pop(&q, &chain), VQ_CHAIN);
	ck_assert_uint_eq(chain.n_out, SIZE);
}
END_TEST

START_TEST(test_loops)
{
	desc(0, BUF, 16, VIRTQ_DESC_F_NEXT, 1);
	desc(1, BUF, 16, VIRTQ_DESC_F_NEXT, 0);
	offer(0);
	expect_error("loops");
	setup();
	desc(5, BUF, 0, VIRTQ_DESC_F_NEXT, 5);		/* zero-length self */
	offer(5);
	expect_error("loops");
	setup();
	desc_at(ITAB, 0, BUF, 16, VIRTQ_DESC_F_NEXT, 1);
	desc_at(ITAB, 1, BUF, 16, VIRTQ_DESC_F_NEXT, 0);
	desc(0, ITAB, 32, VIRTQ_DESC_F_INDIRECT, 0);
	offer(0);
	expect_error("loops");
}
END_TEST

START_TEST(test_bad_indices)
{
	desc(0, BUF, 16, VIRTQ_DESC_F_NEXT, SIZE);
	offer(0);
	expect_error("out of range");
	setup();
	offer(SIZE + 3);
	expect_error("out of range");
	setup();
	put16(AVAIL + 2, SIZE + 1);
	expect_error("avail index");
	setup();
	desc_at(ITAB, 0, BUF, 16, VIRTQ_DESC_F_NEXT, 2);	/* table of 2 */
	desc(0, ITAB, 32, VIRTQ_DESC_F_INDIRECT, 0);
	offer(0);
	expect_error("out of range");
}
END_TEST

static void bad_buffer(uint64_t addr, uint32_t len)
{
	setup();
	desc(0, addr, len, 0, 0);
	offer(0);
	expect_error("outside guest RAM");
}

START_TEST(test_bad_buffers)
{
	bad_buffer(0x1000, 16);
	bad_buffer(RAM_BASE + RAM_SIZE - 8, 16);
	bad_buffer(RAM_BASE - 8, 16);
	bad_buffer(~0ull - 7, 16);
	bad_buffer(BUF, 0xffffffffu);
	setup();
	desc(0, BUF, 1, VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT, 1);
	desc(1, BUF, 16, 0, 0);
	offer(0);
	expect_error("readable descriptor after a writable");
}
END_TEST

START_TEST(test_bad_indirect)
{
	desc(0, ITAB, 16, VIRTQ_DESC_F_INDIRECT | VIRTQ_DESC_F_NEXT, 1);
	offer(0);
	expect_error("with NEXT");
	setup();
	desc_at(ITAB, 0, ITAB, 16, VIRTQ_DESC_F_INDIRECT, 0);
	desc(0, ITAB, 16, VIRTQ_DESC_F_INDIRECT, 0);
	offer(0);
	expect_error("nested");
	setup();
	desc(0, ITAB, 24, VIRTQ_DESC_F_INDIRECT, 0);
	offer(0);
	expect_error("indirect table length");
	setup();
	desc(0, ITAB, 0, VIRTQ_DESC_F_INDIRECT, 0);
	offer(0);
	expect_error("indirect table length");
	setup();
	desc(0, ITAB, 16 * (VQ_CHAIN_MAX + 1), VIRTQ_DESC_F_INDIRECT, 0);
	offer(0);
	expect_error("indirect table length");
	setup();
	desc(0, 0x2000, 16, VIRTQ_DESC_F_INDIRECT, 0);
	offer(0);
	expect_error("outside guest RAM");
	setup();
	q.s.indirect = 0;
	desc(0, ITAB, 16, VIRTQ_DESC_F_INDIRECT, 0);
	offer(0);
	expect_error("not negotiated");
}
END_TEST

/* Chains may grow past the queue size with indirect tables, but not past
 * VQ_CHAIN_MAX descriptors in all. */
START_TEST(test_chain_max)
{
	for (unsigned int i = 0; i < VQ_CHAIN_MAX; i++)
		desc_at(ITAB, i, BUF, 1, i + 1 < VQ_CHAIN_MAX ?
			VIRTQ_DESC_F_NEXT : 0, (uint16_t)(i + 1));
	desc(0, BUF, 1, VIRTQ_DESC_F_NEXT, 1);
	desc(1, ITAB, 16 * VQ_CHAIN_MAX, VIRTQ_DESC_F_INDIRECT, 0);
	offer(0);
	expect_error("too long");
	setup();
	for (unsigned int i = 0; i < VQ_CHAIN_MAX; i++)
		desc_at(ITAB, i, BUF, 1, i + 1 < VQ_CHAIN_MAX ?
			VIRTQ_DESC_F_NEXT : 0, (uint16_t)(i + 1));
	desc(0, ITAB, 16 * VQ_CHAIN_MAX, VIRTQ_DESC_F_INDIRECT, 0);
	offer(0);
	ck_assert_int_eq(vq_pop(&q, &chain), VQ_CHAIN);
	ck_assert_uint_eq(chain.n_out, VQ_CHAIN_MAX);
}
END_TEST

START_TEST(test_push_and_interrupts)
{
	desc(2, BUF, 16, 0, 0);
	/* Event index: the driver wants an interrupt at used index 0. */
	put16(AVAIL + 4 + 2 * SIZE, 0);
	offer(2);
	ck_assert_int_eq(vq_pop(&q, &chain), VQ_CHAIN);
	vq_push(&q, 2, 77);
	ck_assert_uint_eq(get16(USED + 2), 1);
	ck_assert_uint_eq(get32(USED + 4), 2);
	ck_assert_uint_eq(get32(USED + 8), 77);
	ck_assert(vq_need_interrupt(&q));
	/* used_event 5: nothing until the index passes 5. */
	put16(AVAIL + 4 + 2 * SIZE, 5);
	for (int i = 0; i < 4; i++) {
		vq_push(&q, 2, 0);
		ck_assert(!vq_need_interrupt(&q));
	}
	vq_push(&q, 2, 0);		/* index 5 -> 6 */
	ck_assert(vq_need_interrupt(&q));
	/* Without the event index, the NO_INTERRUPT flag decides. */
	q.s.event_idx = 0;
	put16(AVAIL, VIRTQ_AVAIL_F_NO_INTERRUPT);
	vq_push(&q, 2, 0);
	ck_assert(!vq_need_interrupt(&q));
	put16(AVAIL, 0);
	vq_push(&q, 2, 0);
	ck_assert(vq_need_interrupt(&q));
}
END_TEST

START_TEST(test_kick_suppression)
{
	desc(0, BUF, 16, 0, 0);
	vq_notify_disable(&q);			/* event index: a no-op */
	ck_assert(!vq_notify_enable(&q));
	ck_assert_uint_eq(get16(USED + 4 + 8 * SIZE), 0); /* avail_event */
	offer(0);
	ck_assert(vq_notify_enable(&q));	/* work arrived: go on */
	ck_assert_int_eq(vq_pop(&q, &chain), VQ_CHAIN);
	ck_assert(!vq_notify_enable(&q));
	ck_assert_uint_eq(get16(USED + 4 + 8 * SIZE), 1);
	q.s.event_idx = 0;
	vq_notify_disable(&q);
	ck_assert_uint_eq(get16(USED), VIRTQ_USED_F_NO_NOTIFY);
	ck_assert(!vq_notify_enable(&q));
	ck_assert_uint_eq(get16(USED), 0);
}
END_TEST

START_TEST(test_copy)
{
	uint8_t hdr[16], out[5] = { 1, 2, 3, 4, 5 };

	for (int i = 0; i < 16; i++)
		at(BUF)[i] = (uint8_t)i;
	desc(0, BUF, 3, VIRTQ_DESC_F_NEXT, 1);
	desc(1, BUF + 3, 13, VIRTQ_DESC_F_NEXT, 2);
	desc(2, BUF + 100, 2, VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT, 3);
	desc(3, BUF + 200, 2, VIRTQ_DESC_F_WRITE, 0);
	offer(0);
	ck_assert_int_eq(vq_pop(&q, &chain), VQ_CHAIN);
	ck_assert_uint_eq(vq_copy_from(&chain, 0, hdr, sizeof(hdr)), 16);
	for (int i = 0; i < 16; i++)
		ck_assert_uint_eq(hdr[i], i);
	ck_assert_uint_eq(vq_copy_from(&chain, 14, hdr, 8), 2);
	ck_assert_uint_eq(vq_copy_to(&chain, 1, out, 5), 3);
	ck_assert_uint_eq(at(BUF + 101)[0], 1);
	ck_assert_uint_eq(at(BUF + 200)[0], 2);
	ck_assert_uint_eq(at(BUF + 201)[0], 3);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("virtqueue");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_start_checks);
	tcase_add_test(tc, test_simple_chain);
	tcase_add_test(tc, test_indirect);
	tcase_add_test(tc, test_full_chain);
	tcase_add_test(tc, test_loops);
	tcase_add_test(tc, test_bad_indices);
	tcase_add_test(tc, test_bad_buffers);
	tcase_add_test(tc, test_bad_indirect);
	tcase_add_test(tc, test_chain_max);
	tcase_add_test(tc, test_push_and_interrupts);
	tcase_add_test(tc, test_kick_suppression);
	tcase_add_test(tc, test_copy);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
