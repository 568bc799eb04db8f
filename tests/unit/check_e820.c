// SPDX-License-Identifier: MIT
/* Unit tests for firmware/lib/e820.c: RAM range checks and map building. */
#include <check.h>

#include "tests/unit/unit.h"
#include <stdlib.h>

#include "firmware/lib/e820.h"

#define MiB	(1ull << 20)
#define GiB	(1ull << 30)

#define RAM(a, s)	{ .addr = (a), .size = (s), .type = E820_RAM }
#define ENT(a, s, t)	{ .addr = (a), .size = (s), .type = (t) }

/* The firmware's PVH carve list: VGA/option-ROM hole, reserved tables. */
static const struct e820_entry fw_carve[] = {
	ENT(0xa0000, 0x40000, E820_OMIT),
	ENT(0xe0000, 0x20000, E820_RESERVED),
};

static void check_entry(const struct e820_entry *e, uint64_t addr,
			uint64_t size, uint32_t type)
{
	ck_assert_uint_eq(e->addr, addr);
	ck_assert_uint_eq(e->size, size);
	ck_assert_uint_eq(e->type, type);
}

START_TEST(build_low_ram_only)
{
	struct e820_entry ram[] = { RAM(0, 256 * MiB) };
	struct e820_entry out[8];
	int n = e820_build(ram, 1, fw_carve, 2, out, 8);

	ck_assert_int_eq(n, 3);
	check_entry(&out[0], 0, 0xa0000, E820_RAM);
	check_entry(&out[1], 0xe0000, 0x20000, E820_RESERVED);
	check_entry(&out[2], MiB, 255 * MiB, E820_RAM);
}
END_TEST

START_TEST(build_low_and_high_ram)
{
	struct e820_entry ram[] = { RAM(0, 3 * GiB), RAM(4 * GiB, 5 * GiB) };
	struct e820_entry out[8];
	int n = e820_build(ram, 2, fw_carve, 2, out, 8);

	ck_assert_int_eq(n, 4);
	check_entry(&out[2], MiB, 3 * GiB - MiB, E820_RAM);
	check_entry(&out[3], 4 * GiB, 5 * GiB, E820_RAM);
}
END_TEST

START_TEST(build_ram_ending_inside_hole)
{
	/* 700 KiB of RAM: the part above 640 KiB is in the omitted hole. */
	struct e820_entry ram[] = { RAM(0, 700 * 1024) };
	struct e820_entry out[8];
	int n = e820_build(ram, 1, fw_carve, 2, out, 8);

	ck_assert_int_eq(n, 1);
	check_entry(&out[0], 0, 0xa0000, E820_RAM);
}
END_TEST

START_TEST(build_ram_ending_inside_reserved)
{
	/* RAM ends at 0xf0000: only the RAM-backed half is reserved. */
	struct e820_entry ram[] = { RAM(0, 0xf0000) };
	struct e820_entry out[8];
	int n = e820_build(ram, 1, fw_carve, 2, out, 8);

	ck_assert_int_eq(n, 2);
	check_entry(&out[1], 0xe0000, 0x10000, E820_RESERVED);
}
END_TEST

START_TEST(build_merges_touching_ram)
{
	struct e820_entry ram[] = { RAM(0, 2 * MiB), RAM(2 * MiB, 2 * MiB) };
	struct e820_entry out[8];
	int n = e820_build(ram, 2, NULL, 0, out, 8);

	ck_assert_int_eq(n, 1);
	check_entry(&out[0], 0, 4 * MiB, E820_RAM);
}
END_TEST

START_TEST(build_carve_spanning_two_ranges)
{
	struct e820_entry ram[] = { RAM(0, 2 * MiB), RAM(3 * MiB, 2 * MiB) };
	struct e820_entry carve[] = { ENT(MiB, 3 * MiB, E820_RESERVED) };
	struct e820_entry out[8];
	int n = e820_build(ram, 2, carve, 1, out, 8);

	/* Reserved pieces are only where RAM was: [1M,2M) and [3M,4M). */
	ck_assert_int_eq(n, 4);
	check_entry(&out[0], 0, MiB, E820_RAM);
	check_entry(&out[1], MiB, MiB, E820_RESERVED);
	check_entry(&out[2], 3 * MiB, MiB, E820_RESERVED);
	check_entry(&out[3], 4 * MiB, MiB, E820_RAM);
}
END_TEST

START_TEST(build_range_at_top_of_address_space)
{
	struct e820_entry ram[] = { RAM(UINT64_MAX - MiB + 1, MiB) };
	struct e820_entry out[2];
	int n = e820_build(ram, 1, NULL, 0, out, 2);

	ck_assert_int_eq(n, 1);
	check_entry(&out[0], UINT64_MAX - MiB + 1, MiB, E820_RAM);
}
END_TEST

