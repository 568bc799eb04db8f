// SPDX-License-Identifier: MIT
#include "tools/test/xfail.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '+' ||
	       c == '-';
}

static int fail(char *err, const char *origin, int line, const char *fmt,
		...)
{
	int n = snprintf(err, XFAIL_ERR_MAX, "%.100s:%d: ", origin, line);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err + n, XFAIL_ERR_MAX - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* One line (s, n bytes, no newline) into x; 0 or -1. */
static int parse_line(const char *s, size_t n, const char *origin, int line,
		      struct xfail *x, char *err)
{
	struct xfail_entry *e;
	size_t i = 0, name, len, r;

	for (size_t k = 0; k < n; k++)
		if (s[k] == '#') {
			n = k;
			break;
		}
	while (i < n && blank(s[i]))
		i++;
	if (i == n)
		return 0;
	for (name = i; i < n && name_char(s[i]); i++)
		;
	len = i - name;
	if (i < n && !blank(s[i]))
		return fail(err, origin, line, "'%c' in a test name (A-Z a-z "
			    "0-9 _ . + - only)", s[i]);
	if (len >= MANIFEST_NAME_MAX || s[name] == '.')
		return fail(err, origin, line, "bad test name '%.*s' (1-%d "
			    "characters, not starting with '.')",
			    (int)(len > 64 ? 64 : len), s + name,
			    MANIFEST_NAME_MAX - 1);
	while (n > i && blank(s[n - 1]))
		n--;
	while (i < n && blank(s[i]))
		i++;
	r = n - i;
	if (!r)
		return fail(err, origin, line, "'%.*s' has no reason (NAME "
			    "REASON...)", (int)len, s + name);
	if (r >= XFAIL_REASON_MAX)
		return fail(err, origin, line, "reason longer than %d "
			    "characters", XFAIL_REASON_MAX - 1);
	if (x->n == MANIFEST_TESTS_MAX)
		return fail(err, origin, line, "more than %d entries",
			    MANIFEST_TESTS_MAX);
	e = realloc(x->e, (size_t)(x->n + 1) * sizeof(*e));
	if (!e)
		return fail(err, origin, line, "out of memory");
	x->e = e;
	e = &x->e[x->n];
	snprintf(e->name, sizeof(e->name), "%.*s", (int)len, s + name);
	if (xfail_reason(x, e->name))
		return fail(err, origin, line, "'%s' is listed twice",
			    e->name);
	snprintf(e->reason, sizeof(e->reason), "%.*s", (int)r, s + i);
	e->line = line;
	x->n++;
	return 0;
}

int xfail_parse(const char *text, size_t len, const char *origin,
		struct xfail *x, char *err)
{
	const char *p = text, *end = text + len;
	int line = 0;

	*x = (struct xfail){ 0 };
	err[0] = 0;
	if (memchr(text, 0, len))
		return fail(err, origin, 1, "a NUL byte: not a text file");
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (parse_line(p, n, origin, ++line, x, err) < 0) {
			xfail_free(x);
			return -1;
		}
		p += n + 1;
	}
	return 0;
}

void xfail_free(struct xfail *x)
{
	free(x->e);
	*x = (struct xfail){ 0 };
}

const char *xfail_reason(const struct xfail *x, const char *name)
{
	for (int i = 0; i < x->n; i++)
		if (!strcmp(x->e[i].name, name))
			return x->e[i].reason;
	return NULL;
}
