// SPDX-License-Identifier: MIT
/* Unit tests for firmware/lib/mtrr_layout (and its use with bar_alloc). */
#include <check.h>

#include "tests/unit/unit.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "firmware/lib/bar_alloc.h"
#include "firmware/lib/mtrr_layout.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)
#define DC  (-1)		/* don't care */
#define UC  MTRR_TYPE_UC
#define WB  MTRR_TYPE_WB

/* hvmloader defaults: hole [0xF0000000, 0xFC000000), 36 phys bits, 8 MTRRs. */
static struct mtrr_config hvmloader(void)
{
	struct mtrr_config c = {
		.low_ram_end = 0xf0000000,
		.high_ram_end = 4 * GiB + 256 * MiB,
		.hole_start = 0xf0000000,
		.hole_end = 0xfc000000,
		.phys_bits = 36,
		.vcnt = 8,
	};
	return c;
}

/* minivmm: 256 MiB RAM, PCI window + 256-bus ECAM, 64 GiB window at 4G. */
static struct mtrr_config machine(void)
{
	struct mtrr_config c = {
		.low_ram_end = 256 * MiB,
		.hole_start = 0xc0000000,
		.hole_end = 0xf0000000,
		.pci64 = { 4 * GiB, 64 * GiB },
		.phys_bits = 40,
		.vcnt = 8,
	};
	return c;
}

static void add_wb(struct mtrr_config *c, uint64_t base, uint64_t size)
{
	c->wb[c->nr_wb].base = base;
	c->wb[c->nr_wb].size = size;
	c->nr_wb++;
}

/* The intended type, written from the policy, not from the solver. */
static int want(const struct mtrr_config *c, uint64_t a)
{
	if (a < MiB)
		return a >= 0xa0000 && a < 0xc0000 ? UC : WB;
	if (a < c->low_ram_end)
		return WB;
	if (a >= c->hole_start && a < c->hole_end) {
		for (unsigned int i = 0; i < c->nr_wb; i++)
			if (a - c->wb[i].base < c->wb[i].size)
				return WB;
		return UC;
	}
	if (a >= c->hole_end && a < 4 * GiB)
		return WB;
	if (a >= 4 * GiB && a < c->high_ram_end)
		return WB;
	if (c->pci64.size && a - c->pci64.base < c->pci64.size)
		return c->pci64_uc ? UC : WB;
	return DC;
}

static void check_addr(const struct mtrr_config *c, const struct mtrr_layout *l,
		       uint64_t a)
{
	int w;
	uint8_t got;

	if (a >> c->phys_bits)
		return;
	w = want(c, a);
	got = mtrr_layout_lookup(l, a);
	/* Not ck_assert: it makes a syscall per success (mark point). */
	if ((got != UC && got != WB) || (w != DC && got != w))
		ck_abort_msg("%#llx: got type %u, want %d",
			     (unsigned long long)a, got, w);
}

