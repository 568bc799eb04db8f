// SPDX-License-Identifier: MIT
/* The range tables: registration rules, dispatch with offsets and
 * truncation, unclaimed accesses, and handlers that change the bus. */
#include "tests/unit/unit.h"
#include "vmm/bus.h"

#include <pthread.h>

/* A device that records its last access. */
struct dev {
	int reads, writes;
	uint64_t off;
	uint32_t len;
	uint8_t wdata[8];
	uint8_t fill;		/* byte a read returns */
};

static void dev_read(void *opaque, uint64_t off, uint8_t *data, uint32_t len)
{
	struct dev *d = opaque;

	d->reads++;
	d->off = off;
	d->len = len;
	memset(data, d->fill, len);
}

static void dev_write(void *opaque, uint64_t off, const uint8_t *data,
		      uint32_t len)
{
	struct dev *d = opaque;

	d->writes++;
	d->off = off;
	d->len = len;
	memcpy(d->wdata, data, len);
}

static const struct bus_ops dev_ops = { .read = dev_read, .write = dev_write };
static const struct bus_ops null_ops = { 0 };

static struct bus bus;

static void setup(void)
{
	bus_init(&bus, "test", 0x10000);
}

static void teardown(void)
{
	bus_destroy(&bus);
}

static int reg(uint64_t base, uint64_t len, struct dev *d)
{
	return bus_register(&bus, base, len, &dev_ops, d, "dev");
}

static bool rd(uint64_t addr, uint8_t *data, uint32_t len)
{
	return bus_access(&bus, addr, data, len, false);
}

static bool wr(uint64_t addr, const uint8_t *data, uint32_t len)
{
	uint8_t copy[8];

	memcpy(copy, data, len);
	return bus_access(&bus, addr, copy, len, true);
}

START_TEST(register_and_dispatch)
{
	struct dev d = { .fill = 0x42 };
	uint8_t data[4] = { 0 };

	ck_assert_int_eq(bus_register(&bus, 0x100, 8, &dev_ops, &d, "d"), 0);
	ck_assert_int_eq(bus.n, 1);
	ck_assert(rd(0x104, data, 2));
	ck_assert_int_eq(d.reads, 1);
	ck_assert_uint_eq(d.off, 4);	/* offset, not the address */
	ck_assert_uint_eq(d.len, 2);
	ck_assert_uint_eq(data[0], 0x42);
	ck_assert_uint_eq(data[1], 0x42);
	ck_assert_uint_eq(data[2], 0);

	ck_assert(wr(0x100, (const uint8_t[]){ 1, 2, 3, 4 }, 4));
	ck_assert_int_eq(d.writes, 1);
	ck_assert_uint_eq(d.off, 0);
	ck_assert_uint_eq(d.len, 4);
	ck_assert_mem_eq(d.wdata, ((const uint8_t[]){ 1, 2, 3, 4 }), 4);
	ck_assert_uint_eq(bus.ranges[0].reads, 1);
	ck_assert_uint_eq(bus.ranges[0].writes, 1);
	ck_assert(wr(0x107, (const uint8_t[]){ 9 }, 1));
	ck_assert_uint_eq(d.off, 7);
}
END_TEST

START_TEST(dispatch_picks_the_right_range)
{
	struct dev a = { .fill = 0xa }, b = { .fill = 0xb };
	uint8_t v;

	ck_assert_int_eq(bus_register(&bus, 0x20, 0x10, &dev_ops, &b, "b"), 0);
	ck_assert_int_eq(bus_register(&bus, 0x10, 0x10, &dev_ops, &a, "a"), 0);
	ck_assert(rd(0x1f, &v, 1));
	ck_assert_uint_eq(v, 0xa);
	ck_assert_uint_eq(a.off, 0xf);
	ck_assert(rd(0x20, &v, 1));
	ck_assert_uint_eq(v, 0xb);
	ck_assert_uint_eq(b.off, 0);
	ck_assert_int_eq(a.reads, 1);
	ck_assert_int_eq(b.reads, 1);
}
END_TEST

