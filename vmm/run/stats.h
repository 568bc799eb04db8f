/* SPDX-License-Identifier: MIT */
/*
 * Run statistics: exit counts by KVM exit reason, plus what other modules
 * contribute (bus ranges, MSRs, devices) through reporters.  Printed at exit
 * with --stats and written as JSON with --stats-json.
 */
#ifndef MINIVMM_STATS_H
#define MINIVMM_STATS_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#define STATS_MAX_REASONS	64

struct cJSON;

struct stats_reporter {
	/* Appends a human-readable section to out. */
	void (*print)(void *ctx, FILE *out);
	/* Adds its members to the JSON root object. */
	void (*json)(void *ctx, struct cJSON *root);
	void *ctx;
};

#define STATS_MAX_REPORTERS	12
#define STATS_MAX_CPUS	256	/* vCPU ids share a row modulo this */

/* One vCPU's exit counts, [STATS_MAX_REASONS] for the rest: written only
 * by that vCPU's thread (no locked instruction on the exit path).  Rows
 * are whole cache lines long (not aligned: the VM is calloc'ed), so two
 * vCPUs share at most a line of rare reasons. */
struct stats_cpu {
	atomic_uint_least64_t exits[STATS_MAX_REASONS + 1];
	uint64_t pad[7];
};

struct stats {
	struct stats_cpu cpu[STATS_MAX_CPUS];
	int n_reporters;
	struct stats_reporter reporters[STATS_MAX_REPORTERS];
};

void stats_init(struct stats *s);
/* Counts one exit of vCPU cpu; only cpu's own thread may call it. */
void stats_count_exit(struct stats *s, unsigned int cpu, uint32_t reason);
/* Exits of one reason over all vCPUs (STATS_MAX_REASONS: the others). */
uint64_t stats_exits(struct stats *s, uint32_t reason);
int stats_add_reporter(struct stats *s, struct stats_reporter r);
void stats_print(struct stats *s, FILE *out);
/* The --stats-json object (the caller frees it with cJSON_Delete), or
 * NULL (no memory). */
struct cJSON *stats_build_json(struct stats *s, int exit_status);
/* Writes path atomically (temp file + rename).  0 or -1. */
int stats_write_json(struct stats *s, const char *path, int exit_status);

#endif
