// SPDX-License-Identifier: MIT
/* Unit tests for firmware/lib/bar_alloc. */
#include <check.h>

#include "tests/unit/unit.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "firmware/lib/bar_alloc.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)

/* The minivmm machine's windows (vmm/layout.h). */
static struct bar_windows machine(bool xen_wb)
{
	struct bar_windows w = {
		.io = { 0xc000, 0x4000 },
		.mem32 = { 0xc0000000, 0x20000000 },
		.mem64 = { 5 * GiB, 64 * GiB },
		.xen_bar_wb = xen_wb,
	};
	return w;
}

static struct bar_req mem(uint16_t bdf, uint64_t size)
{
	struct bar_req r = { .bdf = bdf, .size = size };
	return r;
}

static struct bar_req mem64(uint16_t bdf, uint64_t size)
{
	struct bar_req r = { .bdf = bdf, .size = size, .is_64 = true,
			     .prefetchable = true };
	return r;
}

static struct bar_req io(uint16_t bdf, uint64_t size)
{
	struct bar_req r = { .bdf = bdf, .size = size, .is_io = true };
	return r;
}

static struct bar_req xen(uint64_t size)
{
	struct bar_req r = { .bdf = 0x18, .index = 1, .size = size,
			     .prefetchable = true,
			     .flags = BAR_F_XEN_PLATFORM };
	return r;
}

#define ck_placed(r, a) do { \
	ck_assert_uint_eq((r).status, BAR_PLACED); \
	ck_assert_uint_eq((r).addr, (a)); \
} while (0)

static struct bar_summary run(struct bar_req *r, size_t n,
			      struct bar_windows w)
{
	struct bar_summary s;

	ck_assert_int_eq(bar_alloc(r, n, &w, &s), BAR_OK);
	ck_assert_uint_eq(s.placed + s.nofit + s.invalid, n);
	return s;
}

START_TEST(test_packing_largest_first)
{
	struct bar_req r[] = {
		mem(1, 16), mem(2, 16 * MiB), mem(3, MiB),
		mem(4, 64 * 1024), mem(5, 4096), mem(6, 2048),
	};
	struct bar_summary s = run(r, 6, machine(false));

	ck_placed(r[1], 0xc0000000);
	ck_placed(r[2], 0xc1000000);
	ck_placed(r[3], 0xc1100000);
	/* Sub-page BARs get a page each, in input order. */
	ck_placed(r[0], 0xc1110000);
	ck_placed(r[4], 0xc1111000);
	ck_placed(r[5], 0xc1112000);
	ck_assert_uint_eq(s.placed, 6);
	ck_assert(!s.mem64_high);
	ck_assert_uint_eq(s.wb_size, 0);
	ck_assert_uint_eq(s.uc_base, 0xc0000000);
	ck_assert_uint_eq(s.uc_size, 0x20000000);
}
END_TEST

START_TEST(test_io_window)
{
	struct bar_req r[] = { io(1, 0x20), io(2, 0x100), io(3, 4),
			       io(4, 0x40) };

	run(r, 4, machine(false));
	ck_placed(r[1], 0xc000);
	ck_placed(r[3], 0xc100);
	ck_placed(r[0], 0xc140);
	ck_placed(r[2], 0xc160);
}
END_TEST

START_TEST(test_natural_alignment_unaligned_window)
{
	struct bar_windows w = machine(false);
	struct bar_req r[] = { mem(1, MiB), mem(2, 16 * MiB) };

	w.mem32.base = 0xc0100000;
	w.mem32.size = 0x1ff00000;
	run(r, 2, w);
	ck_placed(r[1], 0xc1000000);
	ck_placed(r[0], 0xc2000000);
}
END_TEST

START_TEST(test_64bit_stays_low_when_it_fits)
{
	struct bar_windows w = machine(false);
	struct bar_req r[] = { mem64(1, 16 * MiB), mem(2, 16 * MiB) };
	struct bar_summary s;

	w.mem32.size = 64 * MiB;
	s = run(r, 2, w);
	ck_assert(!s.mem64_high);
	ck_placed(r[0], 0xc0000000);
	ck_placed(r[1], 0xc1000000);
}
END_TEST

