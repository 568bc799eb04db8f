/* SPDX-License-Identifier: MIT */
/*
 * MSR names: the architectural (and KVM paravirtual) MSR indices a user of
 * the MSR policy is likely to write, with their aliases.  Owns the name
 * table only; lookups are case-insensitive and accept a "MSR_" prefix.
 */
#ifndef MINIVMM_MSR_NAMES_H
#define MINIVMM_MSR_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The canonical name of index, or NULL if it has none. */
const char *msr_name(uint32_t index);

/* Looks up len bytes of name (not NUL-terminated).  True and *index on a
 * match; "msr_ia32_tsc", "IA32_TSC" and "tsc" all name 0x10. */
bool msr_lookup_name(const char *name, size_t len, uint32_t *index);

/* For tests and --help: the number of table entries and entry i (aliases
 * included; *alias tells which). */
size_t msr_name_count(void);
const char *msr_name_at(size_t i, uint32_t *index, bool *alias);

#endif