START_TEST(unclaimed)
{
	struct dev d = { 0 };
	uint8_t data[8];

	ck_assert_int_eq(bus_register(&bus, 0x100, 4, &dev_ops, &d, "d"), 0);
	memset(data, 0x12, sizeof(data));
	ck_assert(!rd(0xff, data, 4));
	ck_assert_mem_eq(data, "\xff\xff\xff\xff\x12", 5);
	ck_assert(!rd(0x104, data, 8));
	ck_assert_mem_eq(data, "\xff\xff\xff\xff\xff\xff\xff\xff", 8);
	ck_assert(!rd(0, data, 1));
	ck_assert_uint_eq(bus.unclaimed_reads, 3);
	ck_assert(!wr(0x200, data, 2));
	ck_assert(!wr(0xffff, data, 1));
	ck_assert_uint_eq(bus.unclaimed_writes, 2);
	ck_assert_int_eq(d.reads + d.writes, 0);
	/* Addresses at or past the limit are simply unclaimed. */
	ck_assert(!rd(0x10000, data, 4));
	ck_assert(!rd(UINT64_MAX, data, 8));
	ck_assert_uint_eq(bus.unclaimed_reads, 5);
}
END_TEST

START_TEST(truncated_at_range_end)
{
	struct dev d = { .fill = 0x77 };
	uint8_t data[8];

	ck_assert_int_eq(bus_register(&bus, 0x100, 4, &dev_ops, &d, "d"), 0);
	memset(data, 0xaa, sizeof(data));
	ck_assert(rd(0x102, data, 4));
	ck_assert_uint_eq(d.off, 2);
	ck_assert_uint_eq(d.len, 2);
	/* The device filled 2 bytes; the bus zeroed the rest. */
	ck_assert_mem_eq(data, "\x77\x77\x00\x00\xaa", 5);
	ck_assert(rd(0x103, data, 8));
	ck_assert_uint_eq(d.len, 1);
	ck_assert(wr(0x103, (const uint8_t[]){ 1, 2, 3, 4, 5, 6, 7, 8 }, 8));
	ck_assert_uint_eq(d.off, 3);
	ck_assert_uint_eq(d.len, 1);
	ck_assert_uint_eq(d.wdata[0], 1);
}
END_TEST

START_TEST(missing_handlers)
{
	uint8_t data[4];

	ck_assert_int_eq(bus_register(&bus, 0x10, 4, &null_ops, NULL, "n"), 0);
	memset(data, 0x55, sizeof(data));
	ck_assert(rd(0x10, data, 4));
	ck_assert_mem_eq(data, "\0\0\0\0", 4);
	ck_assert(wr(0x10, data, 4));
	ck_assert_uint_eq(bus.ranges[0].reads, 1);
	ck_assert_uint_eq(bus.ranges[0].writes, 1);
}
END_TEST

START_TEST(rejects_overlap)
{
	struct dev a, b;

	ck_assert_int_eq(reg(0x100, 0x10, &a), 0);
	ck_assert_int_eq(reg(0x100, 0x10, &b), -1);
	ck_assert_int_eq(reg(0xf8, 0x10, &b), -1);
	ck_assert_int_eq(reg(0x10f, 1, &b), -1);
	ck_assert_int_eq(reg(0x104, 2, &b), -1);
	ck_assert_int_eq(reg(0x0, 0x1000, &b), -1);
	ck_assert_int_eq(bus.n, 1);
	/* Touching is not overlapping. */
	ck_assert_int_eq(reg(0x110, 1, &b), 0);
	ck_assert_int_eq(reg(0xff, 1, &b), 0);
	ck_assert_int_eq(bus.n, 3);
}
END_TEST

START_TEST(rejects_bad_ranges)
{
	struct bus big;
	struct dev d;

	ck_assert_int_eq(bus_register(&bus, 0x100, 0, &dev_ops, &d, "z"), -1);
	ck_assert_int_eq(bus_register(&bus, 0xffff, 2, &dev_ops, &d, "l"), -1);
	ck_assert_int_eq(bus_register(&bus, 0x10000, 1, &dev_ops, &d, "l"), -1);
	ck_assert_int_eq(bus_register(&bus, 0, 0x10001, &dev_ops, &d, "l"), -1);
	ck_assert_int_eq(bus.n, 0);
	ck_assert_int_eq(bus_register(&bus, 0xffff, 1, &dev_ops, &d, "l"), 0);

	bus_init(&big, "mmio", UINT64_MAX);
	ck_assert_int_eq(bus_register(&big, UINT64_MAX, 2, &dev_ops, &d, "o"),
			 -1);
	ck_assert_int_eq(bus_register(&big, 0x1000, UINT64_MAX, &dev_ops, &d,
				      "o"), -1);
	/* Ends at 2^64: past the last address below the limit. */
	ck_assert_int_eq(bus_register(&big, UINT64_MAX - 0xff, 0x100, &dev_ops,
				      &d, "o"), -1);
	ck_assert_int_eq(bus_register(&big, UINT64_MAX - 0x100, 0x100,
				      &dev_ops, &d, "o"), 0);
	ck_assert_int_eq(big.n, 1);
	bus_destroy(&big);
}
END_TEST

