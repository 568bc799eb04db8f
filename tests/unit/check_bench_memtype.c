// SPDX-License-Identifier: MIT
/*
 * Unit tests for the bench payload's MTRR range type
 * (tests/guest/bench/memtype.c, compiled here on the host: only its pure
 * part runs).  The reference is firmware/lib/mtrr_layout.c: for layouts it
 * builds, the type of a range must be what its lookup gives at every point
 * of the range, or "mixed" where those differ.
 */
#include "tests/unit/unit.h"
#include "firmware/lib/mtrr_layout.h"

#include "tests/guest/bench/memtype.c"

#define MiB	(1ull << 20)
#define GiB	(1ull << 30)

static struct mtrr_state state_of(const struct mtrr_layout *l,
				  unsigned int vcnt)
{
	struct mtrr_state m = { .def_type = l->def_type, .vcnt = vcnt,
				.phys_bits = l->phys_bits, .supported = true };

	for (unsigned int i = 0; i < l->nr_var && i < vcnt; i++) {
		m.base[i] = l->var[i].base;
		m.mask[i] = l->var[i].mask;
	}
	return m;
}

/* The reference: a lookup per page (per 64 KiB in large ranges, where
 * the layouts' boundaries are MiB-aligned). */
static unsigned int expected(const struct mtrr_layout *l, uint64_t start,
			     uint64_t size)
{
	uint8_t t = mtrr_layout_lookup(l, start);
	uint64_t step = size > MiB ? 64 * 1024 : 4096;

	for (uint64_t a = start; a < start + size; a += step)
		if (mtrr_layout_lookup(l, a) != t)
			return MT_MIXED;
	return t;
}

static struct mtrr_config minivmm_config(bool bar_wb)
{
	struct mtrr_config c = {
		.low_ram_end = 256 * MiB, .high_ram_end = 0,
		.hole_start = 0xc0000000, .hole_end = 0xe0100000,
		.phys_bits = 48, .vcnt = 8,
	};

	if (bar_wb) {
		c.wb[0] = (struct mtrr_range){ 0xdf000000, 16 * MiB };
		c.nr_wb = 1;
	}
	return c;
}

static void check_ranges(const struct mtrr_config *c)
{
	static const struct { uint64_t start, size; } ranges[] = {
		{ 0xdf000000, 16 * MiB },	/* the Xen BAR1 */
		{ 0xc0000000, 16 * MiB },	/* UC hole */
		{ 0xdef00000, 2 * MiB },	/* straddles the BAR's edge */
		{ 0xe0000000, 1 * MiB },	/* ECAM */
		{ 0xe00ff000, 8 * 1024 },	/* ECAM's end, 4K beyond */
		{ 0x02000000, 32 * MiB },	/* RAM */
		{ 0xf0000000, 64 * MiB },	/* above the hole */
	};
	struct mtrr_layout l;

	ck_assert_int_eq(mtrr_layout_build(c, &l), MTRR_OK);
	struct mtrr_state m = state_of(&l, c->vcnt);

	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		unsigned int want = expected(&l, ranges[i].start,
					     ranges[i].size);
		unsigned int got = mtrr_range_type(&m, ranges[i].start,
						   ranges[i].size);

		ck_assert_msg(got == want, "range %#llx+%#llx: got %s, want %s",
			      (unsigned long long)ranges[i].start,
			      (unsigned long long)ranges[i].size,
			      memtype_name(got), memtype_name(want));
	}
}

START_TEST(matches_layout_bar_wb)
{
	struct mtrr_config c = minivmm_config(true);

	check_ranges(&c);
}
END_TEST

START_TEST(matches_layout_bar_uc)
{
	struct mtrr_config c = minivmm_config(false);

	check_ranges(&c);
}
END_TEST

START_TEST(matches_layout_hvmloader_like)
{
	struct mtrr_config c = minivmm_config(false);

	/* A 64-bit window made UC and high RAM: more MTRRs in play. */
	c.high_ram_end = 6 * GiB;
	c.pci64 = (struct mtrr_range){ 8 * GiB, 64 * GiB };
	c.pci64_uc = true;
	c.phys_bits = 40;
	check_ranges(&c);
}
END_TEST

