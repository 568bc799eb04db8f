/* SPDX-License-Identifier: MIT */
/*
 * The virtio-blk cases' floor and their disk: the image every VMM reads
 * (created once per bench run, filled with pseudo-random bytes so reads
 * copy real data from the page cache, not holes), and the host's own
 * pread/pwrite loop on it, timed like the guest times its requests: the
 * same request size and pattern, one request at a time, calibrated to the
 * target time per repeat.  No VMM can serve a request faster than the
 * host reads the file itself.
 */
#ifndef MINIVMM_BENCH_HOSTIO_H
#define MINIVMM_BENCH_HOSTIO_H

#include <stdbool.h>

#include "tools/bench/run.h"

#define BENCH_DISK_MB	256
/* The image at b->disk, created on first use: 0 or -1 (said why). */
int bench_disk_prepare(struct bench_run *b);
void bench_disk_remove(struct bench_run *b);
/* The host floor of blk case name now: a sample, 0 or -1. */
int bench_hostio(struct bench_run *b, const char *name,
		 struct bench_sample *out);
/* Rows (vmm "host") for every selected blk case, kept as floor samples
 * for the ratios. */
void bench_run_hostio(struct bench_run *b);

#endif
