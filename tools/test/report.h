/* SPDX-License-Identifier: MIT */
/*
 * What minivmm test prints and writes: one console line per test as it
 * ends (one column, or minivmm and QEMU side by side with --peer), the
 * closing counts, and the files for CI: TAP 13, JUnit XML (one testsuite
 * per VMM), and a Markdown table of both columns (--markdown, for the
 * docs/kvm-unit-tests.md).  Expected failures are TAP's "# TODO" and
 * JUnit's <skipped type="xfail">, as pytest writes them; an XPASS is a
 * JUnit <failure> unless --xpass-ok; a FLAKY test passes with Surefire's
 * <flakyFailure> for each attempt that timed out.  Files are written to a
 * temporary name and renamed.
 */
#ifndef MINIVMM_TEST_REPORT_H
#define MINIVMM_TEST_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "tools/test/run.h"

struct tally {
	int n[V_COUNT];
	double secs;
};

/* What the JUnit file says besides the results. */
struct junit_info {
	const char *suite;		/* the manifest */
	const char *shard;		/* "2/3", or NULL when not sharded */
	bool peer;			/* a testsuite for QEMU too */
	bool xpass_ok;			/* XPASS is not a failure */
};

void report_header(FILE *out, bool peer);
void report_line(FILE *out, const struct run_item *it, bool peer);
void report_tally(const struct run_item *items, int n, int kind,
		  struct tally *t);
void report_totals(FILE *out, const struct run_item *items, int n, bool peer,
		   double wall);

/* -1 after printing why. */
int report_tap(const char *path, const struct run_item *items, int n);
int report_junit(const char *path, const struct junit_info *info,
		 const struct run_item *items, int n);
int report_markdown(const char *path, const struct run_item *items, int n,
		    const char *host);

/* Writes s with XML's five special characters escaped and control
 * characters dropped. */
void report_xml_escape(FILE *f, const char *s);

#endif