START_TEST(bar_types_as_linux_would_see_them)
{
	struct mtrr_config wb = minivmm_config(true), uc = minivmm_config(false);
	struct mtrr_layout l;
	struct mtrr_state m;

	ck_assert_int_eq(mtrr_layout_build(&wb, &l), MTRR_OK);
	m = state_of(&l, 8);
	ck_assert_uint_eq(mtrr_range_type(&m, 0xdf000000, 16 * MiB), MT_WB);
	ck_assert_int_eq(mtrr_layout_build(&uc, &l), MTRR_OK);
	m = state_of(&l, 8);
	ck_assert_uint_eq(mtrr_range_type(&m, 0xdf000000, 16 * MiB), MT_UC);
}
END_TEST

START_TEST(disabled_unsupported_and_odd_masks)
{
	struct mtrr_state m = { .def_type = MT_WB, .vcnt = 1,
				.phys_bits = 36, .supported = true };

	/* E clear: everything is UC (Linux >= 6.5 assumes so too). */
	ck_assert_uint_eq(mtrr_range_type(&m, 0x100000, MiB), MT_UC);
	m.def_type = MT_WB | DEF_E;
	ck_assert_uint_eq(mtrr_range_type(&m, 0x100000, MiB), MT_WB);
	m.supported = false;
	ck_assert_uint_eq(mtrr_range_type(&m, 0x100000, MiB), MT_UC);
	m.supported = true;
	/* Fixed ranges below 1 MiB are not modelled: mixed, not a guess. */
	m.def_type |= DEF_FE;
	ck_assert_uint_eq(mtrr_range_type(&m, 0xa0000, 0x1000), MT_MIXED);
	/* A non-contiguous mask is not trusted. */
	m.base[0] = 0x40000000 | MT_UC;
	m.mask[0] = 0xfbff00000ull | MASK_V;
	ck_assert_uint_eq(mtrr_range_type(&m, 0x40000000, MiB), MT_MIXED);
	/* Overlaps: UC wins; WT beats WB; WB with WC is undefined. */
	m.vcnt = 2;
	m.mask[0] = 0xff0000000ull | MASK_V;		/* 256 MiB */
	m.base[1] = 0x40000000 | MT_WT;
	m.mask[1] = 0xff0000000ull | MASK_V;
	ck_assert_uint_eq(mtrr_range_type(&m, 0x40000000, MiB), MT_UC);
	m.base[0] = 0x40000000 | MT_WB;
	ck_assert_uint_eq(mtrr_range_type(&m, 0x40000000, MiB), MT_WT);
	m.base[1] = 0x40000000 | MT_WC;
	ck_assert_uint_eq(mtrr_range_type(&m, 0x40000000, MiB), MT_MIXED);
	ck_assert_str_eq(memtype_name(MT_UC_MINUS), "UC-");
	ck_assert_str_eq(memtype_name(99), "?");
	/* Referenced so the host build keeps them (they need ring 0). */
	ck_assert_ptr_nonnull((void *)mtrr_read);
	ck_assert_ptr_nonnull((void *)map_with_type);
	ck_assert_ptr_nonnull((void *)map_supervisor);
}
END_TEST

static Suite *bench_memtype_suite(void)
{
	Suite *s = suite_create("bench_memtype");
	TCase *core = tcase_create("core");
	TCase *limits = tcase_create("limits");

	tcase_add_test(core, matches_layout_bar_wb);
	tcase_add_test(core, matches_layout_bar_uc);
	tcase_add_test(core, matches_layout_hvmloader_like);
	tcase_add_test(core, bar_types_as_linux_would_see_them);
	tcase_add_test(limits, disabled_unsupported_and_odd_masks);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	return s;
}

int main(void)
{
	return unit_run(bench_memtype_suite());
}
