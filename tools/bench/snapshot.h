/* SPDX-License-Identifier: MIT */
/*
 * `minivmm bench --cases snapshot`: the snapshot payload
 * (tests/guest/snapshot.c) booted whole, snapshotted at its request, and
 * restored, in the same run and alternating per repeat so all three see
 * the same load; then three restores at once of a snapshot whose guest
 * filled 64 MiB, with their RSS and PSS (what parallel restores share).
 * Rows: snap_boot_verdict, snap_write (with the file's size),
 * snap_restore_run (process start to vCPUs running), snap_restore_verdict
 * (with its ratio to the boot), snap_parallel_mem (memory only).  With
 * --linux-kernel/--linux-initrd, the Linux rows too (snapshot_linux.h).
 */
#ifndef MINIVMM_BENCH_SNAPSHOT_H
#define MINIVMM_BENCH_SNAPSHOT_H

struct bench_run;

void bench_run_snapshot(struct bench_run *b);
/* Steps bench_run_snapshot reports progress for. */
unsigned int bench_snapshot_steps(const struct bench_run *b);

#endif
