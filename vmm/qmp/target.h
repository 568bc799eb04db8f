/* SPDX-License-Identifier: MIT */
/*
 * What QMP commands act on: the machine behind a small table of
 * operations, so the protocol (session.h, commands.c) runs the same over
 * the VM (vm_target.c) and over a fake in the unit tests and the fuzzer.
 * Every operation runs on the QMP thread; those that can fail return 0,
 * or -1 with one line in err.
 */
#ifndef MINIVMM_QMP_TARGET_H
#define MINIVMM_QMP_TARGET_H

#include <stdbool.h>
#include <stddef.h>

struct cJSON;

/* Run states as QMP's query-status names them. */
enum qmp_run_state {
	QMP_RUNNING,		/* "running" */
	QMP_PAUSED,		/* "paused": a QMP stop holds the vCPUs */
	QMP_DEBUG,		/* "debug": gdb or a snapshot holds them */
	QMP_SHUTDOWN,		/* "shutdown": the run is ending */
};

struct qmp_target_ops {
	enum qmp_run_state (*state)(void *ctx);
	/* Pause or let go the vCPUs: 1 if the state changed, 0 if it
	 * already was so, -1 on failure. */
	int (*stop)(void *ctx, char *err, size_t len);
	int (*cont)(void *ctx, char *err, size_t len);
	/* The ACPI power button. */
	int (*powerdown)(void *ctx, char *err, size_t len);
	/* End the run: system_reset (status 3) or quit (status 7). */
	int (*reset)(void *ctx, char *err, size_t len);
	int (*quit)(void *ctx, char *err, size_t len);
	/* An NMI to every vCPU. */
	int (*nmi)(void *ctx, char *err, size_t len);
	unsigned int (*ncpus)(void *ctx);
	/* vCPU i's host thread id (0: not started). */
	long (*cpu_thread)(void *ctx, unsigned int i);
	/* A snapshot to file; go_on false ends the run after it. */
	int (*snapshot)(void *ctx, const char *file, bool go_on, char *err,
			size_t len);
	/* The --stats-json object now (the caller frees it), or NULL. */
	struct cJSON *(*stats)(void *ctx, char *err, size_t len);
	/* The MSR policy's log/count modifiers on every rule and the
	 * default: on (1), off (0) or unchanged (-1); *log_now and
	 * *count_now get the default's after. */
	int (*msr_flags)(void *ctx, int log, int count, bool *log_now,
			 bool *count_now, char *err, size_t len);
	/* An event for every client (name, data object or NULL: consumed). */
	void (*event)(void *ctx, const char *name, struct cJSON *data);
};

struct qmp_target {
	const struct qmp_target_ops *ops;
	void *ctx;
};

#endif
