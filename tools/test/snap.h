/* SPDX-License-Identifier: MIT */
/*
 * minivmm test's snapshots: boot once, start every test from there.
 *
 * Manifest entries with "snapshot = port" are payloads in the CI form:
 * they set up, ask for a snapshot at their ready point (MMIO 0xFE000010,
 * docs/snapshot.md), and then take their parameters from the ARGS= line
 * of the control page's ENV when they were restored, else from their
 * command line.  Entries that would boot the same machine (the same
 * minivmm command line but for --append and --timeout: same file, vCPUs,
 * memory, options) share one snapshot: the first one's boot takes it
 * (SCRATCH/NAME.snap, its output in LOGDIR/NAME.snapshot.log), and every
 * entry of the group then runs as
 *	minivmm --restore SCRATCH/NAME.snap --append-env ARGS=<test_args>
 * Snapshots are bound to the host's CPU and the minivmm build: each run
 * (each shard of a sharded run) takes its own, and none leaves the
 * machine.
 * A boot that does not end with a snapshot leaves the group's entries as
 * they were (full boots), and says so.  QEMU peer runs are not changed.
 */
#ifndef MINIVMM_TEST_SNAP_H
#define MINIVMM_TEST_SNAP_H

#include <stdio.h>

#include "tools/test/run.h"

/* Takes the snapshots items[0..n) can share, one boot at a time, and
 * points those items' minivmm runs at them; one line per snapshot on out.
 * Returns how many snapshots were taken. */
int snap_prepare(struct run_item *items, int n, const char *scratch,
		 const char *log_dir, FILE *out);

#endif
