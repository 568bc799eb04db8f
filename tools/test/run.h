/* SPDX-License-Identifier: MIT */
/*
 * Running planned tests: up to N processes at a time (minivmm, and QEMU
 * for --peer qemu), each in its own process group with stdin from
 * /dev/null, output into LOGDIR/NAME.log (NAME.qemu.log), a watchdog at
 * the test's timeout (SIGTERM, SIGKILL a second later), and the ending
 * mapped to a verdict (result.h).  A minivmm run that times out runs
 * again as --retries allows (retry.h; the log gets each attempt), and an
 * expected failure's verdict becomes XFAIL or XPASS.  With a deadline (the
 * run's TEST_TIMEOUT budget) no test runs past it: each one's watchdog is
 * cut to it, and a test that cannot start before it is a TIMEOUT that says
 * so.  on_done is called once per test when all of its runs are over
 * (skipped tests first).
 */
#ifndef MINIVMM_TEST_RUN_H
#define MINIVMM_TEST_RUN_H

#include "tools/test/plan.h"
#include "tools/test/result.h"
#include "tools/test/retry.h"

enum { RUN_VMM, RUN_QEMU, RUN_KINDS };

struct run_item {
	struct plan plan;
	struct result res[RUN_KINDS];	/* V_NONE: not run */
	int pending;			/* runs not finished */
	const char *xfail;		/* why it is expected to fail, or NULL */
	struct result tries[RETRY_MAX];	/* minivmm's earlier attempts */
	int ntries;
};

struct run_opts {
	int jobs;
	const char *log_dir;
	bool peer;
	int retries;			/* --retries */
	double deadline;		/* CLOCK_MONOTONIC seconds; 0: none */
	void (*on_done)(struct run_item *it, void *ctx);
	void *ctx;
};

/* Runs every item; 0, or -1 if interrupted (SIGINT/SIGTERM: every child
 * is killed first) or the processes could not be started. */
int run_all(struct run_item *items, int n, const struct run_opts *o);

#endif
