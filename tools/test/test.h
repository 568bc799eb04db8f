/* SPDX-License-Identifier: MIT */
/*
 * minivmm test: runs a kvm-unit-tests style manifest (unittests.cfg) of
 * guest tests under minivmm, and optionally the same under QEMU side by
 * side (--peer qemu).  cli.c parses the options and drives manifest.c
 * (the file), plan.c (what each entry means), run.c (the processes),
 * result.c (endings to verdicts) and report.c (console, TAP, JUnit,
 * Markdown).
 */
#ifndef MINIVMM_TEST_TEST_H
#define MINIVMM_TEST_TEST_H

/* argv[0] is "test".  Returns the process status: 0 all passed or
 * skipped, 1 a test failed or timed out, 2 bad usage or manifest. */
int test_main(int argc, char **argv);

#endif
