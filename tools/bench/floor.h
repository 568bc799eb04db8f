/* SPDX-License-Identifier: MIT */
/*
 * kvm-floor in a bench run: the floor's own rows, the floor case timed
 * right before each minivmm row (so both see the same host load), and
 * every row's ratio to its floor.
 */
#ifndef MINIVMM_BENCH_FLOOR_H
#define MINIVMM_BENCH_FLOOR_H

#include "tools/bench/run.h"

void bench_run_floor(struct bench_run *b);
/* The median ns of one floor case ("name:ring") run now, or -1. */
double bench_paired_floor(struct bench_run *b, const char *name_ring);
/* ns from cycles where the guest had no TSC rate; each row's floor ratio. */
void bench_apply_floor(struct bench_run *b);

#endif