START_TEST(rejects_when_full)
{
	struct dev d;

	for (int i = 0; i < BUS_MAX_RANGES; i++)
		ck_assert_int_eq(bus_register(&bus, (uint64_t)i * 4, 4,
					      &dev_ops, &d, "f"), 0);
	ck_assert_int_eq(bus_register(&bus, 0x8000, 4, &dev_ops, &d, "f"), -1);
	ck_assert_int_eq(bus.n, BUS_MAX_RANGES);
}
END_TEST

static void collect(const struct bus_range *r, void *ctx)
{
	uint64_t **p = ctx;

	*(*p)++ = r->base;
}

START_TEST(kept_sorted)
{
	static const uint64_t bases[] = { 0x500, 0x20, 0x3000, 0x100, 0x0,
					  0xff00, 0x40 };
	uint64_t seen[8], *p = seen;
	struct dev d;

	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
		ck_assert_int_eq(bus_register(&bus, bases[i], 0x10, &dev_ops,
					      &d, "s"), 0);
	bus_for_each(&bus, collect, &p);
	ck_assert_int_eq(p - seen, 7);
	for (int i = 1; i < 7; i++)
		ck_assert_msg(seen[i - 1] < seen[i], "not sorted at %d", i);
}
END_TEST

START_TEST(unregister)
{
	struct dev a = { .fill = 1 }, b = { .fill = 2 };
	uint8_t v;

	ck_assert_int_eq(bus_register(&bus, 0x10, 4, &dev_ops, &a, "a"), 0);
	ck_assert_int_eq(bus_register(&bus, 0x20, 4, &dev_ops, &b, "b"), 0);
	ck_assert_int_eq(bus_unregister(&bus, 0x10, &b), -1);	/* not owner */
	ck_assert_int_eq(bus_unregister(&bus, 0x11, &a), -1);	/* not a base */
	ck_assert_int_eq(bus_unregister(&bus, 0x10, &a), 0);
	ck_assert_int_eq(bus_unregister(&bus, 0x10, &a), -1);
	ck_assert_int_eq(bus.n, 1);
	ck_assert(!rd(0x10, &v, 1));
	ck_assert(rd(0x20, &v, 1));
	ck_assert_uint_eq(v, 2);
	/* The space is free again. */
	ck_assert_int_eq(bus_register(&bus, 0x0, 0x20, &dev_ops, &a, "a"), 0);
}
END_TEST

START_TEST(move)
{
	struct dev a = { .fill = 1 }, b = { .fill = 2 };
	uint8_t v;

	ck_assert_int_eq(bus_register(&bus, 0x100, 0x10, &dev_ops, &a, "a"), 0);
	ck_assert_int_eq(bus_register(&bus, 0x200, 0x10, &dev_ops, &b, "b"), 0);
	ck_assert_int_eq(bus_move(&bus, 0x100, 0x300, &a), 0);
	ck_assert(!rd(0x100, &v, 1));
	ck_assert(rd(0x305, &v, 1));
	ck_assert_uint_eq(v, 1);
	ck_assert_uint_eq(a.off, 5);
	/* Sorted again: a is now after b. */
	ck_assert_uint_eq(bus.ranges[0].base, 0x200);
	ck_assert_uint_eq(bus.ranges[1].base, 0x300);
	/* Sliding over its own old place is fine. */
	ck_assert_int_eq(bus_move(&bus, 0x300, 0x308, &a), 0);
	ck_assert(rd(0x317, &v, 1));
	ck_assert_uint_eq(v, 1);
}
END_TEST

START_TEST(move_failures_keep_range)
{
	struct dev a = { .fill = 1 }, b = { .fill = 2 };
	uint8_t v;

	ck_assert_int_eq(bus_register(&bus, 0x100, 0x10, &dev_ops, &a, "a"), 0);
	ck_assert_int_eq(bus_register(&bus, 0x200, 0x10, &dev_ops, &b, "b"), 0);
	ck_assert_int_eq(bus_move(&bus, 0x100, 0x208, &a), -1);	/* overlap */
	ck_assert_int_eq(bus_move(&bus, 0x100, 0x1f1, &a), -1);
	ck_assert_int_eq(bus_move(&bus, 0x100, 0xfff8, &a), -1); /* limit */
	ck_assert_int_eq(bus_move(&bus, 0x100, UINT64_MAX - 4, &a), -1);
	ck_assert_int_eq(bus_move(&bus, 0x100, 0x400, &b), -1);	/* owner */
	ck_assert_int_eq(bus_move(&bus, 0x104, 0x400, &a), -1);	/* not base */
	ck_assert_int_eq(bus.n, 2);
	ck_assert(rd(0x100, &v, 1));
	ck_assert_uint_eq(v, 1);
	ck_assert(rd(0x20f, &v, 1));
	ck_assert_uint_eq(v, 2);
}
END_TEST

