/* SPDX-License-Identifier: MIT */
/*
 * The state of one `minivmm bench` run, shared by bench.c (the boots of
 * minivmm) and floor.c (kvm-floor and the ratios to it).  Private to
 * those two files.
 */
#ifndef MINIVMM_BENCH_RUN_H
#define MINIVMM_BENCH_RUN_H

#include "tools/bench/bench.h"
#include "tools/bench/exec.h"
#include "vmm/host/host.h"

#include <limits.h>

#define BENCH_VMM_TIMEOUT_S	600.0
#define BENCH_MAX_FLOOR		256
#define BENCH_BLK_RUNS		3	/* boots per blk case, median kept */

struct bench_run {
	struct bench_opts o;
	char exe[PATH_MAX], payload[PATH_MAX], floor[PATH_MAX];
	char tmp[64], stats[96];
	char disk[PATH_MAX];		/* the blk cases' image; "" until made */
	struct bench_results res;
	struct bench_sample floor_s[BENCH_MAX_FLOOR];
	size_t nfloor;
	uint32_t floor_khz;
	double baseline[32];		/* per bench_configs index; < 0 none */
	long long base_sys[32], base_sw[32];	/* that boot's syscalls and
						 * switches; < 0 unknown */
	struct bench_host host;
	struct host profile;		/* probed once (vmm/host/host.h) */
	unsigned int step, steps;
	double t0;
	bool tty, failed;
};

/* run.c */
double bench_now_s(void);	/* CLOCK_MONOTONIC, seconds */
void bench_progress(struct bench_run *b, const char *what, const char *cfg);
struct bench_result *bench_new_row(struct bench_run *b, const char *name,
				   int ring, const char *config,
				   const char *vmm, const char *group);
/* A boot-group row from per-boot times (ns); failed if n = 0. */
void bench_boot_row(struct bench_run *b, const char *name, const char *config,
		    uint64_t *ns, size_t n, const char *note);
/* Fills x's repeats and percentiles from n samples of one op each;
 * without samples marks x (and the run) failed with why_none: -1. */
int bench_row_samples(struct bench_run *b, struct bench_result *x,
		      uint64_t *ns, size_t n, const char *why_none);
void bench_fail_row(struct bench_result *x, const struct bench_child *c,
		    const char *what);

#endif
