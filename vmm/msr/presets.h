/* SPDX-License-Identifier: MIT */
/*
 * The built-in MSR policies (kvm, xen-strict, xen-relaxed, therm-compat) as
 * rule text the parser reads like a file, and the rule-syntax help.  Data
 * only: this module calls nothing.
 */
#ifndef MINIVMM_MSR_PRESETS_H
#define MINIVMM_MSR_PRESETS_H

#include <stddef.h>

/* Multi-line help on the rule syntax and the presets, for --help. */
const char *msr_policy_help(void);
/* The rule lines of a built-in preset (NULL-terminated), matched
 * case-insensitively; *canonical gets its name.  NULL if unknown. */
const char *const *msr_preset_rules(const char *name, size_t len,
				    const char **canonical);

#endif