static void check_around(const struct mtrr_config *c,
			 const struct mtrr_layout *l, uint64_t b)
{
	static const int64_t d[] = { -4096, -1, 0, 1, 4095, 4096 };

	for (unsigned int i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		if (b + d[i] < (1ull << c->phys_bits))
			check_addr(c, l, b + d[i]);
}

/* Register-level sanity of every variable range. */
static void check_regs(const struct mtrr_layout *l)
{
	uint64_t phys = (1ull << l->phys_bits) - 1;

	ck_assert(l->def_type == 0xc06 || l->def_type == 0xc00);
	ck_assert_uint_le(l->nr_var, MTRR_MAX_VAR);
	for (unsigned int i = 0; i < l->nr_var; i++) {
		uint64_t m = l->var[i].mask, b = l->var[i].base;
		uint64_t size = ((~m & phys) | 0xfff) + 1;

		ck_assert(m & MTRR_PHYSMASK_V);
		ck_assert_uint_eq(m & ~phys, 0);
		ck_assert_uint_eq(m & 0x7ff, 0);
		/* Contiguous mask: size is a power of two below 2^phys. */
		ck_assert_uint_eq(size & (size - 1), 0);
		ck_assert_uint_lt(size, 1ull << l->phys_bits);
		ck_assert_uint_eq((b & ~0xfffull) & (size - 1), 0);
		ck_assert_uint_eq(b & 0xf00, 0);
		ck_assert((b & 0xff) == UC || (b & 0xff) == WB);
		ck_assert_uint_eq(b & ~phys, 0);
	}
}

/* Boundaries of the config and of every block, plus seeded samples. */
static void check_layout(const struct mtrr_config *c,
			 const struct mtrr_layout *l, bool every_page)
{
	uint64_t top = 1ull << c->phys_bits, x = 88172645463325252ull;
	uint64_t b[] = { MiB, c->low_ram_end, c->hole_start, c->hole_end,
			 4 * GiB, c->high_ram_end, c->pci64.base,
			 c->pci64.base + c->pci64.size, top - 4096 };

	check_regs(l);
	for (unsigned int i = 0; i < sizeof(b) / sizeof(b[0]); i++)
		check_around(c, l, b[i]);
	for (unsigned int i = 0; i < c->nr_wb; i++) {
		check_around(c, l, c->wb[i].base);
		check_around(c, l, c->wb[i].base + c->wb[i].size);
	}
	for (unsigned int i = 0; i < l->nr_var; i++) {
		uint64_t base = l->var[i].base & ~0xfffull;
		uint64_t size = ((~l->var[i].mask & (top - 1)) | 0xfff) + 1;

		check_around(c, l, base);
		check_around(c, l, base + size);
	}
	for (uint64_t a = 0; a < MiB; a += 4096)
		check_addr(c, l, a);
	if (every_page)
		for (uint64_t a = MiB; a < 4 * GiB; a += 4096)
			check_addr(c, l, a);
	for (int i = 0; i < 20000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		check_addr(c, l, (x % top) & ~0xfffull);
		check_addr(c, l, x % (8 * GiB));
	}
}

static struct mtrr_layout build_ok(const struct mtrr_config *c)
{
	struct mtrr_layout l;
	int rc = mtrr_layout_build(c, &l);

	ck_assert_msg(rc == MTRR_OK, "rc %d (%s), needed %u", rc,
		      mtrr_strerror(rc), l.nr_needed);
	ck_assert_uint_eq(l.nr_needed, l.nr_var);
	return l;
}

static uint64_t mask_of(uint64_t size, unsigned int bits)
{
	return (((1ull << bits) - 1) & ~(size - 1)) | 0x800;
}

#define ck_var(l, i, b, size, type, bits) do { \
	ck_assert_uint_eq((l).var[i].base, (b) | (type)); \
	ck_assert_uint_eq((l).var[i].mask, mask_of(size, bits)); \
} while (0)

START_TEST(test_hvmloader_default)
{
	struct mtrr_config c = hvmloader();
	struct mtrr_layout l = build_ok(&c);

	ck_assert_uint_eq(l.def_type, 0xc06);
	ck_assert_uint_eq(l.nr_var, 2);
	ck_var(l, 0, 0xf0000000, 128 * MiB, UC, 36);
	ck_var(l, 1, 0xf8000000, 64 * MiB, UC, 36);
	ck_assert_uint_eq(l.var[0].mask, 0xff8000800ull);
	check_layout(&c, &l, true);
}
END_TEST

START_TEST(test_hvmloader_xen_bar_wb)
{
	struct mtrr_config c = hvmloader();
	struct mtrr_layout l;

	add_wb(&c, 0xfb000000, 16 * MiB);
	l = build_ok(&c);
	ck_assert_uint_eq(l.def_type, 0xc06);
	ck_assert_uint_eq(l.nr_var, 3);
	ck_var(l, 0, 0xf0000000, 128 * MiB, UC, 36);
	ck_var(l, 1, 0xf8000000, 32 * MiB, UC, 36);
	ck_var(l, 2, 0xfa000000, 16 * MiB, UC, 36);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0xfb000000), WB);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0xfaffffff), UC);
	check_layout(&c, &l, true);
}
END_TEST

START_TEST(test_machine_default)
{
	struct mtrr_config c = machine();
	struct mtrr_layout l = build_ok(&c);

	ck_assert_uint_eq(l.def_type, 0xc06);
	ck_assert_uint_eq(l.nr_var, 2);
	ck_var(l, 0, 0xc0000000, 512 * MiB, UC, 40);
	ck_var(l, 1, 0xe0000000, 256 * MiB, UC, 40);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0xdf000000), UC);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0xf0000000), WB);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0xfffff000), WB);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 10 * GiB), WB);
	check_layout(&c, &l, true);
}
END_TEST

