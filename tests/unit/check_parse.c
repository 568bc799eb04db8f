// SPDX-License-Identifier: MIT
/* parse_size / parse_u64 / parse_seconds: accepted spellings, and every
 * kind of bad input leaving the output untouched. */
#include "tests/unit/unit.h"
#include "vmm/cli/parse.h"

#define SENTINEL	0x5a5a5a5a5a5a5a5aull

static uint64_t size_ok(const char *s)
{
	uint64_t v = SENTINEL;

	ck_assert_msg(parse_size(s, &v) == 0, "parse_size(\"%s\") failed", s);
	return v;
}

static void size_bad(const char *s)
{
	uint64_t v = SENTINEL;

	ck_assert_msg(parse_size(s, &v) == -1,
		      "parse_size(\"%s\") accepted: %llu", s,
		      (unsigned long long)v);
	ck_assert_msg(v == SENTINEL, "parse_size(\"%s\") wrote on failure", s);
}

static uint64_t u64_ok(const char *s)
{
	uint64_t v = SENTINEL;

	ck_assert_msg(parse_u64(s, &v) == 0, "parse_u64(\"%s\") failed", s);
	return v;
}

static void u64_bad(const char *s)
{
	uint64_t v = SENTINEL;

	ck_assert_msg(parse_u64(s, &v) == -1,
		      "parse_u64(\"%s\") accepted: %llu", s,
		      (unsigned long long)v);
	ck_assert(v == SENTINEL);
}

static double sec_ok(const char *s)
{
	double v = -7;

	ck_assert_msg(parse_seconds(s, &v) == 0, "parse_seconds(\"%s\") failed",
		      s);
	return v;
}

static void sec_bad(const char *s)
{
	double v = -7;

	ck_assert_msg(parse_seconds(s, &v) == -1,
		      "parse_seconds(\"%s\") accepted: %g", s, v);
	ck_assert(v == -7);
}

START_TEST(size_suffixes)
{
	ck_assert_uint_eq(size_ok("512K"), 512ull << 10);
	ck_assert_uint_eq(size_ok("512k"), 512ull << 10);
	ck_assert_uint_eq(size_ok("256M"), 256ull << 20);
	ck_assert_uint_eq(size_ok("256m"), 256ull << 20);
	ck_assert_uint_eq(size_ok("3G"), 3ull << 30);
	ck_assert_uint_eq(size_ok("3g"), 3ull << 30);
	ck_assert_uint_eq(size_ok("2T"), 2ull << 40);
	ck_assert_uint_eq(size_ok("2t"), 2ull << 40);
	ck_assert_uint_eq(size_ok("0"), 0);
	ck_assert_uint_eq(size_ok("0M"), 0);
}
END_TEST

START_TEST(size_no_suffix_is_mib)
{
	ck_assert_uint_eq(size_ok("4096"), 4096ull << 20);
	ck_assert_uint_eq(size_ok("1"), 1ull << 20);
}
END_TEST

START_TEST(size_long_spellings)
{
	ck_assert_uint_eq(size_ok("1MiB"), 1ull << 20);
	ck_assert_uint_eq(size_ok("1MB"), 1ull << 20);
	ck_assert_uint_eq(size_ok("2GiB"), 2ull << 30);
	ck_assert_uint_eq(size_ok("2GB"), 2ull << 30);
	ck_assert_uint_eq(size_ok("8KiB"), 8ull << 10);
	ck_assert_uint_eq(size_ok("8KB"), 8ull << 10);
	ck_assert_uint_eq(size_ok("1TiB"), 1ull << 40);
}
END_TEST

START_TEST(size_largest)
{
	/* The largest value of each unit that still fits in 64 bits. */
	ck_assert_uint_eq(size_ok("16777215T"), 16777215ull << 40);
	ck_assert_uint_eq(size_ok("17179869183G"), 17179869183ull << 30);
	size_bad("16777216T");
	size_bad("17179869184G");
	size_bad("17592186044416M");
	size_bad("17592186044416");
}
END_TEST

START_TEST(size_rejects_garbage)
{
	size_bad(NULL);
	size_bad("");
	size_bad("12Q");
	size_bad("M");
	size_bad("K1");
	size_bad("1MM");
	size_bad("1MiBB");
	size_bad("1BM");
	size_bad("1.5G");
	size_bad("1e3");
	size_bad("0x10");
	size_bad("1_000M");
	size_bad("1,5G");
}
END_TEST

