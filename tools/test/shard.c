// SPDX-License-Identifier: MIT
#include "tools/test/shard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *get(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

void shard_env_get(struct shard_env *e)
{
	e->bazel_total = get("TEST_TOTAL_SHARDS");
	e->bazel_index = get("TEST_SHARD_INDEX");
	e->gitlab_total = get("CI_NODE_TOTAL");
	e->gitlab_index = get("CI_NODE_INDEX");
}

static bool set(const char *v)
{
	return v && *v;
}

/* A decimal integer in [lo, hi], nothing else. */
static int number(const char *s, long lo, long hi, long *out)
{
	char *end;

	if (!s[0] || s[0] == '+' || s[0] == '-' || s[0] == ' ')
		return -1;
	errno = 0;
	*out = strtol(s, &end, 10);
	return errno || *end || *out < lo || *out > hi ? -1 : 0;
}

/* total and index (base 0 or 1) named tn and in into s. */
static int pair(const char *tn, const char *tv, const char *in,
		const char *iv, int base, struct shard *s, char *err)
{
	long t, i;

	if (number(tv, 1, SHARD_MAX, &t) < 0) {
		snprintf(err, SHARD_ERR_MAX, "%s '%.32s': expected a shard "
			 "count 1..%d", tn, tv, SHARD_MAX);
		return -1;
	}
	if (number(iv, base, t - 1 + base, &i) < 0) {
		snprintf(err, SHARD_ERR_MAX, "%s '%.32s': expected %d..%ld "
			 "(%s is %ld)", in, iv, base, t - 1 + base, tn, t);
		return -1;
	}
	s->total = (int)t;
	s->index = (int)(i - base);
	return 0;
}

static int from_option(const char *opt, struct shard *s, char *err)
{
	char i[32], t[32];
	const char *slash = strchr(opt, '/');

	if (!slash || (size_t)(slash - opt) >= sizeof(i) ||
	    strlen(slash + 1) >= sizeof(t)) {
		snprintf(err, SHARD_ERR_MAX, "--shard '%.32s': expected I/N "
			 "(I from 1 to N)", opt);
		return -1;
	}
	snprintf(i, sizeof(i), "%.*s", (int)(slash - opt), opt);
	snprintf(t, sizeof(t), "%s", slash + 1);
	if (number(t, 1, SHARD_MAX, &(long){ 0 }) < 0) {
		snprintf(err, SHARD_ERR_MAX, "--shard '%.32s': N must be "
			 "1..%d", opt, SHARD_MAX);
		return -1;
	}
	if (pair("N", t, "I", i, 1, s, err) < 0) {
		snprintf(err, SHARD_ERR_MAX, "--shard '%.32s': I must be 1..%s",
			 opt, t);
		return -1;
	}
	s->source = "--shard";
	return 0;
}

static int from_bazel(const struct shard_env *e, struct shard *s, char *err)
{
	if (set(e->bazel_total) != set(e->bazel_index)) {
		snprintf(err, SHARD_ERR_MAX, "%s is set without %s",
			 set(e->bazel_total) ? "TEST_TOTAL_SHARDS" :
			 "TEST_SHARD_INDEX", set(e->bazel_total) ?
			 "TEST_SHARD_INDEX" : "TEST_TOTAL_SHARDS");
		return -1;
	}
	if (pair("TEST_TOTAL_SHARDS", e->bazel_total, "TEST_SHARD_INDEX",
		 e->bazel_index, 0, s, err) < 0)
		return -1;
	s->source = "Bazel";
	return 0;
}

static int from_gitlab(const struct shard_env *e, struct shard *s, char *err)
{
	long t;

	if (!set(e->gitlab_index)) {
		/* GitLab sets CI_NODE_TOTAL=1 on every job without
		 * parallel:; more than one without an index is not GitLab's
		 * doing. */
		if (number(e->gitlab_total, 1, 1, &t) == 0)
			return 1;
		snprintf(err, SHARD_ERR_MAX, "CI_NODE_TOTAL '%.32s' is set "
			 "without CI_NODE_INDEX", e->gitlab_total);
		return -1;
	}
	if (!set(e->gitlab_total)) {
		snprintf(err, SHARD_ERR_MAX, "CI_NODE_INDEX is set without "
			 "CI_NODE_TOTAL");
		return -1;
	}
	if (pair("CI_NODE_TOTAL", e->gitlab_total, "CI_NODE_INDEX",
		 e->gitlab_index, 1, s, err) < 0)
		return -1;
	s->source = "GitLab";
	return 0;
}

int shard_resolve(const char *opt, const struct shard_env *e,
		  struct shard *s, char *err)
{
	struct shard b = { 0, 1, "" }, g = { 0, 1, "" };
	bool have_b, have_g;
	int r;

	*s = (struct shard){ 0, 1, "" };
	err[0] = 0;
	if (opt)
		return from_option(opt, s, err);
	have_b = set(e->bazel_total) || set(e->bazel_index);
	if (have_b && from_bazel(e, &b, err) < 0)
		return -1;
	have_g = set(e->gitlab_total) || set(e->gitlab_index);
	if (have_g) {
		r = from_gitlab(e, &g, err);
		if (r < 0)
			return -1;
		have_g = r == 0;
	}
	if (have_b && have_g && (b.total != g.total || b.index != g.index)) {
		snprintf(err, SHARD_ERR_MAX, "Bazel's shard %d of %d "
			 "(TEST_SHARD_INDEX %d, 0-based) and GitLab's %d of %d "
			 "(CI_NODE_INDEX) disagree", b.index + 1, b.total,
			 b.index, g.index + 1, g.total);
		return -1;
	}
	*s = have_b ? b : have_g ? g : *s;
	return 0;
}

int shard_take(const struct shard *s, bool *want, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		if (want[i])
			want[i] = shard_has(s, k++);
	return k;
}
