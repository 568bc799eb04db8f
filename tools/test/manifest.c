// SPDX-License-Identifier: MIT
#include "tools/test/manifest.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const char *p, *end;
	const char *origin;
	int line;
	struct manifest *m;
	char *err;
};

enum key { K_FILE, K_SMP, K_TEST_ARGS, K_QEMU_PARAMS, K_EXTRA_PARAMS,
	   K_MINIVMM_PARAMS, K_ARCH, K_GROUPS, K_TIMEOUT, K_CHECK, K_ACCEL,
	   K_MACHINE, K_DISABLED_IF, K_POWEROFF, K_SNAPSHOT, K_NONE };

static const char *const keys[K_NONE] = {
	"file", "smp", "test_args", "qemu_params", "extra_params",
	"minivmm_params", "arch", "groups", "timeout", "check", "accel",
	"machine", "disabled_if", "poweroff", "snapshot",
};

static int fail(struct parser *ps, const char *fmt, ...)
{
	size_t n = (size_t)snprintf(ps->err, MANIFEST_ERR_MAX, "%.100s:%d: ",
				    ps->origin, ps->line);
	va_list ap;

	/* Truncation is fine: the message stays one terminated line. */
	va_start(ap, fmt);
	vsnprintf(ps->err + n, MANIFEST_ERR_MAX - n, fmt, ap);
	va_end(ap);
	return -1;
}

int manifest_has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	if (!n)
		return 0;
	for (const char *p = list; (p = strstr(p, word)); p++)
		if ((p == list || p[-1] == ' ' || p[-1] == '\t') &&
		    (!p[n] || p[n] == ' ' || p[n] == '\t'))
			return 1;
	return 0;
}

int manifest_parse_duration(const char *s, double *seconds)
{
	char *end;
	double v;

	size_t digits = strspn(s, "0123456789.");

	/* decimal only, as timeout(1) takes it (strtod would read hex) */
	if (!digits || (s[digits] && s[digits + 1]))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -1;
	switch (*end) {
	case 0: case 's': break;
	case 'm': v *= 60; break;
	case 'h': v *= 3600; break;
	case 'd': v *= 86400; break;
	default: return -1;
	}
	if (*end && end[1])
		return -1;
	*seconds = v;
	return 0;
}

/* The next line without its newline, trimmed of blanks at both ends if
 * trim (as bash's read does); false at the end of the text. */
static bool next_line(struct parser *ps, const char **s, size_t *n, bool trim)
{
	const char *nl;

	if (ps->p >= ps->end)
		return false;
	nl = memchr(ps->p, '\n', (size_t)(ps->end - ps->p));
	*s = ps->p;
	*n = nl ? (size_t)(nl - ps->p) : (size_t)(ps->end - ps->p);
	ps->p += *n + (nl != NULL);
	ps->line++;
	while (trim && *n && ((*s)[0] == ' ' || (*s)[0] == '\t')) {
		(*s)++;
		(*n)--;
	}
	while (*n && ((*s)[*n - 1] == '\r' ||
		      (trim && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))))
		(*n)--;
	return true;
}

static bool name_ok(const char *s, size_t n)
{
	if (!n || n >= MANIFEST_NAME_MAX || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || strchr("_.+-", s[i])))
			return false;
	return true;
}

static int new_test(struct parser *ps, const char *s, size_t n)
{
	struct manifest *m = ps->m;
	struct manifest_test *t;

	if (!name_ok(s, n))
		return fail(ps, "test name '[%.*s]': expected 1-%d of "
			    "A-Z a-z 0-9 _ . + -", (int)(n > 64 ? 64 : n), s,
			    MANIFEST_NAME_MAX - 1);
	if (m->n == MANIFEST_TESTS_MAX)
		return fail(ps, "more than %d tests", MANIFEST_TESTS_MAX);
	t = realloc(m->t, (size_t)(m->n + 1) * sizeof(*t));
	if (!t)
		return fail(ps, "out of memory");
	m->t = t;
	t = &m->t[m->n];
	memset(t, 0, sizeof(*t));
	memcpy(t->name, s, n);
	t->line = ps->line;
	t->smp = 1;
	if (manifest_find(m, t->name) >= 0)
		return fail(ps, "test '%s' is defined twice", t->name);
	m->n++;
	return 0;
}

/* "key = value": the key at the start, blanks (spaces) around '='. */
static enum key match_key(const char *s, size_t n, const char **val,
			  size_t *vlen)
{
	for (int k = 0; k < K_NONE; k++) {
		size_t kl = strlen(keys[k]), i = kl;

		if (n < kl || memcmp(s, keys[k], kl))
			continue;
		while (i < n && s[i] == ' ')
			i++;
		if (i == n || s[i] != '=')
			continue;
		for (i++; i < n && s[i] == ' '; i++)
			;
		*val = s + i;
		*vlen = n - i;
		return (enum key)k;
	}
	return K_NONE;
}

static char **slot(struct manifest_test *t, enum key k)
{
	switch (k) {
	case K_FILE:		return &t->file;
	case K_TEST_ARGS:	return &t->test_args;
	case K_QEMU_PARAMS:
	case K_EXTRA_PARAMS:	return &t->qemu_params;
	case K_MINIVMM_PARAMS:	return &t->minivmm_params;
	case K_ARCH:		return &t->arch;
	case K_GROUPS:		return &t->groups;
	case K_CHECK:		return &t->check;
	case K_ACCEL:		return &t->accel;
	case K_MACHINE:		return &t->machine;
	case K_DISABLED_IF:	return &t->disabled_if;
	case K_POWEROFF:	return &t->poweroff;
	case K_SNAPSHOT:	return &t->snapshot;
	default:		return NULL;
	}
}

