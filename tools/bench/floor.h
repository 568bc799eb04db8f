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
/* One `kvm-floor --startup` with minivmm's default RAM: ns from process
 * start to its first guest instruction, or -1 (or --no-floor). */
double bench_startup_floor(struct bench_run *b);
/* The floor's start-up row from those samples, and minivmm's
 * boot_first_insn row's ratio to it. */
void bench_startup_floor_row(struct bench_run *b, uint64_t *ns, size_t n);
/* The median ns of one floor case ("name:ring") run now, or -1. */
double bench_paired_floor(struct bench_run *b, const char *name_ring);
/* ns from cycles where the guest had no TSC rate; each row's floor ratio. */
void bench_apply_floor(struct bench_run *b);

#endif