START_TEST(test_machine_xen_bar_wb)
{
	struct mtrr_config c = machine();
	struct mtrr_layout l;

	add_wb(&c, 0xdf000000, 16 * MiB);
	l = build_ok(&c);
	ck_assert_uint_eq(l.def_type, 0xc06);
	ck_assert_uint_eq(l.nr_var, 6);
	ck_var(l, 0, 0xc0000000, 256 * MiB, UC, 40);
	ck_var(l, 1, 0xd0000000, 128 * MiB, UC, 40);
	ck_var(l, 2, 0xd8000000, 64 * MiB, UC, 40);
	ck_var(l, 3, 0xdc000000, 32 * MiB, UC, 40);
	ck_var(l, 4, 0xde000000, 16 * MiB, UC, 40);
	ck_var(l, 5, 0xe0000000, 256 * MiB, UC, 40);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0xdf000000), WB);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0xdfffffff), WB);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0xe0000000), UC);
	check_layout(&c, &l, true);
}
END_TEST

/* 4 GiB of RAM: low RAM up to the window, the rest above 4 GiB. */
START_TEST(test_machine_4g_ram)
{
	struct mtrr_config c = machine();
	struct mtrr_layout l;

	c.low_ram_end = 0xc0000000;
	c.high_ram_end = 5 * GiB;
	c.pci64.base = 5 * GiB;
	l = build_ok(&c);
	ck_assert_uint_eq(l.nr_var, 2);
	ck_assert_uint_eq(l.def_type, 0xc06);
	check_layout(&c, &l, true);
}
END_TEST

/* The whole pipeline the firmware runs: bar_alloc, then mtrr_layout. */
static struct mtrr_layout pipeline(bool xen_wb, uint64_t *xen_addr)
{
	struct bar_windows w = {
		.io = { 0xc000, 0x4000 },
		.mem32 = { 0xc0000000, 0x20000000 },
		.mem64 = { 4 * GiB, 64 * GiB },
		.xen_bar_wb = xen_wb,
	};
	struct bar_req r[] = {
		{ .bdf = 0x18, .index = 0, .is_io = true, .size = 0x100 },
		{ .bdf = 0x18, .index = 1, .size = 16 * MiB,
		  .prefetchable = true, .flags = BAR_F_XEN_PLATFORM },
		{ .bdf = 0x20, .index = 0, .size = 4096 },
	};
	struct bar_summary s;
	struct mtrr_config c = machine();

	ck_assert_int_eq(bar_alloc(r, 3, &w, &s), BAR_OK);
	ck_assert_uint_eq(s.placed, 3);
	*xen_addr = r[1].addr;
	c.hole_start = s.uc_base;
	if (s.wb_size)
		add_wb(&c, s.wb_base, s.wb_size);
	c.hole_end = 0xe0000000 + 256 * MiB;
	{
		struct mtrr_layout l = build_ok(&c);

		check_layout(&c, &l, false);
		return l;
	}
}

START_TEST(test_pipeline_wb_and_uc)
{
	uint64_t xen;
	struct mtrr_layout l = pipeline(true, &xen);

	ck_assert_uint_eq(xen, 0xdf000000);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, xen), WB);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, xen + 16 * MiB - 1), WB);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0xc0000000), UC);
	ck_assert_uint_eq(l.nr_var, 6);

	/* --xen-bar-mtrr=uc: hvmloader's legacy layout, BAR included. */
	l = pipeline(false, &xen);
	ck_assert_uint_eq(xen, 0xc0000000);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, xen), UC);
	ck_assert_uint_eq(l.nr_var, 2);
}
END_TEST

/*
 * Unaligned hole start right above RAM: default WB needs 10 UC blocks;
 * default UC needs 9 (WB 0/2G, 2G/1G, 0xC0000000/1M, 0xF0000000/256M and
 * five doubling blocks over [4G, 68G)), still beyond 8 MTRRs.
 */