START_TEST(test_64bit_moves_high_on_overflow)
{
	struct bar_windows w = machine(false);
	struct bar_req r[] = { mem64(1, 32 * MiB), mem(2, 16 * MiB),
			       mem64(3, 32 * MiB), mem64(4, 4096) };
	struct bar_summary s;

	w.mem32.size = 64 * MiB;	/* 80 MiB needed */
	s = run(r, 4, w);
	ck_assert(s.mem64_high);
	/* All 64-bit BARs move, even the small one that would fit low. */
	ck_placed(r[0], 5 * GiB);
	ck_placed(r[2], 5 * GiB + 32 * MiB);
	ck_placed(r[3], 5 * GiB + 64 * MiB);
	ck_placed(r[1], 0xc0000000);
}
END_TEST

START_TEST(test_64bit_without_high_window)
{
	struct bar_windows w = machine(false);
	struct bar_req r[] = { mem64(1, 32 * MiB), mem(2, 16 * MiB),
			       mem64(3, 32 * MiB) };
	struct bar_summary s;

	w.mem32.size = 64 * MiB;
	w.mem64.size = 0;
	s = run(r, 3, w);
	ck_assert(!s.mem64_high);
	ck_placed(r[0], 0xc0000000);
	ck_placed(r[2], 0xc2000000);
	ck_assert_uint_eq(r[1].status, BAR_NOFIT);
	ck_assert_uint_eq(r[1].addr, 0);
	ck_assert_uint_eq(s.nofit, 1);
}
END_TEST

START_TEST(test_nofit_skips_only_the_big_one)
{
	struct bar_windows w = machine(false);
	struct bar_req r[] = { mem(1, MiB), mem(2, GiB), io(3, 0x8000),
			       io(4, 0x10) };
	struct bar_summary s = run(r, 4, w);

	ck_assert_uint_eq(r[1].status, BAR_NOFIT);
	ck_assert_uint_eq(r[2].status, BAR_NOFIT);
	ck_placed(r[0], 0xc0000000);
	ck_placed(r[3], 0xc000);
	ck_assert_uint_eq(s.nofit, 2);
	ck_assert_uint_eq(s.placed, 2);
}
END_TEST

START_TEST(test_xen_wb_at_window_end)
{
	struct bar_req r[] = { mem(1, MiB), xen(16 * MiB), io(0x18, 0x100),
			       mem(2, 256 * MiB) };
	struct bar_summary s = run(r, 4, machine(true));

	ck_placed(r[1], 0xdf000000);
	ck_placed(r[3], 0xc0000000);
	ck_placed(r[0], 0xd0000000);
	ck_placed(r[2], 0xc000);
	ck_assert_uint_eq(s.uc_base, 0xc0000000);
	ck_assert_uint_eq(s.uc_size, 0x1f000000);
	ck_assert_uint_eq(s.wb_base, 0xdf000000);
	ck_assert_uint_eq(s.wb_size, 16 * MiB);
}
END_TEST

/* hvmloader's default hole: the BAR lands at 0xFB000000 (platform.md §2). */
START_TEST(test_xen_wb_hvmloader_hole)
{
	struct bar_windows w = machine(true);
	struct bar_req r[] = { xen(16 * MiB), mem(1, 32 * MiB) };
	struct bar_summary s;

	w.mem32.base = 0xf0000000;
	w.mem32.size = 0x0c000000;
	s = run(r, 2, w);
	ck_placed(r[0], 0xfb000000);
	ck_placed(r[1], 0xf0000000);
	ck_assert_uint_eq(s.uc_base, 0xf0000000);
	ck_assert_uint_eq(s.uc_size, 0x0b000000);
	ck_assert_uint_eq(s.wb_base, 0xfb000000);
	ck_assert_uint_eq(s.wb_size, 16 * MiB);
}
END_TEST

START_TEST(test_xen_uc_is_normal_allocation)
{
	struct bar_req r[] = { mem(1, MiB), xen(16 * MiB) };
	struct bar_summary s = run(r, 2, machine(false));

	ck_placed(r[1], 0xc0000000);
	ck_placed(r[0], 0xc1000000);
	ck_assert_uint_eq(s.wb_size, 0);
	ck_assert_uint_eq(s.uc_size, 0x20000000);
}
END_TEST

