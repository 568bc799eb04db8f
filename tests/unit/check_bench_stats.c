// SPDX-License-Identifier: MIT
/* Unit tests for tools/bench/stats.c: sorting, percentiles, fixed-point
 * conversions, calibration and the BENCH line (checked against the
 * driver's parser too, so producer and consumer agree). */
#include "tests/unit/unit.h"
#include "tools/bench/bench.h"
#include "tools/bench/stats.h"

START_TEST(sort_orders_with_duplicates)
{
	uint64_t v[] = { 5, 1, 4, 1, UINT64_MAX, 0, 3 };
	uint64_t want[] = { 0, 1, 1, 3, 4, 5, UINT64_MAX };

	bench_sort_u64(v, 7);
	for (int i = 0; i < 7; i++)
		ck_assert_uint_eq(v[i], want[i]);
	bench_sort_u64(v, 0);	/* no-op, no crash */
}
END_TEST

START_TEST(percentile_interpolates)
{
	uint64_t v[] = { 10, 20, 30, 40, 50 };

	ck_assert_uint_eq(bench_percentile(v, 5, 0), 10);
	ck_assert_uint_eq(bench_percentile(v, 5, 50), 30);
	ck_assert_uint_eq(bench_percentile(v, 5, 100), 50);
	/* rank 0.4 of 4 gaps: 10 + 0.4 * 10 */
	ck_assert_uint_eq(bench_percentile(v, 5, 10), 14);
	ck_assert_uint_eq(bench_percentile(v, 5, 90), 46);
	ck_assert_uint_eq(bench_percentile(v, 5, 200), 50);	/* clamped */
}
END_TEST

START_TEST(percentile_limits)
{
	uint64_t one[] = { 7 };
	uint64_t two[] = { 0, UINT64_MAX };
	uint64_t even[] = { 1, 2, 3, 4 };

	ck_assert_uint_eq(bench_percentile(NULL, 0, 50), 0);
	ck_assert_uint_eq(bench_percentile(one, 1, 10), 7);
	ck_assert_uint_eq(bench_percentile(one, 1, 90), 7);
	/* A huge gap must not overflow. */
	ck_assert_uint_eq(bench_percentile(two, 2, 50),
			  UINT64_MAX / 100 * 50 + UINT64_MAX % 100 * 50 / 100);
	/* Even count: the median is between the middle two (2.5 -> 2). */
	ck_assert_uint_eq(bench_percentile(even, 4, 50), 2);
}
END_TEST

START_TEST(summarize_sorts_and_fills)
{
	uint64_t v[] = { 900, 100, 500, 300, 700 };
	struct bench_summary s;

	ck_assert_int_eq(bench_summarize(v, 5, &s), 0);
	ck_assert_uint_eq(s.min, 100);
	ck_assert_uint_eq(s.max, 900);
	ck_assert_uint_eq(s.median, 500);
	ck_assert_uint_eq(s.p10, 180);
	ck_assert_uint_eq(s.p90, 820);
	ck_assert_uint_eq(v[0], 100);
	ck_assert_int_eq(bench_summarize(v, 0, &s), -1);
}
END_TEST

START_TEST(fixed_point_conversions)
{
	ck_assert_uint_eq(bench_per_op_milli(1000, 8), 125000);
	ck_assert_uint_eq(bench_per_op_milli(7, 3), 2333);
	ck_assert_uint_eq(bench_per_op_milli(5, 0), 0);
	ck_assert_uint_eq(bench_per_op_milli(UINT64_MAX, 1), UINT64_MAX);
	/* 2596.144 cycles at 2596144 kHz is 1000 ns */
	ck_assert_uint_eq(bench_cycles_to_ns(2596144, 2596144), 1000000);
	ck_assert_uint_eq(bench_cycles_to_ns(1000, 2000000), 500);
	ck_assert_uint_eq(bench_cycles_to_ns(12345, 0), 0);
	ck_assert_uint_eq(bench_cycles_to_ns(UINT64_MAX, 1), UINT64_MAX);
}
END_TEST