START_TEST(build_rejects_small_output)
{
	struct e820_entry ram[] = { RAM(0, 256 * MiB) };
	struct e820_entry out[2];

	ck_assert_int_eq(e820_build(ram, 1, fw_carve, 2, out, 2),
			 -E820_ENOSPC);
	ck_assert_int_eq(e820_build(ram, 1, fw_carve, 2, out, 0),
			 -E820_ENOSPC);
}
END_TEST

START_TEST(build_rejects_bad_input)
{
	struct e820_entry out[8];
	struct e820_entry unsorted[] = { RAM(4 * GiB, MiB), RAM(0, MiB) };
	struct e820_entry overlap[] = { RAM(0, 2 * MiB), RAM(MiB, MiB) };
	struct e820_entry empty[] = { RAM(0, 0) };
	struct e820_entry wrap[] = { RAM(UINT64_MAX - 10, 12) };
	struct e820_entry ram[] = { RAM(0, 4 * MiB) };
	struct e820_entry bad_carve[] = {
		ENT(2 * MiB, MiB, E820_RESERVED), ENT(MiB, MiB, E820_RESERVED),
	};

	ck_assert_int_eq(e820_build(unsorted, 2, NULL, 0, out, 8),
			 -E820_EORDER);
	ck_assert_int_eq(e820_build(overlap, 2, NULL, 0, out, 8),
			 -E820_EOVERLAP);
	ck_assert_int_eq(e820_build(empty, 1, NULL, 0, out, 8),
			 -E820_EINVAL);
	ck_assert_int_eq(e820_build(wrap, 1, NULL, 0, out, 8),
			 -E820_EINVAL);
	ck_assert_int_eq(e820_build(ram, 1, bad_carve, 2, out, 8),
			 -E820_EORDER);
}
END_TEST

START_TEST(sort_orders_and_checks)
{
	struct e820_entry ram[] = {
		RAM(4 * GiB, GiB), RAM(0, MiB), RAM(2 * GiB, MiB),
	};
	struct e820_entry overlap[] = { RAM(MiB, 2 * MiB), RAM(0, 2 * MiB) };
	struct e820_entry empty[] = { RAM(0, MiB), RAM(8 * MiB, 0) };

	ck_assert_int_eq(e820_ram_sort(ram, 3), 0);
	ck_assert_uint_eq(ram[0].addr, 0);
	ck_assert_uint_eq(ram[1].addr, 2 * GiB);
	ck_assert_uint_eq(ram[2].addr, 4 * GiB);
	ck_assert_uint_eq(ram[2].size, GiB);
	ck_assert_int_eq(e820_ram_sort(overlap, 2), -E820_EOVERLAP);
	ck_assert_int_eq(e820_ram_sort(empty, 2), -E820_EINVAL);
	ck_assert_int_eq(e820_ram_sort(NULL, 0), 0);
}
END_TEST

START_TEST(contains_limits)
{
	struct e820_entry ram[] = { RAM(0, 3 * GiB), RAM(4 * GiB, GiB) };

	ck_assert(e820_ram_contains(ram, 2, 0, MiB));
	ck_assert(e820_ram_contains(ram, 2, 3 * GiB - 1, 1));
	ck_assert(!e820_ram_contains(ram, 2, 3 * GiB - 1, 2));
	ck_assert(e820_ram_contains(ram, 2, 4 * GiB, GiB));
	ck_assert(!e820_ram_contains(ram, 2, 4 * GiB, GiB + 1));
	ck_assert(!e820_ram_contains(ram, 2, 2 * GiB, 3 * GiB));
	ck_assert(!e820_ram_contains(ram, 2, MiB, 0));
	ck_assert(!e820_ram_contains(ram, 2, UINT64_MAX, 2));
	ck_assert(!e820_ram_contains(ram, 0, 0, 1));
}
END_TEST

static Suite *e820_suite(void)
{
	Suite *s = suite_create("e820");
	TCase *core = tcase_create("core");
	TCase *limits = tcase_create("limits");

	tcase_add_test(core, build_low_ram_only);
	tcase_add_test(core, build_low_and_high_ram);
	tcase_add_test(core, build_merges_touching_ram);
	tcase_add_test(core, build_carve_spanning_two_ranges);
	tcase_add_test(core, sort_orders_and_checks);
	tcase_add_test(limits, build_ram_ending_inside_hole);
	tcase_add_test(limits, build_ram_ending_inside_reserved);
	tcase_add_test(limits, build_range_at_top_of_address_space);
	tcase_add_test(limits, build_rejects_small_output);
	tcase_add_test(limits, build_rejects_bad_input);
	tcase_add_test(limits, contains_limits);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	return s;
}

int main(void)
{
	return unit_run(e820_suite());
}
