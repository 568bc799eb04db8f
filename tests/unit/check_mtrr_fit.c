// SPDX-License-Identifier: MIT
/*
 * mtrr_layout_fit (firmware/lib/mtrr_fit.c): for every ECAM size minivmm
 * offers (1-256 buses) the layout fits KVM's 8 variable MTRRs, with and
 * without the Xen BAR exception; the memory types stay right (ECAM and the
 * window UC, the Xen BAR WB, RAM and the APIC/ROM area WB); the hole only
 * grows into the space it is allowed to; impossible cases still fail.
 */
#include "tests/unit/unit.h"

#include "firmware/lib/mtrr_fit.h"

#define MIB		0x100000ull
#define ECAM		0xe0000000ull
#define TOP		0xfec00000ull		/* IOAPIC: not to be covered */
#define XEN_BAR		0xdf000000ull

static struct mtrr_config cfg(unsigned int buses, bool wb)
{
	struct mtrr_config c = {
		.low_ram_end = 256 * MIB,
		.hole_start = 0xc0000000,
		.hole_end = ECAM + buses * MIB,
		.pci64 = { 1ull << 32, 64ull << 30 },
		.phys_bits = 40,
		.vcnt = 8,
	};

	if (wb) {
		c.wb[0] = (struct mtrr_range){ XEN_BAR, 16 * MIB };
		c.nr_wb = 1;
	}
	return c;
}

static void types_ok(const struct mtrr_layout *l, unsigned int buses,
		     bool wb)
{
	ck_assert_uint_eq(mtrr_layout_lookup(l, 0x100000), MTRR_TYPE_WB);
	ck_assert_uint_eq(mtrr_layout_lookup(l, 256 * MIB - 4096),
			  MTRR_TYPE_WB);
	ck_assert_uint_eq(mtrr_layout_lookup(l, 0xc0000000), MTRR_TYPE_UC);
	ck_assert_uint_eq(mtrr_layout_lookup(l, XEN_BAR),
			  wb ? MTRR_TYPE_WB : MTRR_TYPE_UC);
	ck_assert_uint_eq(mtrr_layout_lookup(l, XEN_BAR + 16 * MIB - 1),
			  wb ? MTRR_TYPE_WB : MTRR_TYPE_UC);
	for (unsigned int b = 0; b < buses; b++)
		ck_assert_msg(mtrr_layout_lookup(l, ECAM + b * MIB) ==
			      MTRR_TYPE_UC, "bus %u of %u not UC", b, buses);
	ck_assert_uint_eq(mtrr_layout_lookup(l, ECAM + buses * MIB - 1),
			  MTRR_TYPE_UC);
	ck_assert_uint_eq(mtrr_layout_lookup(l, TOP), MTRR_TYPE_WB);
	ck_assert_uint_eq(mtrr_layout_lookup(l, 0xfee00000), MTRR_TYPE_WB);
	ck_assert_uint_eq(mtrr_layout_lookup(l, 0xfffff000), MTRR_TYPE_WB);
	ck_assert_uint_eq(mtrr_layout_lookup(l, 1ull << 32), MTRR_TYPE_WB);
}

START_TEST(test_every_bus_count)
{
	for (int wb = 0; wb < 2; wb++) {
		for (unsigned int buses = 1; buses <= 256; buses++) {
			struct mtrr_config c = cfg(buses, wb);
			struct mtrr_layout l;
			int rc = mtrr_layout_fit(&c, TOP, &l);

			ck_assert_msg(rc == MTRR_OK, "%u buses, wb %d: %s "
				      "(needs %u)", buses, wb,
				      mtrr_strerror(rc), l.nr_needed);
			ck_assert_uint_le(l.nr_var, wb ? 6 : 2);
			ck_assert_uint_ge(c.hole_end, ECAM + buses * MIB);
			ck_assert_uint_le(c.hole_end, TOP);
			types_ok(&l, buses, wb);
		}
	}
}
END_TEST

/* The exact end is kept when nothing beats it, and the fit is never worse
 * than mtrr_layout_build alone. */
START_TEST(test_exact_kept)
{
	struct mtrr_config c = cfg(1, true), plain = c;
	struct mtrr_layout l, p;

	ck_assert_int_eq(mtrr_layout_fit(&c, TOP, &l), MTRR_OK);
	ck_assert_int_eq(mtrr_layout_build(&plain, &p), MTRR_OK);
	ck_assert_uint_eq(c.hole_end, ECAM + MIB);
	ck_assert_uint_eq(l.nr_var, p.nr_var);
	for (unsigned int buses = 1; buses <= 256; buses++) {
		c = cfg(buses, true);
		plain = c;
		plain.vcnt = MTRR_MAX_VAR;
		mtrr_layout_build(&plain, &p);
		mtrr_layout_fit(&c, TOP, &l);
		ck_assert_uint_le(l.nr_needed, p.nr_needed);
	}
}
END_TEST

/* 127 buses needs 10 exactly: with no room to grow it still fails, with
 * room it takes a boundary, the lowest of the equally good ones. */
START_TEST(test_no_room)
{
	struct mtrr_config c = cfg(127, true);
	struct mtrr_layout l;

	ck_assert_int_eq(mtrr_layout_fit(&c, c.hole_end, &l), MTRR_ENOSPC);
	ck_assert_uint_gt(l.nr_needed, 8);
	ck_assert_uint_eq(c.hole_end, ECAM + 127 * MIB);
	c = cfg(127, true);
	ck_assert_int_eq(mtrr_layout_fit(&c, TOP, &l), MTRR_OK);
	ck_assert_uint_eq(c.hole_end, ECAM + 128 * MIB);
	c = cfg(1, true);
	ck_assert_int_eq(mtrr_layout_fit(&c, ECAM, &l), MTRR_EINVAL);
	c = cfg(1, true);
	c.vcnt = 1;
	ck_assert_int_eq(mtrr_layout_fit(&c, TOP, &l), MTRR_ENOSPC);
	ck_assert_uint_eq(l.nr_needed, 6);
	c = cfg(1, true);
	c.hole_start = 0x1234;			/* bad input stays bad */
	ck_assert_int_eq(mtrr_layout_fit(&c, TOP, &l), MTRR_EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mtrr_fit");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_every_bus_count);
	tcase_add_test(tc, test_exact_kept);
	tcase_add_test(tc, test_no_room);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