START_TEST(calibrate_grows_then_settles)
{
	bool done;
	uint64_t n;

	/* Far too short: grows by at most 16x. */
	n = bench_calibrate(8, 10, 1000000, 8, 1ull << 40, &done);
	ck_assert(!done);
	ck_assert_uint_eq(n, 128);
	/* A bit short: at least 2x. */
	n = bench_calibrate(8, 400000, 1000000, 8, 1ull << 40, &done);
	ck_assert(!done);
	ck_assert_uint_eq(n, 16);
	/* Half the target or more: scale to it, rounded to the unroll. */
	n = bench_calibrate(1000, 600000, 1000000, 8, 1ull << 40, &done);
	ck_assert(done);
	ck_assert_uint_eq(n, 1664);		/* 1666 rounded down */
	ck_assert_uint_eq(n % 8, 0);
	/* Over the target: scale down, never below one unroll. */
	n = bench_calibrate(8, 1ull << 40, 1000, 8, 1ull << 40, &done);
	ck_assert(done);
	ck_assert_uint_eq(n, 8);
}
END_TEST

START_TEST(calibrate_limits)
{
	bool done;
	uint64_t n;

	/* elapsed 0 and n 0 are treated as 1. */
	n = bench_calibrate(0, 0, 100, 8, 1ull << 40, &done);
	ck_assert(!done);
	ck_assert_uint_eq(n % 8, 0);
	ck_assert_uint_ge(n, 8);
	/* max_n caps growth and ends the calibration. */
	n = bench_calibrate(1000, 1, 1ull << 60, 8, 4000, &done);
	ck_assert(!done);
	ck_assert_uint_le(n, 4000);
	n = bench_calibrate(4000, 1, 1ull << 60, 8, 4000, &done);
	ck_assert(done);
	ck_assert_uint_eq(n, 4000);
	/* Products beyond 64 bits do not overflow. */
	n = bench_calibrate(1ull << 40, 1ull << 61, 1ull << 62, 1, UINT64_MAX,
			    &done);
	ck_assert(done);
	ck_assert_uint_eq(n, 1ull << 41);
	/* Far over the target from a large n: down to one unroll. */
	n = bench_calibrate(1000, 1ull << 50, 10, 8, 1ull << 40, &done);
	ck_assert(done);
	ck_assert_uint_eq(n, 8);
	/* unroll 0 behaves as 1. */
	n = bench_calibrate(5, 1000, 1000, 0, 100, &done);
	ck_assert(done);
	ck_assert_uint_eq(n, 5);
}
END_TEST

/* An honest first estimate is confirmed by one more run. */
START_TEST(calib_confirms)
{
	struct bench_calib c;

	bench_calib_init(&c, 8, 1000000, 8, 1ull << 40);
	ck_assert(!bench_calib_step(&c, 80000));	/* 10000 per op: 12x */
	ck_assert_uint_eq(c.n, 96);
	ck_assert(!bench_calib_step(&c, 960000));	/* settles on 96 */
	ck_assert_uint_eq(c.n, 96);
	ck_assert(bench_calib_step(&c, 960000));	/* confirmed */
	ck_assert_uint_eq(c.n, 96);
	/* Unroll 0 and n 0 start at one op. */
	bench_calib_init(&c, 0, 100, 0, 10);
	ck_assert_uint_eq(c.n, 1);
}
END_TEST

/* A first sample that took a time slice (8 ops, 10000 cycles each, plus
 * a stall of 2e6) settles on 8; the confirming run is far too short, so
 * the calibration goes on and ends near target / 10000 ops. */
START_TEST(calib_recovers_from_a_stall)
{
	struct bench_calib c;
	int runs = 0;

	bench_calib_init(&c, 8, 1000000, 8, 1ull << 40);
	ck_assert(!bench_calib_step(&c, 80000 + 2000000));
	ck_assert_uint_eq(c.n, 8);
	while (!bench_calib_step(&c, c.n * 10000))
		ck_assert_int_lt(++runs, 10);
	ck_assert_uint_ge(c.n, 48);
	ck_assert_uint_le(c.n, 200);
	/* A host where every run stalls gives up after the rechecks. */
	bench_calib_init(&c, 8, 1000000, 8, 1ull << 40);
	runs = 0;
	while (!bench_calib_step(&c, runs % 2 ? 80000 : 4000000))
		ck_assert_int_lt(++runs, 4 * BENCH_CALIB_RECHECKS + 4);
}
END_TEST

