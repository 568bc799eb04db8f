/* SPDX-License-Identifier: MIT */
/*
 * One test's outcome under one VMM, as the runner (run.c) finds it and the
 * reporters (report.c) print it, and how a process's end maps to it: the
 * suite's conventions (kvm-unit-tests scripts/runtime.bash, vmm.bash), for
 * minivmm with --exit-style qemu and for QEMU with isa-debug-exit.  Pure:
 * unit-tested.
 */
#ifndef MINIVMM_TEST_RESULT_H
#define MINIVMM_TEST_RESULT_H

#include <stdbool.h>

/* XFAIL, XPASS: an expected failure (--xfail) failed, or passed;
 * FLAKY: passed after timing out (--retries). */
enum verdict { V_NONE, V_PASS, V_FAIL, V_SKIP, V_TIMEOUT, V_XFAIL, V_XPASS,
	       V_FLAKY, V_COUNT };

#define RESULT_TEXT_MAX		192

struct result {
	enum verdict v;
	char text[RESULT_TEXT_MAX];	/* SUMMARY or the reason; may be "" */
	double secs;
	char log[256];			/* the log file, "" if none */
	int attempts;			/* runs it took (--retries) */
};

/* How a run ended, as the runner saw it. */
struct ending {
	bool exited;			/* else killed by signal */
	int code;			/* exit code, or the signal */
	bool timed_out;			/* the runner's watchdog fired */
	const char *summary;		/* the SUMMARY line's text, or "" */
	const char *last_err;		/* the last stderr line, or "" */
	const char *first_err;		/* the first stderr line, or "" */
	const char *insn;		/* minivmm: the failing instruction */
	bool test_exit;			/* minivmm: "guest test-exit" seen */
	bool powered_off;		/* minivmm: "powered off" seen */
	bool poweroff_pass;		/* the entry's poweroff = pass */
	bool err_lines;			/* QEMU: stderr has non-warnings */
	bool guest_output;		/* QEMU: anything on the serial */
	double timeout;			/* seconds, for the reason */
};

void result_from_minivmm(const struct ending *e, struct result *r);
void result_from_qemu(const struct ending *e, struct result *r);

/* An expected failure's result: FAIL and TIMEOUT become XFAIL, PASS and
 * FLAKY XPASS; a SKIP stays one. */
void result_expect_fail(struct result *r);

/* "PASS", "FAIL", "SKIP", "TIMEOUT", "XFAIL", "XPASS", "FLAKY" (or "-"
 * for V_NONE). */
const char *verdict_name(enum verdict v);

/* The text after "SUMMARY: " if line (trailing \r and blanks removed)
 * is a summary line, else NULL. */
const char *result_summary(const char *line);

#endif