START_TEST(test_unaligned_hole_start)
{
	struct mtrr_config c = machine();
	struct mtrr_layout l;

	c.low_ram_end = c.hole_start = 0xc0100000;
	ck_assert_int_eq(mtrr_layout_build(&c, &l), MTRR_ENOSPC);
	ck_assert_uint_eq(l.nr_needed, 9);
	ck_assert_uint_eq(l.nr_var, 0);
	ck_assert_uint_eq(l.def_type, 0);
	c.vcnt = 16;
	l = build_ok(&c);
	ck_assert_uint_eq(l.nr_var, 9);
	ck_assert_uint_eq(l.def_type, 0xc00);
	ck_var(l, 0, 0, 2 * GiB, WB, 40);
	ck_var(l, 2, 0xc0000000, 1 * MiB, WB, 40);
	check_layout(&c, &l, true);

	/* Without the 64-bit window the same four low/top WB blocks suffice. */
	c.pci64.size = 0;
	l = build_ok(&c);
	ck_assert_uint_eq(l.def_type, 0xc00);
	ck_assert_uint_eq(l.nr_var, 4);
	check_layout(&c, &l, true);
}
END_TEST

/* The same hole with unused space below: blocks may spill into it. */
START_TEST(test_unaligned_hole_with_gap_below)
{
	struct mtrr_config c = machine();
	struct mtrr_layout l;

	c.low_ram_end = 2 * GiB;
	c.hole_start = 0xc0100000;
	l = build_ok(&c);
	ck_assert_uint_eq(l.nr_var, 2);
	ck_var(l, 0, 0xc0000000, 512 * MiB, UC, 40);
	check_layout(&c, &l, true);
}
END_TEST

START_TEST(test_unaligned_hole_end)
{
	struct mtrr_config c = hvmloader();
	struct mtrr_layout l;

	c.hole_end = 0xfbfff000;
	c.vcnt = 32;
	l = build_ok(&c);
	check_layout(&c, &l, true);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0xfbffe000), UC);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0xfbfff000), WB);
}
END_TEST

/* Awkward RAM end and awkward WB exceptions: too many either way. */
START_TEST(test_too_many_ranges)
{
	struct mtrr_config c = hvmloader();
	struct mtrr_layout l;
	unsigned int needed;

	c.low_ram_end = c.hole_start = 0xc0001000;
	c.hole_end = 0xfffff000;
	add_wb(&c, 0xc1001000, 0xffe000);
	add_wb(&c, 0xc3003000, 0x5000);
	add_wb(&c, 0xd0001000, 0x3000);
	add_wb(&c, 0xe7ff0000, 0x31000);
	ck_assert_int_eq(mtrr_layout_build(&c, &l), MTRR_ENOSPC);
	needed = l.nr_needed;
	ck_assert_uint_gt(needed, 8);
	ck_assert_uint_eq(l.nr_var, 0);
	ck_assert_uint_eq(l.def_type, 0);
	ck_assert_uint_eq(l.var[0].mask, 0);
	/* The count reported on failure is the one that would be used. */
	c.vcnt = MTRR_MAX_VAR;
	l = build_ok(&c);
	ck_assert_uint_eq(l.nr_var, needed);
	check_layout(&c, &l, true);
	/* VCNT 0: even one range is too many. */
	c = hvmloader();
	c.vcnt = 0;
	ck_assert_int_eq(mtrr_layout_build(&c, &l), MTRR_ENOSPC);
	ck_assert_uint_eq(l.nr_needed, 2);
	ck_assert_str_eq(mtrr_strerror(MTRR_ENOSPC),
			 "layout needs more variable MTRRs than MTRRcap.VCNT");
}
END_TEST

START_TEST(test_phys_bits_masks)
{
	static const struct { unsigned int bits; uint64_t mask; } t[] = {
		{ 36, 0xff8000800ull },
		{ 40, 0xfff8000800ull },
		{ 46, 0x3ffff8000800ull },
		{ 52, 0xffffff8000800ull },
	};

	for (unsigned int i = 0; i < 4; i++) {
		struct mtrr_config c = hvmloader();
		struct mtrr_layout l;

		c.phys_bits = t[i].bits;
		l = build_ok(&c);
		ck_assert_uint_eq(l.var[0].base, 0xf0000000);
		ck_assert_uint_eq(l.var[0].mask, t[i].mask);
		ck_assert_uint_eq(l.phys_bits, t[i].bits);
		check_layout(&c, &l, false);
	}
}
END_TEST

