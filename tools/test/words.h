/* SPDX-License-Identifier: MIT */
/*
 * Shell words, as the suite's scripts hand test_args and qemu_params to
 * eval: blanks and newlines separate words, single quotes keep everything,
 * double quotes keep all but \" \\ \$ \` escapes, a backslash outside
 * quotes escapes the next character.  What would need a shell to expand
 * (`...`, $..., globs, redirections, ';', '|', '&') is refused with a
 * reason rather than run: the runner executes nothing from a manifest.
 */
#ifndef MINIVMM_TEST_WORDS_H
#define MINIVMM_TEST_WORDS_H

#define WORDS_MAX	128
#define WORDS_ERR_MAX	128

struct words {
	int n;
	char *w[WORDS_MAX];
};

/* 0, or -1 with err saying what is not supported.  Free with words_free
 * (also after an error). */
int words_split(const char *s, struct words *out, char *err);
void words_free(struct words *w);
/* The words joined by single blanks into buf (size bytes, truncated). */
void words_join(const struct words *w, int from, char *buf, unsigned long size);

#endif
