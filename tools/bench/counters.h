/* SPDX-License-Identifier: MIT */
/*
 * Per-child kernel counters for `minivmm bench`: the system calls and
 * context switches of a child process and every thread it makes, from
 * exec to exit (perf events, inherited).  They do not depend on how busy
 * the host is the way times do, so virtio rows report them per op for
 * minivmm and QEMU alike.  Owns nothing but the two descriptors.
 */
#ifndef MINIVMM_BENCH_COUNTERS_H
#define MINIVMM_BENCH_COUNTERS_H

#include <sys/types.h>

#include "tools/bench/bench.h"

struct bench_counters {
	int fd[2];			/* syscalls, switches; -1 if none */
};

/* Counting starts at pid's next exec; a host without perf events (or
 * without the raw_syscalls tracepoint) leaves that counter at -1. */
void bench_counters_attach(struct bench_counters *k, pid_t pid);
/* The totals (-1: unknown), then the descriptors are closed. */
void bench_counters_read(struct bench_counters *k, long long *syscalls,
			 long long *switches);

/* Row x's extra words syscalls_per_op= and switches_per_op=: a run's
 * counts less those of an empty boot of the same VMM and configuration,
 * over the ops it ran; nothing for unknown counts. */
void bench_counters_per_op(struct bench_result *x, long long syscalls,
			   long long switches, long long base_syscalls,
			   long long base_switches);

#endif
