/* SPDX-License-Identifier: MIT */
/*
 * Expected failures (--xfail FILE): one test a line, its name and then
 * why it fails, '#' starting a comment anywhere on a line:
 *
 *	# kvm-unit-tests on this host
 *	emulator   MMX in ring 0: the host's ring-0 emulator has no movd
 *
 * A listed test that fails or times out is XFAIL, one that passes XPASS.
 * Names are checked against the manifest by the caller; here a line is
 * refused for a bad name (the manifest's characters), a name listed twice,
 * or a missing reason.  Pure: unit-tested and fuzzed.
 */
#ifndef MINIVMM_TEST_XFAIL_H
#define MINIVMM_TEST_XFAIL_H

#include <stddef.h>

#include "tools/test/manifest.h"

#define XFAIL_REASON_MAX	200
#define XFAIL_ERR_MAX		256

struct xfail_entry {
	char name[MANIFEST_NAME_MAX];
	char reason[XFAIL_REASON_MAX];
	int line;
};

struct xfail {
	struct xfail_entry *e;
	int n;
};

/* Parses text (len bytes) from origin (for messages).  0, or -1 with err
 * = "ORIGIN:LINE: what" and x empty. */
int xfail_parse(const char *text, size_t len, const char *origin,
		struct xfail *x, char *err);
void xfail_free(struct xfail *x);

/* The reason name is expected to fail, or NULL. */
const char *xfail_reason(const struct xfail *x, const char *name);

#endif
