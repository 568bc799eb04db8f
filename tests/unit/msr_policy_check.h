/* SPDX-License-Identifier: MIT */
/*
 * Shared by the MSR policy tests (check_msr_policy.c, check_msr_presets.c):
 * a policy per test, rules added as from --msr, and lookups formatted for
 * comparison.
 */
#ifndef MINIVMM_TESTS_MSR_POLICY_CHECK_H
#define MINIVMM_TESTS_MSR_POLICY_CHECK_H

#include "tests/unit/unit.h"
#include "vmm/msr/policy.h"

/* The policy under test and the last error, one per test program. */
static struct msr_policy P;
static char err[1024];

static inline void setup(void)
{
	msr_policy_init(&P);
	err[0] = '\0';
}

static inline void teardown(void)
{
	msr_policy_free(&P);
}

static inline void add(const char *rule)
{
	int rc = msr_policy_add_line(&P, "--msr", 1, rule, err, sizeof(err));

	ck_assert_msg(rc == 0, "rule \"%s\" failed: %s", rule, err);
}

static inline struct msr_entry rd(uint32_t i)
{
	return msr_policy_lookup(&P, i, MSR_READ);
}

static inline struct msr_entry wr(uint32_t i)
{
	return msr_policy_lookup(&P, i, MSR_WRITE);
}

static inline const char *fmt(struct msr_entry e)
{
	static char buf[4][64];
	static int k;

	k = (k + 1) % 4;
	msr_entry_format(buf[k], sizeof(buf[k]), &e);
	return buf[k];
}

/* Both directions of index format as r and w. */
static inline void expect(uint32_t index, const char *r, const char *w)
{
	ck_assert_msg(!strcmp(fmt(rd(index)), r), "0x%x read: %s, want %s",
		      index, fmt(rd(index)), r);
	ck_assert_msg(!strcmp(fmt(wr(index)), w), "0x%x write: %s, want %s",
		      index, fmt(wr(index)), w);
}

#endif