START_TEST(test_xen_unaligned_window_end)
{
	struct bar_windows w = machine(true);
	struct bar_req r[] = { xen(16 * MiB) };
	struct bar_summary s;

	w.mem32.size = 0x1f800000;	/* ends at 0xdf800000 */
	s = run(r, 1, w);
	ck_placed(r[0], 0xde000000);
	ck_assert_uint_eq(s.wb_base, 0xde000000);
	ck_assert_uint_eq(s.wb_size, 0x01800000);
	ck_assert_uint_eq(s.uc_size, 0x1e000000);
}
END_TEST

START_TEST(test_xen_flag_ignored_on_io_and_64bit)
{
	struct bar_req r[] = { io(0x18, 0x100), mem64(0x18, 16 * MiB) };
	struct bar_summary s;

	r[0].flags = r[1].flags = BAR_F_XEN_PLATFORM;
	s = run(r, 2, machine(true));
	ck_placed(r[0], 0xc000);
	ck_placed(r[1], 0xc0000000);
	ck_assert_uint_eq(s.wb_size, 0);
}
END_TEST

START_TEST(test_xen_does_not_fit)
{
	struct bar_windows w = machine(true);
	struct bar_req r[] = { xen(16 * MiB), mem(1, MiB) };
	struct bar_summary s;

	w.mem32.size = 8 * MiB;
	s = run(r, 2, w);
	ck_assert_uint_eq(r[0].status, BAR_NOFIT);
	ck_placed(r[1], 0xc0000000);
	ck_assert_uint_eq(s.wb_size, 0);
	ck_assert_uint_eq(s.uc_size, 8 * MiB);
}
END_TEST

START_TEST(test_xen_shrinks_the_window)
{
	struct bar_windows w = machine(true);
	struct bar_req r[] = { xen(16 * MiB), mem(1, 16 * MiB), mem(2, 4096) };
	struct bar_summary s;

	w.mem32.size = 32 * MiB;
	s = run(r, 3, w);
	ck_placed(r[0], 0xc1000000);
	ck_placed(r[1], 0xc0000000);
	ck_assert_uint_eq(r[2].status, BAR_NOFIT);
	ck_assert_uint_eq(s.uc_size, 16 * MiB);
}
END_TEST

START_TEST(test_hostile_requests)
{
	struct bar_req r[] = {
		mem(1, 0), mem(2, 3), mem(3, 0x3000), io(4, 2),
		io(5, 0x20000), io(6, 0x10), mem(7, 8), mem(8, 4 * GiB),
		mem64(9, 1ull << 63), mem(10, 4096), mem64(11, UINT64_MAX),
	};
	struct bar_summary s;

	r[5].is_64 = true;
	s = run(r, 11, machine(true));
	for (int i = 0; i < 8; i++)
		ck_assert_msg(r[i].status == BAR_INVALID, "req %d", i);
	ck_assert_uint_eq(r[10].status, BAR_INVALID);
	ck_assert_uint_eq(r[8].status, BAR_NOFIT);
	ck_placed(r[9], 0xc0000000);
	ck_assert_uint_eq(s.invalid, 9);
	ck_assert_uint_eq(s.nofit, 1);
	ck_assert_uint_eq(s.placed, 1);
	ck_assert_str_eq(bar_status_str(r[0].status), "invalid");
	ck_assert_str_eq(bar_status_str(r[8].status), "no room");
	ck_assert_str_eq(bar_status_str(r[9].status), "placed");
}
END_TEST