/* RAM 2 GiB, hole from 2 GiB: default UC + 2 WB beats 3 UC blocks. */
START_TEST(test_default_uc_wins)
{
	struct mtrr_config c = machine();
	struct mtrr_layout l;

	c.low_ram_end = c.hole_start = 2 * GiB;
	c.pci64.size = 0;
	l = build_ok(&c);
	ck_assert_uint_eq(l.def_type, 0xc00);
	ck_assert_uint_eq(l.nr_var, 2);
	ck_var(l, 0, 0, 2 * GiB, WB, 40);
	ck_var(l, 1, 0xf0000000, 256 * MiB, WB, 40);
	check_layout(&c, &l, true);
}
END_TEST

/* hvmloader's UC 64-bit window: default WB would need 7 MTRRs. */
START_TEST(test_pci64_uc)
{
	struct mtrr_config c = machine();
	struct mtrr_layout l;

	c.pci64_uc = true;
	add_wb(&c, 0xdf000000, 16 * MiB);
	l = build_ok(&c);
	ck_assert_uint_eq(l.def_type, 0xc00);
	ck_assert_uint_eq(l.nr_var, 3);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 20 * GiB), UC);
	check_layout(&c, &l, true);
}
END_TEST

/*
 * Default UC with a WB block and a UC block carved out of it (coreboot's
 * case: RAM ends just below a power of two), plus a UC 64-bit window that
 * default WB would need four blocks for.
 */
START_TEST(test_default_uc_with_subtraction)
{
	struct mtrr_config c = machine();
	struct mtrr_layout l;

	c.low_ram_end = c.hole_start = 0xbf800000;
	c.hole_end = 0xc0000000;
	c.pci64 = (struct mtrr_range){ 4 * GiB, 60 * GiB };
	c.pci64_uc = true;
	l = build_ok(&c);
	ck_assert_uint_eq(l.def_type, 0xc00);
	ck_assert_uint_eq(l.nr_var, 2);
	ck_var(l, 0, 0, 4 * GiB, WB, 40);
	ck_var(l, 1, 0xbf800000, 8 * MiB, UC, 40);
	check_layout(&c, &l, true);
}
END_TEST

START_TEST(test_fixed_ranges)
{
	struct mtrr_config c = machine();
	struct mtrr_layout l = build_ok(&c);
	static const uint32_t msr[] = { 0x250, 0x258, 0x259, 0x268, 0x269,
					0x26a, 0x26b, 0x26c, 0x26d, 0x26e,
					0x26f };

	for (unsigned int i = 0; i < MTRR_NR_FIXED; i++) {
		ck_assert_uint_eq(mtrr_fixed_msr(i), msr[i]);
		ck_assert_uint_eq(l.fixed[i],
				  i == 2 ? 0 : 0x0606060606060606ull);
	}
	ck_assert_uint_eq(mtrr_fixed_msr(11), 0);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0x9ffff), WB);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0xa0000), UC);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0xbffff), UC);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0xc0000), WB);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0xfffff), WB);
}
END_TEST

/* Lookup rules on hand-made register values. */
START_TEST(test_lookup_rules)
{
	struct mtrr_layout l;

	memset(&l, 0, sizeof(l));
	l.phys_bits = 36;
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0), UC);	/* disabled */
	l.def_type = MTRR_DEF_TYPE_E | WB;
	l.fixed[0] = 0x0101010101010101ull;
	/* FE clear: the fixed ranges are ignored. */
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0x1000), WB);
	l.def_type |= MTRR_DEF_TYPE_FE;
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0x1000), MTRR_TYPE_WC);
	l.nr_var = 4;
	l.var[0] = (struct mtrr_var){ 0x10000000 | MTRR_TYPE_WT,
				      mask_of(256 * MiB, 36) };
	l.var[1] = (struct mtrr_var){ 0x10000000 | WB, mask_of(128 * MiB, 36) };
	l.var[2] = (struct mtrr_var){ 0x18000000 | MTRR_TYPE_WC,
				      mask_of(64 * MiB, 36) };
	l.var[3] = (struct mtrr_var){ 0x1c000000 | UC,
				      mask_of(64 * MiB, 36) & ~0x800ull };
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0x10000000), MTRR_TYPE_WT);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0x18000000),
			  MTRR_TYPE_INVALID);		/* WT + WC */
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0x1c000000), MTRR_TYPE_WT);
	l.var[3].mask |= 0x800;				/* now valid */
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0x1c000000), UC);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0x20000000), WB);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 1ull << 36),
			  MTRR_TYPE_INVALID);
	l.var[0].base = 0x10000000 | UC;
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0x10000000), UC);
	l.nr_var = 1000;				/* clamped */
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0x10000000), UC);
}
END_TEST

