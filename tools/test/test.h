/* SPDX-License-Identifier: MIT */
/*
 * minivmm test: runs a kvm-unit-tests style manifest (unittests.cfg) of
 * guest tests under minivmm, and optionally the same under QEMU side by
 * side (--peer qemu).  opts.c reads the options and the CI engines'
 * environment; runner.c drives manifest.c (the file), xfail.c (expected
 * failures), filter.c and shard.c (which tests), plan.c (what each entry
 * means), infra.c (the host's checks, minivmm's own failures), snap.c
 * (snapshots), run.c (the processes, retry.c's retries), result.c
 * (endings to verdicts) and report.c (console, TAP, JUnit, Markdown).
 */
#ifndef MINIVMM_TEST_TEST_H
#define MINIVMM_TEST_TEST_H

/* argv[0] is "test".  Returns the process status: 0 all passed or
 * skipped (or failed as expected), 1 a test failed, timed out or passed
 * unexpectedly, 2 bad usage or input, 3 the host or minivmm cannot run
 * tests (infra.h). */
int test_main(int argc, char **argv);

#endif
