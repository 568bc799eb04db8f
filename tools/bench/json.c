// SPDX-License-Identifier: MIT
/*
 * `minivmm bench --json FILE`: a JSON array with one object per row.
 *
 *   {
 *     "case": "pci_ecam_read",    payload or kvm-floor case name
 *     "ring": 3,                  guest privilege level of the timed loop
 *                                 (0 for the boot rows)
 *     "config": "ecam=ro",        minivmm configuration (tools/bench/plan.c);
 *                                 "bare KVM" for the floor; "q35" or
 *                                 "q35+xen-platform" for QEMU
 *     "vmm": "minivmm",           "minivmm" | "kvm-floor" | "qemu"
 *     "group": "pci",             "pci" | "exits" | "msr" | "memory" |
 *                                 "boot" | "snapshot"
 *     "status": "ok",             "ok" | "skipped" | "failed"
 *     "note": "",                 why skipped or failed
 *     "iters": 1234,              iterations per repeat
 *     "repeats": 5,
 *     "ops_total": 9999,          every op run, calibration included
 *     "median_ns": 0.092,         per op (boot rows: per boot); null
 *                                 when unknown, and for snap_parallel_mem
 *                                 (memory only: rss_mib= pss_mib= in
 *                                 extra)
 *     "p10_ns": 0.091, "p90_ns": 0.093,
 *     "median_cycles": 0.24,      TSC cycles per op; null when unknown
 *     "exits_per_op": 0.0,        user-space exits per op; null: unknown
 *     "floor_case": "romem_read:3",   null when there is no floor
 *     "floor_median_ns": 0.091,   the floor case's median, timed just
 *                                 before this row (paired, so both see
 *                                 the same host load); null: not paired
 *     "ratio_to_floor": 1.01,     median / floor median (the paired one
 *                                 if any, else the floor's own row);
 *                                 null: n/a
 *     "ratio_to_best": 1.0,       median / best config's; null: n/a
 *     "mbps": 21469,              bandwidth cases only, else null
 *     "extra": "memtype=WB ..."   the payload's extra words
 *   }
 */
#include "tools/bench/bench.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

static const char *status_name(enum bench_status s)
{
	return s == BENCH_OK ? "ok" : s == BENCH_SKIPPED ? "skipped" :
	       "failed";
}

static void num_or_null(cJSON *o, const char *key, double v)
{
	if (v < 0)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, v);
}

static cJSON *row_json(const struct bench_result *x)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "case", x->name);
	cJSON_AddNumberToObject(o, "ring", x->ring);
	cJSON_AddStringToObject(o, "config", x->config);
	cJSON_AddStringToObject(o, "vmm", x->vmm);
	cJSON_AddStringToObject(o, "group", x->group);
	cJSON_AddStringToObject(o, "status", status_name(x->status));
	cJSON_AddStringToObject(o, "note", x->note);
	cJSON_AddNumberToObject(o, "iters", (double)x->iters);
	cJSON_AddNumberToObject(o, "repeats", x->repeats);
	cJSON_AddNumberToObject(o, "ops_total", (double)x->ops_total);
	num_or_null(o, "median_ns", x->median_ns);
	num_or_null(o, "p10_ns", x->p10_ns);
	num_or_null(o, "p90_ns", x->p90_ns);
	num_or_null(o, "median_cycles", x->median_cycles);
	num_or_null(o, "exits_per_op", x->exits_per_op);
	if (x->floor_case[0])
		cJSON_AddStringToObject(o, "floor_case", x->floor_case);
	else
		cJSON_AddNullToObject(o, "floor_case");
	num_or_null(o, "floor_median_ns", x->floor_ns);
	num_or_null(o, "ratio_to_floor", x->ratio_to_floor);
	num_or_null(o, "ratio_to_best", x->ratio_to_best);
	num_or_null(o, "mbps", x->mbps);
	cJSON_AddStringToObject(o, "extra", x->extra);
	return o;
}

int bench_json_write(FILE *out, const struct bench_results *r)
{
	cJSON *arr = cJSON_CreateArray();
	char *text;
	int ret;

	for (size_t i = 0; arr && i < r->n; i++)
		cJSON_AddItemToArray(arr, row_json(&r->v[i]));
	text = arr ? cJSON_Print(arr) : NULL;
	cJSON_Delete(arr);
	if (!text)
		return -1;
	ret = fputs(text, out) < 0 || fputc('\n', out) < 0 ? -1 : 0;
	free(text);
	return ret;
}
