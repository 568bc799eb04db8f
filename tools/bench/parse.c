// SPDX-License-Identifier: MIT
/* Pure parsers for `minivmm bench`: the payload's and kvm-floor's result
 * lines, --timing output and --stats-json.  Any input is safe: malformed
 * text is rejected, never trusted. */
#include "tools/bench/bench.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define WORD_MAX	256

/* Copies the next space-separated word of *s into w; false at the end. */
static bool next_word(const char **s, char *w, size_t len)
{
	const char *p = *s;
	size_t n = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '\n' || *p == '\r')
		return false;
	while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
		if (n + 1 < len)
			w[n++] = *p;
		p++;
	}
	w[n] = 0;
	*s = p;
	return true;
}

static bool dec_u64(const char *v, uint64_t *out)
{
	char *end;

	if (*v < '0' || *v > '9')
		return false;
	errno = 0;
	*out = strtoull(v, &end, 10);
	return !errno && !*end;
}

/* A fixed-point number, or "-" (unknown: -1). */
static bool parse_num(const char *v, double *out)
{
	char *end;

	if (!strcmp(v, "-")) {
		*out = -1;
		return true;
	}
	if (*v < '0' || *v > '9')
		return false;
	errno = 0;
	*out = strtod(v, &end);
	return !errno && !*end && *out >= 0;
}

static void append_extra(struct bench_sample *s, const char *w)
{
	size_t used = strlen(s->extra), wl = strlen(w);

	if (used + wl + 2 > sizeof(s->extra))
		return;
	if (used)
		s->extra[used++] = ' ';
	memcpy(s->extra + used, w, wl + 1);
}

enum { K_CASE, K_RING, K_ITERS, K_MC, K_P10C, K_P90C, K_MNS, K_P10NS,
       K_P90NS, K_REPEATS, K_OPS, K_NKEYS };

static int key_index(const char *w, const char **val)
{
	static const char *const keys[K_NKEYS] = {
		"case", "ring", "iters", "median_cycles", "p10_cycles",
		"p90_cycles", "median_ns", "p10_ns", "p90_ns", "repeats",
		"ops_total",
	};
	const char *eq = strchr(w, '=');

	if (!eq)
		return -1;
	for (int i = 0; i < K_NKEYS; i++)
		if (strlen(keys[i]) == (size_t)(eq - w) &&
		    !strncmp(w, keys[i], (size_t)(eq - w))) {
			*val = eq + 1;
			return i;
		}
	return -1;
}

static bool set_key(struct bench_sample *s, int k, const char *v)
{
	uint64_t u;
	double *nums[] = { [K_MC] = &s->median_cycles,
		[K_P10C] = &s->p10_cycles, [K_P90C] = &s->p90_cycles,
		[K_MNS] = &s->median_ns, [K_P10NS] = &s->p10_ns,
		[K_P90NS] = &s->p90_ns };

	switch (k) {
	case K_CASE:
		if (!*v || strlen(v) >= sizeof(s->name))
			return false;
		strcpy(s->name, v);
		return true;
	case K_RING:
		if (strcmp(v, "0") && strcmp(v, "3"))
			return false;
		s->ring = v[0] - '0';
		return true;
	case K_ITERS:
		return dec_u64(v, &s->iters);
	case K_OPS:
		return dec_u64(v, &s->ops_total);
	case K_REPEATS:
		if (!dec_u64(v, &u) || u == 0 || u > 100000)
			return false;
		s->repeats = (unsigned int)u;
		return true;
	default:
		return parse_num(v, nums[k]);
	}
}

static int parse_skip(const char *p, struct bench_sample *s)
{
	char w[WORD_MAX];
	const char *v;
	unsigned int have = 0;

	s->skipped = true;
	while (next_word(&p, w, sizeof(w))) {
		int k = key_index(w, &v);

		if (k == K_CASE || k == K_RING) {
			if (!set_key(s, k, v))
				return -1;
			have |= 1u << k;
		} else if (!strncmp(w, "reason=", 7)) {
			append_extra(s, w + 7);
		}
	}
	return have == 3 ? 1 : -1;
}

int bench_parse_line(const char *line, struct bench_sample *s)
{
	const char *p = line, *v;
	char w[WORD_MAX];
	unsigned int have = 0;

	memset(s, 0, sizeof(*s));
	if (!line || !next_word(&p, w, sizeof(w)))
		return -1;
	if (!strcmp(w, "BENCHSKIP"))
		return parse_skip(p, s);
	if (strcmp(w, "BENCH"))
		return -1;
	while (next_word(&p, w, sizeof(w))) {
		int k = key_index(w, &v);

		if (k < 0) {
			append_extra(s, w);
			continue;
		}
		if (have & (1u << k) || !set_key(s, k, v))
			return -1;
		have |= 1u << k;
	}
	return have == (1u << K_NKEYS) - 1 ? 0 : -1;
}

bool bench_word(const char *s, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);
	char w[WORD_MAX];

	while (s && next_word(&s, w, sizeof(w))) {
		if (!strncmp(w, key, kl) && w[kl] == '=') {
			if (len) {
				strncpy(buf, w + kl + 1, len - 1);
				buf[len - 1] = 0;
			}
			return true;
		}
	}
	return false;
}

double bench_timing_ms(const char *text, const char *what)
{
	size_t wl = strlen(what);

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t ll = nl ? (size_t)(nl - line) : strlen(line);
		char *end;
		double ms;

		if (ll >= wl && !strncmp(line + ll - wl, what, wl)) {
			ms = strtod(line, &end);
			if (end != line && ms >= 0)
				return ms;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -1;
}

/* reads + writes of the named ranges in the array bus. */
static double bookkeeping(const cJSON *root, const char *bus)
{
	static const char *const names[] = { "uart-com1", "boot-progress",
					     "test-exit" };
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, bus), *r;
	double n = 0;

	cJSON_ArrayForEach(r, arr) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(r, "name");

		if (!cJSON_IsString(name))
			continue;
		for (size_t i = 0; i < 3; i++) {
			if (strcmp(name->valuestring, names[i]))
				continue;
			for (int rw = 0; rw < 2; rw++) {
				const cJSON *c = cJSON_GetObjectItemCaseSensitive(
					r, rw ? "writes" : "reads");

				if (cJSON_IsNumber(c))
					n += c->valuedouble;
			}
		}
	}
	return n;
}

double bench_guest_exits(const char *json_text)
{
	cJSON *root = json_text ? cJSON_Parse(json_text) : NULL;
	const cJSON *exits, *e;
	double n = 0;

	exits = cJSON_GetObjectItemCaseSensitive(root, "exits");
	if (!cJSON_IsObject(exits)) {
		cJSON_Delete(root);
		return -1;
	}
	cJSON_ArrayForEach(e, exits)
		if (cJSON_IsNumber(e) && strcmp(e->string, "intr"))
			n += e->valuedouble;
	n -= bookkeeping(root, "pio");
	cJSON_Delete(root);
	return n < 0 ? 0 : n;
}
