// SPDX-License-Identifier: MIT
/* Unit tests for firmware/lib/mtrr_layout (and its use with bar_alloc):
 * fixed configurations; check_mtrr_random.c has the seeded random ones. */
#include "tests/unit/unit.h"
#include "firmware/lib/bar_alloc.h"
#include "firmware/lib/mtrr_layout.h"

#include "tests/unit/mtrr_check.h"

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
