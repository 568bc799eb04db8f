/* SPDX-License-Identifier: MIT */
/*
 * What the parts of `minivmm bench --cases snapshot` (snapshot.c, the
 * payload; snapshot_linux.c, Linux) share: a row from samples, and a
 * process's memory from /proc.
 */
#ifndef MINIVMM_BENCH_SNAPSHOT_ROWS_H
#define MINIVMM_BENCH_SNAPSHOT_ROWS_H

#include <stddef.h>
#include <stdint.h>

struct bench_run;
struct bench_result;

/* What a snapshot-taking child's stderr (with --timing) says: the write
 * (pause to rename) in ms, the file's size and the data written in MiB.
 * -1 if it has no such figures. */
int bench_snapshot_written(const char *err, double *ms, double *file_mib,
			   double *data_mib);
/* A /proc/PID/smaps_rollup field (Rss, Pss...) in KiB, or -1. */
long bench_smaps_kib(int pid, const char *key);
/* A row of the snapshot group from n samples (ns, sorted in place):
 * median, p10, p90; without samples a failed row (and b->failed). */
struct bench_result *bench_snapshot_row(struct bench_run *b, const char *name,
					uint64_t *ns, size_t n,
					const char *note);

#endif
