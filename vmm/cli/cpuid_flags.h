/* SPDX-License-Identifier: MIT */
/*
 * --cpuid +name,-name,...: CPUID feature bits by QEMU's names, shown or
 * hidden on top of what cpuid.c decides.  Parsing and the name table
 * only (pure; unit-tested); cpuid.c applies the edits.
 */
#ifndef MINIVMM_CPUID_FLAGS_H
#define MINIVMM_CPUID_FLAGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum cpuid_reg { CPUID_EAX, CPUID_EBX, CPUID_ECX, CPUID_EDX };

struct cpuid_feature {
	const char *name;		/* QEMU's spelling */
	uint32_t leaf, subleaf;
	enum cpuid_reg reg;
	unsigned int bit;
};

#define CPUID_EDITS_MAX		32

struct cpuid_edit {
	const struct cpuid_feature *f;
	bool set;			/* +name: true, -name: false */
};

struct cpuid_edits {
	int n;
	struct cpuid_edit e[CPUID_EDITS_MAX];
};

#define CPUID_ERR_MAX		128

/* Parses "+a,-b,..." (NULL or "": no edits).  -1 with err. */
int cpuid_flags_parse(const char *s, struct cpuid_edits *out, char *err);
/* The feature called name, or NULL. */
const struct cpuid_feature *cpuid_feature_find(const char *name);
/* Lists the names (--cpuid help). */
void cpuid_flags_list(FILE *out);

#endif
