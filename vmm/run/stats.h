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

struct stats {
	atomic_uint_least64_t exits[STATS_MAX_REASONS];
	atomic_uint_least64_t exits_other;
	int n_reporters;
	struct stats_reporter reporters[STATS_MAX_REPORTERS];
};

void stats_init(struct stats *s);
void stats_count_exit(struct stats *s, uint32_t reason);
int stats_add_reporter(struct stats *s, struct stats_reporter r);
void stats_print(struct stats *s, FILE *out);
/* Writes path atomically (temp file + rename).  0 or -1. */
int stats_write_json(struct stats *s, const char *path, int exit_status);

#endif
