// SPDX-License-Identifier: MIT
/*
 * Command-line lookup: space-separated words, "key" or "key=value".
 */
#include "guest.h"

/* The value after "word=" or "" after a bare "word"; NULL if absent. */
static const char *find_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	while (*s) {
		while (*s == ' ')
			s++;
		if (!strncmp(s, word, n) && (s[n] == '=' || s[n] == ' ' ||
					    !s[n]))
			return s[n] == '=' ? s + n + 1 : s + n;
		while (*s && *s != ' ')
			s++;
	}
	return NULL;
}

bool cmdline_has(const char *cmdline, const char *word)
{
	return cmdline && *word && find_word(cmdline, word);
}

static int digit_value(char c, unsigned int base)
{
	unsigned int d;

	if (c >= '0' && c <= '9')
		d = c - '0';
	else if (c >= 'a' && c <= 'f')
		d = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		d = c - 'A' + 10;
	else
		return -1;
	return d < base ? (int)d : -1;
}

bool cmdline_u64(const char *cmdline, const char *key, uint64_t *val)
{
	const char *s;
	unsigned int base = 10;
	uint64_t v = 0;
	int d;

	if (!cmdline || !*key)
		return false;
	s = find_word(cmdline, key);
	if (!s)
		return false;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (digit_value(*s, base) < 0)
		return false;
	for (; (d = digit_value(*s, base)) >= 0; s++) {
		if (v > (UINT64_MAX - d) / base)
			return false;	/* overflow */
		v = v * base + d;
	}
	if (*s && *s != ' ')
		return false;
	*val = v;
	return true;
}