static struct bench_line sample_line(void)
{
	struct bench_line l = {
		.name = "port_in", .ring = 0, .iters = 2800, .repeats = 5,
		.ops_total = 14000, .tsc_khz = 2000000, .extra = "bdf=00:03.0",
	};

	l.cycles = (struct bench_summary){ .median = 14000500,
		.p10 = 13999000, .p90 = 14100001 };
	return l;
}

START_TEST(line_format_exact)
{
	struct bench_line l = sample_line();
	char buf[BENCH_LINE_MAX];
	size_t n = bench_format_line(buf, sizeof(buf), &l);

	ck_assert_str_eq(buf, "BENCH case=port_in ring=0 iters=2800 "
		"median_cycles=14000.500 p10_cycles=13999.000 "
		"p90_cycles=14100.001 median_ns=7000.250 p10_ns=6999.500 "
		"p90_ns=7050.000 repeats=5 ops_total=14000 bdf=00:03.0");
	ck_assert_uint_eq(n, strlen(buf));
}
END_TEST

START_TEST(line_format_unknown_ns_and_truncation)
{
	struct bench_line l = sample_line();
	char buf[BENCH_LINE_MAX], small[16];
	size_t n;

	l.tsc_khz = 0;
	l.extra = NULL;
	l.name = NULL;
	bench_format_line(buf, sizeof(buf), &l);
	ck_assert_ptr_nonnull(strstr(buf, "case=? "));
	ck_assert_ptr_nonnull(strstr(buf, " median_ns=- p10_ns=- p90_ns=- "));
	ck_assert_str_eq(buf + strlen(buf) - 15, "ops_total=14000");
	n = bench_format_line(small, sizeof(small), &l);
	ck_assert_uint_eq(n, strlen(buf));	/* the length it needed */
	ck_assert_uint_eq(strlen(small), sizeof(small) - 1);
	ck_assert(!strncmp(small, buf, sizeof(small) - 1));
	ck_assert_uint_eq(bench_format_line(small, 0, &l), strlen(buf));
}
END_TEST

/* What the payload prints, the driver reads back. */
START_TEST(line_round_trips_through_parser)
{
	struct bench_line l = sample_line();
	char buf[BENCH_LINE_MAX];
	struct bench_sample s;

	bench_format_line(buf, sizeof(buf), &l);
	ck_assert_int_eq(bench_parse_line(buf, &s), 0);
	ck_assert_str_eq(s.name, "port_in");
	ck_assert_int_eq(s.ring, 0);
	ck_assert_uint_eq(s.iters, 2800);
	ck_assert_uint_eq(s.ops_total, 14000);
	ck_assert_uint_eq(s.repeats, 5);
	ck_assert_double_eq_tol(s.median_cycles, 14000.5, 1e-9);
	ck_assert_double_eq_tol(s.median_ns, 7000.25, 1e-9);
	ck_assert_double_eq_tol(s.p90_ns, 7050.0, 1e-9);
	ck_assert_str_eq(s.extra, "bdf=00:03.0");
	l.tsc_khz = 0;
	bench_format_line(buf, sizeof(buf), &l);
	ck_assert_int_eq(bench_parse_line(buf, &s), 0);
	ck_assert(s.median_ns < 0);
}
END_TEST

static Suite *bench_stats_suite(void)
{
	Suite *s = suite_create("bench_stats");
	TCase *core = tcase_create("core");
	TCase *limits = tcase_create("limits");

	tcase_add_test(core, sort_orders_with_duplicates);
	tcase_add_test(core, percentile_interpolates);
	tcase_add_test(core, summarize_sorts_and_fills);
	tcase_add_test(core, fixed_point_conversions);
	tcase_add_test(core, calibrate_grows_then_settles);
	tcase_add_test(core, calib_confirms);
	tcase_add_test(core, calib_recovers_from_a_stall);
	tcase_add_test(core, line_format_exact);
	tcase_add_test(core, line_round_trips_through_parser);
	tcase_add_test(limits, percentile_limits);
	tcase_add_test(limits, calibrate_limits);
	tcase_add_test(limits, line_format_unknown_ns_and_truncation);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	return s;
}

int main(void)
{
	return unit_run(bench_stats_suite());
}