/* A value growing line by line, capped at MANIFEST_VALUE_MAX. */
struct value {
	char buf[MANIFEST_VALUE_MAX + 1];
	size_t len;
};

static int add(struct parser *ps, struct value *v, const char *s, size_t n)
{
	if (n > MANIFEST_VALUE_MAX - v->len)
		return fail(ps, "value longer than %d bytes",
			    MANIFEST_VALUE_MAX);
	memcpy(v->buf + v->len, s, n);
	v->len += n;
	v->buf[v->len] = 0;
	return 0;
}

/* The lines after 'key = """...' up to the closing '"""'; a line ending
 * in an odd number of backslashes joins the next. */
static int multi_line(struct parser *ps, struct value *v)
{
	const char *s;
	size_t n;
	int start = ps->line;

	if (add(ps, v, "\n", 1) < 0)
		return -1;
	while (next_line(ps, &s, &n, false)) {
		size_t k = n, bs = 0;
		const char *q = NULL;

		while (k && (s[k - 1] == ' ' || s[k - 1] == '\t'))
			k--;
		if (k >= 3 && !memcmp(s + k - 3, "\"\"\"", 3))
			q = s + k - 3;
		for (size_t i = v->len - 1; i > 0 && v->buf[i - 1] == '\\'; i--)
			bs++;
		if (bs % 2)
			v->len -= 2;	/* backslash-newline: joined */
		if (q)
			return add(ps, v, s, (size_t)(q - s));
		if (add(ps, v, s, n) < 0 || add(ps, v, "\n", 1) < 0)
			return -1;
	}
	ps->line = start;
	return fail(ps, "'\"\"\"' value not closed");
}

static int set_number(struct parser *ps, struct manifest_test *t, enum key k,
		      const char *val)
{
	char *end;
	unsigned long n;

	if (k == K_TIMEOUT) {
		if (manifest_parse_duration(val, &t->timeout) < 0)
			return fail(ps, "timeout '%.64s': expected seconds "
				    "(30, 90s, 2m)", val);
		return 0;
	}
	errno = 0;
	n = strtoul(val, &end, 10);
	if (errno || end == val || *end || *val == '-' || n < 1 ||
	    n > MANIFEST_SMP_MAX)
		return fail(ps, "smp '%.64s': expected 1..%d", val,
			    MANIFEST_SMP_MAX);
	t->smp = (unsigned int)n;
	return 0;
}

static int key_line(struct parser *ps, enum key k, const char *s, size_t n)
{
	struct manifest_test *t = &ps->m->t[ps->m->n - 1];
	struct value *v = malloc(sizeof(*v));
	char **dst;
	int ret = -1;

	if (!v)
		return fail(ps, "out of memory");
	v->len = 0;
	v->buf[0] = 0;
	if ((k == K_QEMU_PARAMS || k == K_EXTRA_PARAMS ||
	     k == K_MINIVMM_PARAMS) && n >= 3 && !memcmp(s, "\"\"\"", 3)) {
		if (add(ps, v, s + 3, n - 3) < 0 || multi_line(ps, v) < 0)
			goto out;
	} else if (add(ps, v, s, n) < 0) {
		goto out;
	}
	if (k == K_SMP || k == K_TIMEOUT) {
		ret = set_number(ps, t, k, v->buf);
		goto out;
	}
	dst = slot(t, k);
	free(*dst);
	*dst = strdup(v->buf);
	ret = *dst ? 0 : fail(ps, "out of memory");
out:
	free(v);
	return ret;
}

static int defaults(struct manifest *m)
{
	for (int i = 0; i < m->n; i++)
		for (int k = 0; k < K_NONE; k++) {
			char **d = slot(&m->t[i], (enum key)k);

			if (d && !*d && !(*d = strdup("")))
				return -1;
		}
	return 0;
}

int manifest_parse(const char *text, size_t len, const char *origin,
		   struct manifest *m, char *err)
{
	struct parser ps = { text, text + len, origin, 0, m, err };
	const char *s, *val;
	size_t n, vlen;

	memset(m, 0, sizeof(*m));
	if (memchr(text, 0, len)) {
		snprintf(err, MANIFEST_ERR_MAX, "%s: a NUL byte: not a text "
			 "file", origin);
		return -1;
	}
	while (next_line(&ps, &s, &n, true)) {
		enum key k;

		if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
			if (new_test(&ps, s + 1, n - 2) < 0)
				goto fail;
			continue;
		}
		k = match_key(s, n, &val, &vlen);
		if (k == K_NONE || !m->n)
			continue;	/* comments, unknown keys */
		if (key_line(&ps, k, val, vlen) < 0)
			goto fail;
	}
	if (defaults(m) == 0)
		return 0;
	snprintf(err, MANIFEST_ERR_MAX, "%s: out of memory", origin);
fail:
	manifest_free(m);
	return -1;
}

void manifest_free(struct manifest *m)
{
	for (int i = 0; i < m->n; i++)
		for (int k = 0; k < K_NONE; k++) {
			char **d = slot(&m->t[i], (enum key)k);

			if (d) {
				free(*d);
				*d = NULL;
			}
		}
	free(m->t);
	m->t = NULL;
	m->n = 0;
}

int manifest_find(const struct manifest *m, const char *name)
{
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->t[i].name, name))
			return i;
	return -1;
}
