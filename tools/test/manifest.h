/* SPDX-License-Identifier: MIT */
/*
 * The kvm-unit-tests manifest (unittests.cfg) as data, parsed the way the
 * suite's for_each_unittest reads it: "[name]" starts a test, "key = value"
 * lines (the key at the start of the line) fill it, '"""' opens a value
 * that runs over several lines, anything else (comments, unknown keys) is
 * ignored.  Keys: file, smp, test_args, qemu_params (extra_params is the
 * same), arch, groups, timeout, check, accel, machine, disabled_if, and
 * minivmm's own: minivmm_params (more options for minivmm's runs) and
 * poweroff ("pass": an ACPI power-off ends the test successfully, as
 * minivmm's firmware payloads do; the suite counts it a failure) and
 * snapshot ("port": the payload asks for a snapshot at its ready point
 * and then reads its test_args from the control page's ARGS=, so the
 * runner boots it once per machine and restores it per test; see
 * tools/test/snap.h).  Values
 * are kept as text; smp and timeout are checked here.  Pure: unit-tested
 * and fuzzed on hostile text.
 */
#ifndef MINIVMM_TEST_MANIFEST_H
#define MINIVMM_TEST_MANIFEST_H

#include <stddef.h>

#define MANIFEST_NAME_MAX	64
#define MANIFEST_VALUE_MAX	4096	/* one value, multi-line included */
#define MANIFEST_TESTS_MAX	1024
#define MANIFEST_ERR_MAX	256
#define MANIFEST_DEFAULT_TIMEOUT 90.0	/* seconds, as the suite's */
#define MANIFEST_SMP_MAX	255

struct manifest_test {
	char name[MANIFEST_NAME_MAX];
	int line;			/* of the [name] header */
	char *file;			/* "" if absent */
	unsigned int smp;		/* 1 if absent */
	char *test_args;		/* "" if absent: shell words */
	char *qemu_params;		/* "" if absent: shell words */
	char *minivmm_params;		/* "" if absent: shell words */
	char *arch, *groups, *check, *accel, *machine, *disabled_if;
	char *poweroff;			/* "pass" or "" */
	char *snapshot;			/* "port" or "" */
	double timeout;			/* seconds; 0 if absent */
};

struct manifest {
	struct manifest_test *t;
	int n;
};

/* Parses text (len bytes; NUL bytes are an error) from origin (a name for
 * messages).  0, or -1 with err = "ORIGIN:LINE: what".  m is empty on
 * error. */
int manifest_parse(const char *text, size_t len, const char *origin,
		   struct manifest *m, char *err);
void manifest_free(struct manifest *m);

/* The index of the test called name, or -1. */
int manifest_find(const struct manifest *m, const char *name);
/* True if word is one of the blank-separated words of list. */
int manifest_has_word(const char *list, const char *word);
/* A timeout(1) duration: a non-negative number with an optional s, m, h
 * or d suffix.  0, or -1 if s is not one. */
int manifest_parse_duration(const char *s, double *seconds);

#endif
