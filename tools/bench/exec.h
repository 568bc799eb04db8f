/* SPDX-License-Identifier: MIT */
/*
 * Child processes for `minivmm bench`: run a program (PATH lookup) with
 * stdin from /dev/null and both output streams captured; only that child
 * is killed on a timeout.
 */
#ifndef MINIVMM_BENCH_EXEC_H
#define MINIVMM_BENCH_EXEC_H

#include <stdbool.h>
#include <stddef.h>

struct bench_child {
	char *out, *err;		/* NUL-terminated; may be NULL */
	size_t out_len, err_len;
	int status;			/* exit status, 128+signal, or -1 */
	bool timed_out;
	double wall_ms;
	long long syscalls, switches;	/* from exec to exit, every thread;
					 * -1: unknown (counters.h) */
};

/* 0 once the child ran (whatever its status), -1 if it could not be
 * started.  Free c with bench_child_free() either way. */
int bench_exec(char *const argv[], double timeout_s, struct bench_child *c);
void bench_child_free(struct bench_child *c);
/* minivmm itself (exe) with args (NULL-terminated, at most 24) and
 * --timing --console none: the run's milestones in c->err.  0 if it ran
 * and ended with status 0. */
int bench_exec_vmm(const char *exe, const char *const *args,
		   double timeout_s, struct bench_child *c);

/* The last non-empty line of text (cut to len), for error notes. */
const char *bench_last_line(const char *text, char *buf, size_t len);

#endif
