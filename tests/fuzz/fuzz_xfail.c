// SPDX-License-Identifier: MIT
/*
 * minivmm test's --xfail file on hostile text (the parser), and the
 * --filter globs of its first line against every name it holds.  Checked:
 * a failed parse leaves no entries and a one-line message; a parsed file
 * has names of the manifest's characters, each once and found again by
 * xfail_reason, and reasons that are non-empty, one line, without '#' and
 * without blanks at either end; filter_match never reads past its
 * strings.
 */
#include "tests/fuzz/fuzz_util.h"
#include "tools/test/filter.h"
#include "tools/test/xfail.h"

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || strchr("_.+-", c);
}

static void check_entry(const struct xfail *x, int i)
{
	const struct xfail_entry *e = &x->e[i];
	size_t n = strlen(e->name), r = strlen(e->reason);

	FZ_CHECK(n && n < MANIFEST_NAME_MAX && e->name[0] != '.',
		 "bad name length");
	for (size_t k = 0; k < n; k++)
		FZ_CHECK(name_char(e->name[k]), "bad name character");
	FZ_CHECK(xfail_reason(x, e->name) == e->reason, "duplicate name");
	FZ_CHECK(r && r < XFAIL_REASON_MAX, "bad reason length");
	FZ_CHECK(!strpbrk(e->reason, "#\n") && e->reason[0] != ' ' &&
		 e->reason[0] != '\t' && e->reason[r - 1] != ' ' &&
		 e->reason[r - 1] != '\t' && e->reason[r - 1] != '\r',
		 "reason not trimmed to one line");
	FZ_CHECK(e->line >= 1, "line %d", e->line);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl = memchr(data, '\n', size);
	size_t flen = nl ? (size_t)(nl - (const char *)data) : size;
	char err[XFAIL_ERR_MAX], *filter;
	struct xfail x;

	filter = malloc(flen + 1);
	FZ_CHECK(filter, "malloc");
	memcpy(filter, data, flen);
	filter[flen] = 0;
	if (xfail_parse((const char *)data, size, "fuzz.txt", &x, err) < 0) {
		FZ_CHECK(!x.n && !x.e, "failed parse kept entries");
		FZ_CHECK(memchr(err, 0, sizeof(err)) && err[0] &&
			 !strchr(err, '\n'), "bad message");
		free(filter);
		return 0;
	}
	for (int i = 0; i < x.n; i++) {
		check_entry(&x, i);
		(void)filter_match(filter, x.e[i].name);
	}
	xfail_free(&x);
	free(filter);
	return 0;
}