/* A device whose write moves itself and adds a neighbour, like a PCI BAR
 * write: a handler may change the bus that is dispatching to it (a
 * deadlock here shows as a test timeout). */
struct mover {
	struct dev neighbour;
	uint64_t base;
	int moved;
};

static void mover_write(void *opaque, uint64_t off, const uint8_t *data,
			uint32_t len)
{
	struct mover *m = opaque;
	uint64_t nb = (uint64_t)data[0] << 8;

	(void)off;
	(void)len;
	if (bus_move(&bus, m->base, nb, m) == 0) {
		m->base = nb;
		m->moved++;
	}
	bus_register(&bus, nb + 0x10, 4, &dev_ops, &m->neighbour, "nb");
}

static void mover_read(void *opaque, uint64_t off, uint8_t *data, uint32_t len)
{
	struct mover *m = opaque;

	(void)off;
	(void)len;
	bus_unregister(&bus, m->base + 0x10, &m->neighbour);
	data[0] = (uint8_t)bus.n;
}

static const struct bus_ops mover_ops = { .read = mover_read,
					  .write = mover_write };

START_TEST(handler_changes_bus)
{
	struct mover m = { .base = 0x100, .neighbour = { .fill = 0x33 } };
	uint8_t v;

	ck_assert_int_eq(bus_register(&bus, 0x100, 4, &mover_ops, &m, "m"), 0);
	ck_assert(wr(0x100, (const uint8_t[]){ 0x20 }, 1));
	ck_assert_int_eq(m.moved, 1);
	ck_assert_uint_eq(m.base, 0x2000);
	ck_assert(!rd(0x100, &v, 1));
	ck_assert(rd(0x2010, &v, 1));
	ck_assert_uint_eq(v, 0x33);
	ck_assert(rd(0x2000, &v, 1));
	ck_assert_uint_eq(v, 1);	/* the neighbour is gone again */
	ck_assert(!rd(0x2010, &v, 1));
}
END_TEST

/* Accesses from one thread while another adds and removes a range: every
 * access must be counted exactly once on the stable range. */
static void *churn(void *arg)
{
	struct dev *d = arg;

	for (int i = 0; i < 20000; i++) {
		bus_register(&bus, 0x40, 4, &dev_ops, d, "churn");
		bus_unregister(&bus, 0x40, d);
	}
	return NULL;
}

START_TEST(concurrent_access)
{
	struct dev stable = { .fill = 9 }, other = { 0 };
	pthread_t t;
	uint8_t v;
	int claimed = 0;

	ck_assert_int_eq(reg(0x80, 4, &stable), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, churn, &other), 0);
	for (int i = 0; i < 20000; i++)
		claimed += rd(0x80, &v, 1) && v == 9;
	pthread_join(t, NULL);
	ck_assert_int_eq(claimed, 20000);
	ck_assert_int_eq(stable.reads, 20000);
	ck_assert_uint_eq(bus.ranges[0].reads, 20000);
	ck_assert_int_eq(bus.n, 1);
}
END_TEST

static Suite *bus_suite(void)
{
	Suite *s = suite_create("bus");
	TCase *tc = tcase_create("dispatch");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, register_and_dispatch);
	tcase_add_test(tc, dispatch_picks_the_right_range);
	tcase_add_test(tc, unclaimed);
	tcase_add_test(tc, truncated_at_range_end);
	tcase_add_test(tc, missing_handlers);
	tcase_add_test(tc, handler_changes_bus);
	tcase_add_test(tc, concurrent_access);
	suite_add_tcase(s, tc);

	tc = tcase_create("table");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, rejects_overlap);
	tcase_add_test(tc, rejects_bad_ranges);
	tcase_add_test(tc, rejects_when_full);
	tcase_add_test(tc, kept_sorted);
	tcase_add_test(tc, unregister);
	tcase_add_test(tc, move);
	tcase_add_test(tc, move_failures_keep_range);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(bus_suite());
}