START_TEST(test_invalid_configs)
{
	struct mtrr_config c;
	struct mtrr_layout l;

#define BAD(stmt) do { \
		c = machine(); stmt; \
		l.def_type = 0x123; \
		ck_assert_int_eq(mtrr_layout_build(&c, &l), MTRR_EINVAL); \
		ck_assert_uint_eq(l.def_type, 0); \
		ck_assert_uint_eq(l.nr_var, 0); \
	} while (0)
	BAD(c.low_ram_end = 0x80000);
	BAD(c.low_ram_end = 0x10000800);
	BAD(c.low_ram_end = 0xd0000000);
	BAD(c.hole_end = 0x100001000);
	BAD(c.hole_start = 0xf8000000);
	BAD(c.phys_bits = 31);
	BAD(c.phys_bits = 53);
	BAD(c.high_ram_end = 1ull << 41);
	BAD(c.high_ram_end = 8 * GiB);		/* overlaps pci64 */
	BAD(c.pci64.base = 0x80000000);
	BAD(c.pci64.size = 1ull << 40);
	BAD(c.pci64.size = UINT64_MAX & ~0xfffull);
	BAD(c.pci64.base = 4 * GiB + 0x800);
	BAD(add_wb(&c, 0xb0000000, MiB));	/* outside the hole */
	BAD(add_wb(&c, 0xeff00000, 2 * MiB));	/* crosses hole end */
	BAD(add_wb(&c, 0xd0000000, 0));
	BAD(add_wb(&c, 0xd0000800, 0x1000));
	BAD(add_wb(&c, 0xd0000000, UINT64_MAX & ~0xfffull));
	BAD(add_wb(&c, 0xd0000000, 2 * MiB); add_wb(&c, 0xd0100000, MiB));
	BAD(c.nr_wb = MTRR_MAX_WB + 1);
#undef BAD
	c = machine();
	ck_assert_int_eq(mtrr_layout_build(NULL, &l), MTRR_EINVAL);
	ck_assert_int_eq(mtrr_layout_build(&c, NULL), MTRR_EINVAL);
}
END_TEST

/* Several exceptions, given out of order; also an empty hole. */
START_TEST(test_exceptions_and_empty_hole)
{
	struct mtrr_config c = machine();
	struct mtrr_layout l;

	c.vcnt = 32;
	add_wb(&c, 0xe8000000, 4 * MiB);
	add_wb(&c, 0xc0000000, 16 * MiB);
	add_wb(&c, 0xd0000000, 4096);
	add_wb(&c, 0xefff0000, 0x10000);
	l = build_ok(&c);
	check_layout(&c, &l, true);

	c = machine();
	c.hole_start = c.hole_end = 0xc0000000;
	l = build_ok(&c);
	ck_assert_uint_eq(l.nr_var, 0);
	ck_assert_uint_eq(l.def_type, 0xc06);
	check_layout(&c, &l, true);

	/* Nothing WB above 1 MiB: default UC alone. */
	c = machine();
	c.low_ram_end = c.hole_start = MiB;
	c.hole_end = 4 * GiB;
	c.pci64.size = 0;
	l = build_ok(&c);
	ck_assert_uint_eq(l.nr_var, 0);
	ck_assert_uint_eq(l.def_type, 0xc00);
	ck_assert_uint_eq(mtrr_layout_lookup(&l, 0x9f000), WB);
	check_layout(&c, &l, true);
}
END_TEST

/* --- randomized configs, seeded --- */

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? rng % n : 0;
}

/* A page address in [lo, hi], biased to "round" values. */
static uint64_t rnd_addr(uint64_t lo, uint64_t hi)
{
	uint64_t a = lo + rnd(hi - lo + 1);
	unsigned int keep = 12 + rnd(20);

	if (rnd(3))
		a &= ~((1ull << keep) - 1);
	if (a < lo)
		a = lo;
	return a & ~0xfffull;
}

/* hvmloader's greedy over one interval (no spill): an upper bound. */
static unsigned int greedy(uint64_t a, uint64_t b)
{
	unsigned int n = 0;

	while (a < b) {
		uint64_t s = a ? a & -a : 1ull << 62;

		while (s > b - a)
			s >>= 1;
		a += s;
		n++;
	}
	return n;
}