START_TEST(test_bad_windows_and_args)
{
	struct bar_req r[] = { mem(1, 4096) };
	struct bar_windows w;
	struct bar_summary s;

	r[0].status = 0x77;
	w = machine(false);
	w.io.size = 0x5000;		/* 0xc000 + 0x5000 > 64K */
	ck_assert_int_eq(bar_alloc(r, 1, &w, &s), BAR_EINVAL);
	w = machine(false);
	w.mem32.size = 0x40000001;	/* past 4 GiB */
	ck_assert_int_eq(bar_alloc(r, 1, &w, &s), BAR_EINVAL);
	w = machine(false);
	w.mem64.base = 0x80000000;	/* below 4 GiB */
	ck_assert_int_eq(bar_alloc(r, 1, &w, &s), BAR_EINVAL);
	w = machine(false);
	w.mem64.base = UINT64_MAX - 100;
	ck_assert_int_eq(bar_alloc(r, 1, &w, &s), BAR_EINVAL);
	ck_assert_uint_eq(r[0].status, 0x77);	/* untouched */
	w = machine(false);
	ck_assert_int_eq(bar_alloc(NULL, 1, &w, &s), BAR_EINVAL);
	ck_assert_int_eq(bar_alloc(r, 1, NULL, &s), BAR_EINVAL);
	ck_assert_int_eq(bar_alloc(r, 1, &w, NULL), BAR_EINVAL);
	ck_assert_int_eq(bar_alloc(NULL, 0, &w, &s), BAR_OK);
	ck_assert_uint_eq(s.placed, 0);
	/* An empty window is legal: everything in it fails to fit. */
	w.io.size = 0;
	r[0] = io(1, 4);
	run(r, 1, w);
	ck_assert_uint_eq(r[0].status, BAR_NOFIT);
}
END_TEST

/* --- randomized: fixed seed, independent checks --- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint64_t rnd_below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static bool want_valid(const struct bar_req *r)
{
	uint64_t s = r->size;

	if (!s || (s & (s - 1)))
		return false;
	if (r->is_io)
		return !r->is_64 && s >= 4 && s <= 0x10000;
	return s >= 16 && (r->is_64 || s <= 2 * GiB);
}

static uint64_t footprint(const struct bar_req *r)
{
	return !r->is_io && r->size < 4096 ? 4096 : r->size;
}

static struct bar_req random_req(void)
{
	struct bar_req r = { .bdf = rnd() & 0xffff };
	unsigned int kind = rnd_below(16);

	r.is_io = kind < 4;
	r.is_64 = kind >= 10 || kind == 0;	/* sometimes I/O + 64: bad */
	r.prefetchable = rnd() & 1;
	r.flags = rnd_below(8) == 0 ? BAR_F_XEN_PLATFORM : 0;
	if (r.is_io)
		r.size = 1ull << rnd_below(10);
	else
		r.size = 1ull << (4 + rnd_below(r.is_64 ? 34 : 26));
	if (rnd_below(20) == 0)
		r.size = rnd();			/* hostile */
	if (rnd_below(40) == 0)
		r.size = 0;
	return r;
}

static struct bar_windows random_windows(bool aligned)
{
	struct bar_windows w = { .xen_bar_wb = rnd() & 1 };

	w.io.base = aligned ? 0xc000 : 0x1000 + (rnd_below(0x8000) & ~3ull);
	w.io.size = rnd_below(0x10000 - w.io.base + 1);
	w.mem32.base = aligned ? 0x80000000 : (rnd_below(0x100000) << 12);
	w.mem32.size = rnd_below((1ull << 32) - w.mem32.base + 1) & ~0xfffull;
	if (rnd() & 3) {
		w.mem64.base = aligned ? 64 * GiB : (4 * GiB + rnd_below(GiB));
		w.mem64.size = rnd_below(128 * GiB);
	}
	return w;
}

static bool inside(uint64_t a, uint64_t len, uint64_t base, uint64_t size)
{
	return a >= base && len <= size && a - base <= size - len;
}

