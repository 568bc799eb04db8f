/* SPDX-License-Identifier: MIT */
/*
 * `minivmm bench`'s Linux boots (boot group, with --linux-kernel and
 * --linux-initrd): the kernel with the test init of tests/boot/
 * linux-init.sh in check mode, 1 vCPU, 128 MiB, --linux-repeat times; the
 * milestones --timing reads off the console become one row each (median
 * over the boots, process start to the milestone).
 */
#ifndef MINIVMM_BENCH_LINUX_H
#define MINIVMM_BENCH_LINUX_H

#include "tools/bench/run.h"

/* How many boots bench_run_linux will make (0 without --linux-kernel). */
unsigned int bench_linux_steps(const struct bench_run *b);
void bench_run_linux(struct bench_run *b);

#endif
