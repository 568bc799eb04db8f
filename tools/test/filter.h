/* SPDX-License-Identifier: MIT */
/*
 * Test-name filters: --filter, and Bazel's --test_filter as the test gets
 * it in TESTBRIDGE_TEST_ONLY.  The syntax is googletest's, which Bazel
 * users know from cc_test: globs (* ? [...]) separated by ':' (or ','),
 * and after a '-' the globs to leave out.  As kvm-unit-tests names have
 * dashes (pcid-enabled), only a '-' that starts a glob (at the start or
 * after ':' or ',') starts the negative part: "vmexit_*:smptest*:-*ipi*"
 * runs the vmexit and smptest entries but those with "ipi" in the name,
 * "-vmx*:svm*" everything but the vmx and svm entries.  No positive glob
 * means every test.  Pure: unit-tested.
 */
#ifndef MINIVMM_TEST_FILTER_H
#define MINIVMM_TEST_FILTER_H

#include <stdbool.h>

/* Whether name passes filter (NULL or "" passes everything). */
bool filter_match(const char *filter, const char *name);

#endif
