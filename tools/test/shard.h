/* SPDX-License-Identifier: MIT */
/*
 * Which share of the selected tests this run takes, when a CI engine runs
 * the same test command on several machines at once.  Three sources:
 *   Bazel      TEST_TOTAL_SHARDS, TEST_SHARD_INDEX (0-based), as its test
 *              encyclopedia's "Test sharding" defines them
 *   GitLab     CI_NODE_TOTAL, CI_NODE_INDEX (1-based; `parallel: N`);
 *              CI_NODE_TOTAL=1 without an index is GitLab's "not parallel"
 *   --shard I/N  I 1-based, as GitLab counts (GitHub Actions matrices and
 *              anything else)
 * The option wins over the environment; the two environments must agree
 * when both are set.  Tests are dealt round-robin over the selection in
 * the manifest's order: test k (0-based) belongs to shard k mod N, so every
 * test is in exactly one shard for any N.  Pure: unit-tested.
 */
#ifndef MINIVMM_TEST_SHARD_H
#define MINIVMM_TEST_SHARD_H

#include <stdbool.h>

#define SHARD_MAX	1024
#define SHARD_ERR_MAX	192

struct shard_env {		/* each NULL or "" when unset */
	const char *bazel_total, *bazel_index;
	const char *gitlab_total, *gitlab_index;
};

struct shard {
	int index;		/* 0-based */
	int total;		/* 1: not sharded */
	const char *source;	/* "--shard", "Bazel", "GitLab" or "" */
};

/* Reads the four variables from the process environment. */
void shard_env_get(struct shard_env *e);

/* The shard from the option (opt: "I/N" or NULL) and the environment.
 * 0, or -1 with err saying what is wrong (bad number, out of range, a
 * variable without its pair, Bazel and GitLab disagreeing). */
int shard_resolve(const char *opt, const struct shard_env *e,
		  struct shard *s, char *err);

/* Whether the k-th selected test (0-based) is this shard's. */
static inline bool shard_has(const struct shard *s, int k)
{
	return s->total <= 1 || k % s->total == s->index;
}

/* Keeps in want[0..n) (the selection, in the manifest's order) only this
 * shard's tests.  Returns how many were selected before. */
int shard_take(const struct shard *s, bool *want, int n);

#endif