static unsigned int greedy_bound(const struct mtrr_config *c)
{
	uint64_t cur = c->hole_start;
	unsigned int n = 0, idx[MTRR_MAX_WB];

	/* Exceptions in address order. */
	for (unsigned int i = 0; i < c->nr_wb; i++) {
		unsigned int j = i;

		while (j && c->wb[idx[j - 1]].base > c->wb[i].base) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
	for (unsigned int i = 0; i < c->nr_wb; i++) {
		n += greedy(cur, c->wb[idx[i]].base);
		cur = c->wb[idx[i]].base + c->wb[idx[i]].size;
	}
	n += greedy(cur, c->hole_end);
	if (c->pci64_uc && c->pci64.size)
		n += greedy(c->pci64.base, c->pci64.base + c->pci64.size);
	return n;
}

static struct mtrr_config random_config(void)
{
	struct mtrr_config c = { .vcnt = MTRR_MAX_VAR };
	uint64_t top;

	c.phys_bits = 36 + rnd(17);
	top = 1ull << c.phys_bits;
	c.low_ram_end = rnd_addr(MiB, 0xf0000000);
	c.hole_start = rnd_addr(c.low_ram_end, 4 * GiB);
	c.hole_end = rnd_addr(c.hole_start, 4 * GiB);
	for (unsigned int i = rnd(MTRR_MAX_WB + 1); i; i--) {
		uint64_t b = rnd_addr(c.hole_start, c.hole_end);
		uint64_t e = rnd_addr(b, c.hole_end);
		bool clash = e == b;

		for (unsigned int j = 0; j < c.nr_wb; j++)
			clash |= b < c.wb[j].base + c.wb[j].size &&
				 c.wb[j].base < e;
		if (!clash)
			add_wb(&c, b, e - b);
	}
	if (rnd(2))
		c.high_ram_end = rnd_addr(4 * GiB, 4 * GiB + 256 * GiB);
	if (rnd(4)) {
		uint64_t lo = c.high_ram_end > 4 * GiB ? c.high_ram_end :
							 4 * GiB;

		c.pci64.base = rnd_addr(lo, lo + 128 * GiB);
		c.pci64.size = rnd_addr(0, 128 * GiB);
		c.pci64_uc = rnd(2);
	}
	if (c.high_ram_end > top || c.pci64.base + c.pci64.size > top) {
		c.high_ram_end = 0;
		c.pci64.size = 0;
	}
	return c;
}

START_TEST(test_random_layouts_verify)
{
	unsigned int ok = 0, nospc = 0, uc_default = 0;

	for (int iter = 0; iter < 1500; iter++) {
		struct mtrr_config c = random_config();
		struct mtrr_layout l;
		unsigned int bound = greedy_bound(&c);
		int rc = mtrr_layout_build(&c, &l);

		if (rc == MTRR_ENOSPC) {
			nospc++;
			ck_assert_uint_gt(l.nr_needed, MTRR_MAX_VAR);
			ck_assert_uint_le(l.nr_needed, bound);
			continue;
		}
		ck_assert_msg(rc == MTRR_OK, "iter %d rc %d", iter, rc);
		ok++;
		uc_default += l.def_type == 0xc00;
		/* Never worse than hvmloader's greedy. */
		ck_assert_uint_le(l.nr_var, bound);
		check_layout(&c, &l, iter < 40);
	}
	/* The generator must exercise both defaults. */
	ck_assert_uint_gt(ok, 1000);
	ck_assert_uint_gt(uc_default, 20);
	(void)nospc;
}
END_TEST

/*
 * Exactness on a small universe: phys_bits 32 and every boundary on a
 * 256 MiB unit (16 units).  Brute force tries every set of up to 5 typed
 * blocks of 256 MiB..2 GiB (bit masks over units) with either default and
 * must agree with the solver's count.
 */
#define UNITS 16
#define BF_MAX 5

struct bf {
	uint16_t mask[60];
	bool uc[60];
	unsigned int n;
	uint16_t want_wb, want_uc;
};

static bool bf_search(const struct bf *b, unsigned int from, unsigned int k,
		      uint16_t wb, uint16_t uc)
{
	/* Default WB: W never UC, U all UC.  Default UC: W WB and not UC,
	 * U not (WB and not UC). */
	if (!(b->want_wb & uc) && (b->want_uc & ~uc) == 0)
		return true;
	if ((b->want_wb & ~(wb & ~uc)) == 0 && !(b->want_uc & wb & ~uc))
		return true;
	if (!k)
		return false;
	for (unsigned int i = from; i < b->n; i++)
		if (bf_search(b, i + 1, k - 1, b->uc[i] ? wb : wb | b->mask[i],
			      b->uc[i] ? uc | b->mask[i] : uc))
			return true;
	return false;
}

static unsigned int bf_minimum(const struct mtrr_config *c)
{
	struct bf b = { .n = 0 };

	for (unsigned int order = 0; order < 4; order++)
		for (unsigned int u = 0; u < UNITS; u += 1u << order)
			for (int t = 0; t < 2; t++) {
				b.mask[b.n] = ((1u << (1u << order)) - 1) << u;
				b.uc[b.n++] = t;
			}
	for (unsigned int u = 0; u < UNITS; u++) {
		int w = want(c, u * 256 * MiB + 255 * MiB);

		b.want_wb |= (w == WB) << u;
		b.want_uc |= (w == UC) << u;
	}
	for (unsigned int k = 0; k <= BF_MAX; k++)
		if (bf_search(&b, 0, k, 0, 0))
			return k;
	return BF_MAX + 1;
}

START_TEST(test_exact_minimum_small)
{
	unsigned int seen[BF_MAX + 2] = { 0 };

	for (int iter = 0; iter < 400; iter++) {
		struct mtrr_config c = { .phys_bits = 32, .vcnt = 32 };
		struct mtrr_layout l;
		unsigned int a = 1 + rnd(15), b = a + rnd(16 - a);
		unsigned int e = b + rnd(17 - b), best;

		c.low_ram_end = a * 256 * MiB;
		c.hole_start = b * 256 * MiB;
		c.hole_end = e * 256 * MiB;
		if (e > b + 1 && rnd(2)) {
			unsigned int x = b + rnd(e - b), y = x + 1 + rnd(e - x);

			if (y > e)
				y = e;
			add_wb(&c, x * 256 * MiB, (y - x) * 256 * MiB);
		}
		best = bf_minimum(&c);
		l = build_ok(&c);
		seen[best]++;
		if (best <= BF_MAX)
			ck_assert_msg(l.nr_var == best, "iter %d: %u vs %u",
				      iter, l.nr_var, best);
		else
			ck_assert_uint_gt(l.nr_var, BF_MAX);
		check_layout(&c, &l, false);
	}
	/* The generator reaches non-trivial minima. */
	ck_assert_uint_gt(seen[3] + seen[4] + seen[5], 20);
}
END_TEST

static Suite *mtrr_suite(void)
{
	Suite *s = suite_create("mtrr_layout");
	TCase *core = tcase_create("core");
	TCase *limits = tcase_create("limits");

	tcase_add_test(core, test_hvmloader_default);
	tcase_add_test(core, test_hvmloader_xen_bar_wb);
	tcase_add_test(core, test_machine_default);
	tcase_add_test(core, test_machine_xen_bar_wb);
	tcase_add_test(core, test_machine_4g_ram);
	tcase_add_test(core, test_pipeline_wb_and_uc);
	tcase_add_test(core, test_fixed_ranges);
	tcase_add_test(core, test_lookup_rules);
	tcase_add_test(core, test_default_uc_wins);
	tcase_add_test(core, test_pci64_uc);
	tcase_add_test(core, test_default_uc_with_subtraction);
	tcase_add_test(core, test_phys_bits_masks);
	tcase_add_test(limits, test_unaligned_hole_start);
	tcase_add_test(limits, test_unaligned_hole_with_gap_below);
	tcase_add_test(limits, test_unaligned_hole_end);
	tcase_add_test(limits, test_too_many_ranges);
	tcase_add_test(limits, test_invalid_configs);
	tcase_add_test(limits, test_exceptions_and_empty_hole);
	tcase_add_test(limits, test_random_layouts_verify);
	tcase_add_test(limits, test_exact_minimum_small);
	tcase_set_timeout(core, 60);
	tcase_set_timeout(limits, 300);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	return s;
}

int main(void)
{
	return unit_run(mtrr_suite());
}