START_TEST(size_rejects_overflow)
{
	size_bad("99999999999T");
	size_bad("18446744073709551616");	/* 2^64: strtoull overflow */
	size_bad("99999999999999999999999999999");
	size_bad("18446744073709551615K");
}
END_TEST

START_TEST(size_rejects_sign_and_space)
{
	size_bad("-1");
	size_bad("-1M");
	size_bad("+1M");
	size_bad(" 1M");
	size_bad("1M ");
	size_bad("1 M");
	size_bad("\t1G");
	size_bad("1G\n");
}
END_TEST

START_TEST(u64_accepts)
{
	ck_assert_uint_eq(u64_ok("0"), 0);
	ck_assert_uint_eq(u64_ok("42"), 42);
	ck_assert_uint_eq(u64_ok("0x10"), 16);
	ck_assert_uint_eq(u64_ok("0XfF"), 255);
	ck_assert_uint_eq(u64_ok("18446744073709551615"), UINT64_MAX);
	ck_assert_uint_eq(u64_ok("0xffffffffffffffff"), UINT64_MAX);
}
END_TEST

START_TEST(u64_rejects)
{
	u64_bad(NULL);
	u64_bad("");
	u64_bad("-1");
	u64_bad("+1");
	u64_bad(" 1");
	u64_bad("1 ");
	u64_bad("12a");
	u64_bad("0x");
	u64_bad("0xg");
	u64_bad("1.0");
	u64_bad("18446744073709551616");
	u64_bad("0x10000000000000000");
	u64_bad("x10");
}
END_TEST

/*
 * BUG (reported to the lead): parse.h documents "Decimal or 0x-hex", but
 * vmm/cli/parse.c parse_u64 uses strtoull(s, &end, 0), so "010" parses as octal
 * 8 and "08"/"09" are rejected; `--cpus 010` gives 8 vCPUs.  Expected 10, 8
 * and 9.
 */
START_TEST(u64_leading_zero_is_decimal)
{
	ck_assert_uint_eq(u64_ok("010"), 10);
	ck_assert_uint_eq(u64_ok("08"), 8);
	ck_assert_uint_eq(u64_ok("009"), 9);
}
END_TEST

START_TEST(seconds_accepts)
{
	ck_assert(sec_ok("2") == 2.0);
	ck_assert(sec_ok("0.5") == 0.5);
	ck_assert(sec_ok(".25") == 0.25);
	ck_assert(sec_ok("0") == 0.0);
	ck_assert(sec_ok("1e3") == 1000.0);
	ck_assert(sec_ok("1000000000") == 1e9);
}
END_TEST

START_TEST(seconds_rejects)
{
	sec_bad(NULL);
	sec_bad("");
	sec_bad("-1");
	sec_bad("-0.5");
	sec_bad("+1");
	sec_bad(" 1");
	sec_bad("1 ");
	sec_bad("1s");
	sec_bad("abc");
	sec_bad("inf");
	sec_bad("nan");
	sec_bad("1e999");
	sec_bad("1000000001");	/* over the documented 1e9 cap */
	sec_bad(".");
}
END_TEST

static Suite *parse_suite(void)
{
	Suite *s = suite_create("parse");
	TCase *tc = tcase_create("size");

	tcase_add_test(tc, size_suffixes);
	tcase_add_test(tc, size_no_suffix_is_mib);
	tcase_add_test(tc, size_long_spellings);
	tcase_add_test(tc, size_largest);
	tcase_add_test(tc, size_rejects_garbage);
	tcase_add_test(tc, size_rejects_overflow);
	tcase_add_test(tc, size_rejects_sign_and_space);
	suite_add_tcase(s, tc);

	tc = tcase_create("u64");
	tcase_add_test(tc, u64_accepts);
	tcase_add_test(tc, u64_rejects);
	tcase_add_test(tc, u64_leading_zero_is_decimal);
	suite_add_tcase(s, tc);

	tc = tcase_create("seconds");
	tcase_add_test(tc, seconds_accepts);
	tcase_add_test(tc, seconds_rejects);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(parse_suite());
}
