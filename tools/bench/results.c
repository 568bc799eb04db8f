// SPDX-License-Identifier: MIT
/* The result rows of a benchmark run: storage and the ratio to the best
 * configuration of each case. */
#include "tools/bench/bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bench_result *bench_results_add(struct bench_results *r)
{
	struct bench_result *row;

	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct bench_result *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		r->v = v;
		r->cap = cap;
	}
	row = &r->v[r->n++];
	memset(row, 0, sizeof(*row));
	row->median_ns = row->p10_ns = row->p90_ns = -1;
	row->median_cycles = row->p10_cycles = row->p90_cycles = -1;
	row->exits_per_op = row->ratio_to_floor = row->ratio_to_best = -1;
	row->floor_ns = -1;
	row->mbps = -1;
	row->vmm = "minivmm";
	row->group = "exits";
	return row;
}

void bench_result_from_sample(struct bench_result *x,
			      const struct bench_sample *s)
{
	char v[32];

	x->iters = s->iters;
	x->ops_total = s->ops_total;
	x->repeats = s->repeats;
	x->median_ns = s->median_ns;
	x->p10_ns = s->p10_ns;
	x->p90_ns = s->p90_ns;
	x->median_cycles = s->median_cycles;
	x->p10_cycles = s->p10_cycles;
	x->p90_cycles = s->p90_cycles;
	snprintf(x->extra, sizeof(x->extra), "%s", s->extra);
	if (bench_word(s->extra, "mbps", v, sizeof(v)))
		x->mbps = strtod(v, NULL);
}

void bench_results_free(struct bench_results *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static bool rankable(const struct bench_result *x)
{
	return x->status == BENCH_OK && x->median_ns > 0 &&
	       strcmp(x->vmm, "kvm-floor") != 0 && strcmp(x->vmm, "host") != 0;
}

void bench_results_rank(struct bench_results *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct bench_result *x = &r->v[i];
		double best = -1;

		x->ratio_to_best = -1;
		if (!rankable(x))
			continue;
		for (size_t j = 0; j < r->n; j++) {
			const struct bench_result *y = &r->v[j];

			if (rankable(y) && y->ring == x->ring &&
			    !strcmp(y->name, x->name) &&
			    (best < 0 || y->median_ns < best))
				best = y->median_ns;
		}
		x->ratio_to_best = x->median_ns / best;
	}
}
