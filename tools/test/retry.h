/* SPDX-License-Identifier: MIT */
/*
 * --retries N: a test that times out under minivmm runs again, up to N
 * more times, and one that then passes is FLAKY, never PASS: the run
 * stays green (that is what retries are for) but the line, TAP and JUnit
 * (Surefire's <flakyFailure>) say which attempts timed out.  Only
 * timeouts are retried: a FAIL is an answer, and an expected failure is
 * not run twice.  No retry starts that would not fit in the run's time
 * budget (TEST_TIMEOUT).  Pure: unit-tested.
 */
#ifndef MINIVMM_TEST_RETRY_H
#define MINIVMM_TEST_RETRY_H

#include <stdbool.h>

#include "tools/test/result.h"

#define RETRY_MAX	10

struct retry_policy {
	int retries;		/* 0..RETRY_MAX */
	double budget_left;	/* seconds left in the run; < 0: no budget */
};

/* Whether a test that ended with r after `done` attempts (1 = the first)
 * runs again; expected: it is an expected failure; timeout: its timeout. */
bool retry_again(const struct retry_policy *p, const struct result *r,
		 int done, bool expected, double timeout);

/* The verdict over all attempts: last is the final attempt's result
 * (updated in place), earlier the n before it. */
void retry_final(struct result *last, const struct result *earlier, int n);

#endif
