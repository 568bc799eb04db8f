/* SPDX-License-Identifier: MIT */
/*
 * Benchmark statistics: per-op values from repeated timed runs, their
 * median and percentiles, the iteration-count calibration, and the one
 * machine-readable result line every producer prints:
 *
 *   BENCH case=NAME ring=R iters=N median_cycles=X p10_cycles=X
 *         p90_cycles=X median_ns=X p10_ns=X p90_ns=X repeats=R
 *         ops_total=N [key=value ...]
 *
 * (one line).  Cycles and ns have three decimals; ns fields are "-" when
 * the TSC rate is unknown.  Extra key=value words may follow.
 *
 * Used by three programs: the kvm-floor tool, the guest payload
 * (tests/guest/bench.c includes stats.c) and the driver.  So it is
 * freestanding: integers only (the guest has no FPU state), no libc, no
 * globals.  Fixed point: "milli" values are 1/1000 of a cycle or ns.
 */
#ifndef MINIVMM_BENCH_STATS_H
#define MINIVMM_BENCH_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BENCH_MAX_REPEATS	100	/* samples per case */
#define BENCH_UNROLL		8	/* ops per loop iteration (all loops) */
#define BENCH_LINE_MAX		512

struct bench_summary {
	uint64_t median, p10, p90, min, max;
};

/* Sorts v[0..n) ascending (insertion sort: n is small). */
void bench_sort_u64(uint64_t *v, size_t n);

/* Percentile pct (0..100) of sorted[0..n) by linear interpolation between
 * the closest ranks (rank = pct/100 * (n-1)); 0 if n == 0. */
uint64_t bench_percentile(const uint64_t *sorted, size_t n, unsigned int pct);

/* Sorts samples in place and fills *out (median = 50th percentile).
 * -1 if n == 0. */
int bench_summarize(uint64_t *samples, size_t n, struct bench_summary *out);

/* total / iters in milli units (total * 1000 / iters), saturating;
 * 0 if iters == 0. */
uint64_t bench_per_op_milli(uint64_t total, uint64_t iters);

/* Milli-cycles to milli-ns at tsc_khz; 0 if tsc_khz == 0. */
uint64_t bench_cycles_to_ns(uint64_t milli_cycles, uint32_t tsc_khz);

/*
 * Calibration step: n iterations took elapsed cycles, the aim is target
 * cycles per repeat.  Returns the next n to try, or with *done set the n to
 * use: done once elapsed >= target / 2 (the estimate is then good) or n
 * reached max_n.  Growth per step is 2x..16x, so a cheap first sample
 * cannot overshoot wildly.  Results are multiples of unroll (>= unroll)
 * and at most max_n (rounded down to unroll).
 */
uint64_t bench_calibrate(uint64_t n, uint64_t elapsed, uint64_t target,
			 unsigned int unroll, uint64_t max_n, bool *done);

/*
 * Calibration that survives one preempted measurement: on a shared host a
 * single early sample of a few ops can take a whole time slice, and
 * bench_calibrate() would settle on those few ops (8 system calls per
 * repeat instead of hundreds, whose samples then dodge preemption and
 * are not comparable with the floor's).  So the n it settles on is
 * confirmed by one more run: a run under target / 4 means the estimate
 * was inflated, and the calibration goes on from there (at most
 * BENCH_CALIB_RECHECKS times).  Use:
 *
 *	bench_calib_init(&c, first_n, target, unroll, max_n);
 *	do elapsed = run(c.n); while (!bench_calib_step(&c, elapsed));
 *	... time the repeats with c.n ...
 */
#define BENCH_CALIB_RECHECKS	3

struct bench_calib {
	uint64_t n;		/* the n to run next; final once step is true */
	uint64_t target, max_n;
	unsigned int unroll;
	unsigned int rechecks;	/* left */
	bool checking;		/* n is bench_calibrate()'s answer */
};

void bench_calib_init(struct bench_calib *c, uint64_t n, uint64_t target,
		      unsigned int unroll, uint64_t max_n);
/* c->n ops took elapsed: true if c->n is final. */
bool bench_calib_step(struct bench_calib *c, uint64_t elapsed);

/* One result line's content (see the file comment). */
struct bench_line {
	const char *name;
	int ring;
	uint64_t iters;			/* per repeat */
	unsigned int repeats;
	uint64_t ops_total;		/* every op executed, calibration too */
	struct bench_summary cycles;	/* milli-cycles per op */
	uint32_t tsc_khz;		/* 0: ns unknown, printed as "-" */
	const char *extra;		/* appended after a space; may be NULL */
};

/* Writes the line (no newline) into buf, always NUL-terminated; returns
 * the length it needed (>= len means it was cut). */
size_t bench_format_line(char *buf, size_t len, const struct bench_line *l);

/* Appends "12.345" for a milli value at buf[pos], like the line does.
 * Returns the new pos (bounded like bench_format_line). */
size_t bench_put_milli(char *buf, size_t len, size_t pos, uint64_t milli);

#endif
