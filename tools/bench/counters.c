// SPDX-License-Identifier: MIT
/* Per-child system call and context switch counts; see counters.h. */
#include "tools/bench/counters.h"

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *const tracefs[] = {
	"/sys/kernel/tracing/events/raw_syscalls/sys_enter/id",
	"/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id",
};

static long long sys_enter_id(void)
{
	for (size_t i = 0; i < sizeof(tracefs) / sizeof(tracefs[0]); i++) {
		FILE *f = fopen(tracefs[i], "re");
		long long id;

		if (!f)
			continue;
		if (fscanf(f, "%lld", &id) != 1)
			id = -1;
		fclose(f);
		if (id >= 0)
			return id;
	}
	return -1;
}

/* Inherited, so threads made later count; enabled at exec, so the
 * fork's own set-up does not. */
static int open_counter(pid_t pid, uint32_t type, uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.inherit = 1;
	return (int)syscall(SYS_perf_event_open, &a, pid, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

void bench_counters_attach(struct bench_counters *k, pid_t pid)
{
	static long long id = -2;

	if (id == -2)
		id = sys_enter_id();
	k->fd[0] = id < 0 ? -1 :
		   open_counter(pid, PERF_TYPE_TRACEPOINT, (uint64_t)id);
	k->fd[1] = open_counter(pid, PERF_TYPE_SOFTWARE,
				PERF_COUNT_SW_CONTEXT_SWITCHES);
}

void bench_counters_read(struct bench_counters *k, long long *syscalls,
			 long long *switches)
{
	long long *out[2] = { syscalls, switches };

	for (int i = 0; i < 2; i++) {
		uint64_t v;

		*out[i] = -1;
		if (k->fd[i] < 0)
			continue;
		if (read(k->fd[i], &v, sizeof(v)) == sizeof(v))
			*out[i] = (long long)v;
		close(k->fd[i]);
		k->fd[i] = -1;
	}
}

static void per_op(struct bench_result *x, const char *word, long long n,
		   long long base)
{
	size_t l = strlen(x->extra);

	if (n < 0 || base < 0 || !x->ops_total)
		return;
	snprintf(x->extra + l, sizeof(x->extra) - l, "%s%s=%.2f",
		 l ? " " : "", word,
		 (double)(n > base ? n - base : 0) / (double)x->ops_total);
}

void bench_counters_per_op(struct bench_result *x, long long syscalls,
			   long long switches, long long base_syscalls,
			   long long base_switches)
{
	per_op(x, "syscalls_per_op", syscalls, base_syscalls);
	per_op(x, "switches_per_op", switches, base_switches);
}