static void check_one(const struct bar_req *r, size_t n,
		      const struct bar_windows *w, const struct bar_summary *s)
{
	unsigned int placed = 0;

	for (size_t i = 0; i < n; i++) {
		const struct bar_req *a = &r[i];
		uint64_t fp = footprint(a);
		bool xen_top = w->xen_bar_wb && !a->is_io && !a->is_64 &&
			       (a->flags & BAR_F_XEN_PLATFORM);

		ck_assert_msg((a->status == BAR_INVALID) == !want_valid(a),
			      "req %zu size %#llx status %u", i,
			      (unsigned long long)a->size, a->status);
		ck_assert(a->status == BAR_PLACED || a->status == BAR_NOFIT ||
			  a->status == BAR_INVALID);
		if (a->status != BAR_PLACED)
			continue;
		placed++;
		ck_assert_msg(a->addr % fp == 0, "misaligned %#llx",
			      (unsigned long long)a->addr);
		if (a->is_io)
			ck_assert(inside(a->addr, fp, w->io.base, w->io.size));
		else if (xen_top)
			ck_assert(inside(a->addr, fp, s->wb_base, s->wb_size));
		else if (a->is_64 && s->mem64_high)
			ck_assert(inside(a->addr, fp, w->mem64.base,
					 w->mem64.size));
		else
			ck_assert(inside(a->addr, fp, s->uc_base, s->uc_size));
		for (size_t j = 0; j < i; j++) {
			const struct bar_req *b = &r[j];

			if (b->status != BAR_PLACED || b->is_io != a->is_io)
				continue;
			/* Not ck_assert: a syscall per success. */
			if (a->addr + fp > b->addr &&
			    b->addr + footprint(b) > a->addr)
				ck_abort_msg("overlap %zu/%zu", i, j);
		}
	}
	ck_assert_uint_eq(placed, s->placed);
	ck_assert_uint_eq(s->uc_base, w->mem32.base);
	ck_assert_uint_eq(s->uc_size + s->wb_size, w->mem32.size);
}

START_TEST(test_random_never_overlaps)
{
	struct bar_req r[64];

	rng_state = 0x9e3779b97f4a7c15ull;
	for (int iter = 0; iter < 3000; iter++) {
		struct bar_windows w = random_windows(false);
		size_t n = rnd_below(65);
		struct bar_summary s;

		for (size_t i = 0; i < n; i++)
			r[i] = random_req();
		ck_assert_int_eq(bar_alloc(r, n, &w, &s), BAR_OK);
		check_one(r, n, &w, &s);
	}
}
END_TEST

/* With a window base aligned to every BAR, largest-first packing wastes
 * nothing: whatever sums to at most the window size all fits. */
START_TEST(test_random_aligned_packing_is_tight)
{
	struct bar_req r[32];

	rng_state = 12345;
	for (int iter = 0; iter < 2000; iter++) {
		struct bar_windows w = random_windows(true);
		uint64_t sum = 0;
		size_t n = rnd_below(33);
		struct bar_summary s;

		w.xen_bar_wb = false;
		w.mem64.size = 0;
		for (size_t i = 0; i < n; i++) {
			r[i] = mem(i, 1ull << (4 + rnd_below(24)));
			sum += footprint(&r[i]);
		}
		ck_assert_int_eq(bar_alloc(r, n, &w, &s), BAR_OK);
		check_one(r, n, &w, &s);
		if (sum <= w.mem32.size)
			ck_assert_uint_eq(s.nofit, 0);
		else
			ck_assert_uint_gt(s.nofit, 0);
	}
}
END_TEST

static Suite *bar_alloc_suite(void)
{
	Suite *s = suite_create("bar_alloc");
	TCase *core = tcase_create("core");
	TCase *limits = tcase_create("limits");

	tcase_add_test(core, test_packing_largest_first);
	tcase_add_test(core, test_io_window);
	tcase_add_test(core, test_natural_alignment_unaligned_window);
	tcase_add_test(core, test_64bit_stays_low_when_it_fits);
	tcase_add_test(core, test_64bit_moves_high_on_overflow);
	tcase_add_test(core, test_64bit_without_high_window);
	tcase_add_test(core, test_xen_wb_at_window_end);
	tcase_add_test(core, test_xen_wb_hvmloader_hole);
	tcase_add_test(core, test_xen_uc_is_normal_allocation);
	tcase_add_test(core, test_xen_unaligned_window_end);
	tcase_add_test(core, test_xen_flag_ignored_on_io_and_64bit);
	tcase_add_test(limits, test_nofit_skips_only_the_big_one);
	tcase_add_test(limits, test_xen_does_not_fit);
	tcase_add_test(limits, test_xen_shrinks_the_window);
	tcase_add_test(limits, test_hostile_requests);
	tcase_add_test(limits, test_bad_windows_and_args);
	tcase_add_test(limits, test_random_never_overlaps);
	tcase_add_test(limits, test_random_aligned_packing_is_tight);
	tcase_set_timeout(limits, 60);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	return s;
}

int main(void)
{
	return unit_run(bar_alloc_suite());
}
