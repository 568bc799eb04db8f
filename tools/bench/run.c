// SPDX-License-Identifier: MIT
/* One `minivmm bench` run's rows and its progress line, shared by the
 * driver (driver.c), the floor (floor.c) and the Linux boots (linux.c). */
#include "tools/bench/run.h"
#include "tools/bench/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

double bench_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void bench_progress(struct bench_run *b, const char *what, const char *cfg)
{
	b->step++;
	if (!b->tty)
		return;
	fprintf(stderr, "\r\033[K[%u/%u] %s %s  %.1fs", b->step, b->steps,
		what, cfg, bench_now_s() - b->t0);
	fflush(stderr);
}

/* --- rows ----------------------------------------------------------------- */

struct bench_result *bench_new_row(struct bench_run *b, const char *name,
				   int ring, const char *config,
				   const char *vmm, const char *group)
{
	struct bench_result *x = bench_results_add(&b->res);

	if (!x) {
		fprintf(stderr, "minivmm: error: bench: out of memory\n");
		exit(1);
	}
	snprintf(x->name, sizeof(x->name), "%s", name);
	x->ring = ring;
	snprintf(x->config, sizeof(x->config), "%s", config);
	x->vmm = vmm;
	x->group = group;
	return x;
}

void bench_fail_row(struct bench_result *x, const struct bench_child *c,
		    const char *what)
{
	char last[120];

	x->status = BENCH_FAILED;
	if (c && c->timed_out)
		snprintf(x->note, sizeof(x->note), "%s timed out", what);
	else if (c)
		snprintf(x->note, sizeof(x->note), "%s: status %d: %s", what,
			 c->status, bench_last_line(c->err, last,
						    sizeof(last)));
	else
		snprintf(x->note, sizeof(x->note), "%s: cannot start", what);
}

void bench_boot_row(struct bench_run *b, const char *name, const char *config,
		    uint64_t *ns, size_t n, const char *note)
{
	struct bench_result *x = bench_new_row(b, name, 0, config, "minivmm",
					       "boot");

	if (bench_row_samples(b, x, ns, n, "no --timing milestones") < 0)
		return;
	snprintf(x->extra, sizeof(x->extra), "%s", note);
}

int bench_row_samples(struct bench_run *b, struct bench_result *x,
		      uint64_t *ns, size_t n, const char *why_none)
{
	struct bench_summary s;

	if (bench_summarize(ns, n, &s) < 0) {
		x->status = BENCH_FAILED;
		snprintf(x->note, sizeof(x->note), "%s", why_none);
		b->failed = true;
		return -1;
	}
	x->repeats = (unsigned int)n;
	x->iters = 1;
	x->ops_total = n;
	x->median_ns = (double)s.median;
	x->p10_ns = (double)s.p10;
	x->p90_ns = (double)s.p90;
	return 0;
}
