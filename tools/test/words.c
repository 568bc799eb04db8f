// SPDX-License-Identifier: MIT
#include "tools/test/words.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, const char *what, char c)
{
	snprintf(err, WORDS_ERR_MAX, "'%c' needs a shell (%s), which minivmm "
		 "test does not run", c, what);
	return -1;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* Reads one word from *p into buf (at least strlen(*p) + 1 bytes). */
static int word(const char **p, char *buf, char *err)
{
	const char *s = *p;
	size_t n = 0;

	while (*s && !blank(*s)) {
		char c = *s++;

		if (c == '\'') {
			const char *q = strchr(s, '\'');

			if (!q) {
				snprintf(err, WORDS_ERR_MAX, "unterminated '");
				return -1;
			}
			memcpy(buf + n, s, (size_t)(q - s));
			n += (size_t)(q - s);
			s = q + 1;
		} else if (c == '"') {
			while (*s && *s != '"') {
				if (*s == '$' || *s == '`')
					return fail(err, "expansion", *s);
				if (*s == '\\' && s[1] && strchr("\"\\$`", s[1]))
					s++;
				buf[n++] = *s++;
			}
			if (!*s) {
				snprintf(err, WORDS_ERR_MAX, "unterminated \"");
				return -1;
			}
			s++;
		} else if (c == '\\') {
			if (*s && *s != '\n')
				buf[n++] = *s;
			if (*s)
				s++;
		} else if (strchr("$`", c)) {
			return fail(err, "expansion", c);
		} else if (strchr(";|&<>()*?[]{}~#", c)) {
			return fail(err, "shell syntax", c);
		} else {
			buf[n++] = c;
		}
	}
	buf[n] = 0;
	*p = s;
	return 0;
}

int words_split(const char *s, struct words *out, char *err)
{
	char *buf = malloc(strlen(s) + 1);

	memset(out, 0, sizeof(*out));
	if (!buf) {
		snprintf(err, WORDS_ERR_MAX, "out of memory");
		return -1;
	}
	for (;;) {
		while (blank(*s))
			s++;
		if (!*s)
			break;
		if (out->n == WORDS_MAX) {
			snprintf(err, WORDS_ERR_MAX, "more than %d words",
				 WORDS_MAX);
			goto fail;
		}
		if (word(&s, buf, err) < 0)
			goto fail;
		out->w[out->n] = strdup(buf);
		if (!out->w[out->n++]) {
			snprintf(err, WORDS_ERR_MAX, "out of memory");
			goto fail;
		}
	}
	free(buf);
	return 0;
fail:
	free(buf);
	return -1;
}

void words_free(struct words *w)
{
	for (int i = 0; i < w->n; i++)
		free(w->w[i]);
	w->n = 0;
}

void words_join(const struct words *w, int from, char *buf,
		unsigned long size)
{
	size_t n = 0;

	if (!size)
		return;
	buf[0] = 0;
	for (int i = from; i < w->n; i++)
		n += (size_t)snprintf(buf + (n < size ? n : size - 1),
				      n < size ? size - n : 1, "%s%s",
				      i > from ? " " : "", w->w[i]);
}
