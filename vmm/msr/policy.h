/* SPDX-License-Identifier: MIT */
/*
 * The MSR policy table: rules (from files, --msr strings and presets), the
 * effective table they produce, and its printout.  Owns parsing and the
 * table; compiling it into a KVM filter is filter.h, answering exits is
 * exit.h.  No I/O except reading a policy file.
 *
 * The table is table.c, the rule parser parse.c, the built-in presets
 * presets.h.
 *
 * Rule syntax, one rule per line (files) or per --msr string:
 *
 *	MSR[-MSR] [r|w|rw] ACTION[,MODIFIER...]	# comment
 *	default allow|deny|ignore[,log][,count]
 *	preset:NAME
 *
 * MSR is a number (0x hex or decimal; leading zeros do not mean octal) or a
 * name from names.h, case-insensitive.  The direction defaults to rw.
 * ACTION is one of
 *	allow		KVM handles the access in the kernel (no exit)
 *	deny		#GP
 *	ignore		reads return 0, writes are dropped
 *	value=V		reads return V, writes are dropped
 *	emulate[=V]	per-vCPU register: reads return the last value this
 *			vCPU wrote, initially V (0)
 *	host[=V]	reads return the host's value of the MSR on the host CPU
 *			the vCPU runs on (/dev/cpu/N/msr), writes are dropped;
 *			with =V, V is returned when the host read fails (else #GP)
 * MODIFIERs: log (report every access), count (always count; forces an exit
 * for allow), wgp (writes raise #GP instead of being dropped; only for
 * ignore, value and host).  So `0x19a value=0x10,wgp` reads 0x10 and faults
 * on writes.  minivmm never writes a host MSR.
 *
 * Later rules win, per MSR and per direction.  `default` sets what MSRs no
 * rule names get (allow unless said otherwise); the last one wins.  A
 * default of deny or ignore leaves the architectural MSRs (arch.h: EFER,
 * PAT, MTRRs, ...) to KVM: it is for MSRs neither a rule nor the
 * architecture covers.  A preset
 * expands in place, so rules after it refine it.  x2APIC MSRs 0x800-0x8ff
 * are always handled by KVM: rules there may only allow.
 *
 * Errors are one line, "FILE:LINE:COLUMN: error: MESSAGE", written to the
 * caller's buffer; the caller exits with status 2.  After an error the
 * policy may hold part of the input: free it.
 */
#ifndef MINIVMM_MSR_POLICY_H
#define MINIVMM_MSR_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum msr_dir { MSR_READ = 0, MSR_WRITE = 1 };

enum msr_action {
	MSR_ACT_NONE = 0,	/* no rule: the default applies (spans only) */
	MSR_ACT_ALLOW,
	MSR_ACT_DENY,
	MSR_ACT_IGNORE,		/* read 0; on the write side: drop */
	MSR_ACT_VALUE,		/* read side only; writes become IGNORE */
	MSR_ACT_EMULATE,
	MSR_ACT_HOST,		/* read side only; writes become IGNORE */
};

#define MSR_F_LOG	0x01u
#define MSR_F_COUNT	0x02u
#define MSR_F_FALLBACK	0x04u	/* host=V: value is the fallback */
#define MSR_F_DEFAULT	0x08u	/* from the default, not a rule (lookups) */

/* What happens to one direction of one MSR. */
struct msr_entry {
	uint8_t action;		/* enum msr_action */
	uint8_t flags;		/* MSR_F_* */
	uint32_t origin;	/* msr_policy_origin(): where the rule came from */
	uint64_t value;		/* value=V, emulate=V, host=V; else 0 */
};

/* Origins that are no rule: the built-in default, the x2APIC MSRs
 * (always KVM's, shown as allow), and the architectural MSRs a deny or
 * ignore default does not reach (arch.h). */
#define MSR_ORIGIN_DEFAULT	0u
#define MSR_ORIGIN_X2APIC	1u
#define MSR_ORIGIN_ARCH		2u

/* [first, last] (inclusive) with one entry per enum msr_dir. */
struct msr_span {
	uint32_t first, last;
	struct msr_entry e[2];
};

struct msr_policy {
	struct msr_entry def;		/* the default (allow, deny, ignore) */
	struct msr_span *spans;		/* sorted, disjoint, rules only */
	size_t nspans, cap;
	char **origins;			/* "FILE:LINE:COL" of each rule */
	uint32_t norigins, origins_cap;
	unsigned int depth;		/* preset nesting */
};

/* x2APIC: KVM never filters or forwards these. */
#define MSR_X2APIC_FIRST	0x800u
#define MSR_X2APIC_LAST		0x8ffu

void msr_policy_init(struct msr_policy *p);	/* default allow, no rules */
void msr_policy_free(struct msr_policy *p);

/* "preset:NAME" or a policy file. 0 or -1 with err filled. */
int msr_policy_load(struct msr_policy *p, const char *path_or_preset,
		    char *err, size_t errlen);
int msr_policy_load_file(struct msr_policy *p, const char *path,
			 char *err, size_t errlen);
/* One rule line; src and line only label errors and origins.  For --msr
 * use src "--msr" and line 1. */
int msr_policy_add_line(struct msr_policy *p, const char *src,
			unsigned int line, const char *text,
			char *err, size_t errlen);
/* Shorthand for `default TEXT`, e.g. from --msr-default. */
int msr_policy_set_default(struct msr_policy *p, const char *src,
			   const char *text, char *err, size_t errlen);

/* The effective entry for one access; MSR_F_DEFAULT set if no rule named
 * it.  Never MSR_ACT_NONE. */
struct msr_entry msr_policy_lookup(const struct msr_policy *p, uint32_t index,
				   enum msr_dir dir);
/* The whole 32-bit space as merged spans with the default filled in
 * (x2APIC shown as allow).  Returns the count and a malloc'ed array in
 * *out, or 0 on allocation failure. */
size_t msr_policy_effective(const struct msr_policy *p, struct msr_span **out);
/* True if any effective entry uses host (exit.h must then open the
 * host MSR devices). */
bool msr_policy_uses_host(const struct msr_policy *p);
/* "FILE:LINE:COL", "--msr:1:5", "preset:xen-strict:3:1", ... */
const char *msr_policy_origin(const struct msr_policy *p, uint32_t origin);

const char *msr_action_name(enum msr_action a);
/* "value=0x10,log", "deny", ... into buf (always terminated). */
void msr_entry_format(char *buf, size_t len, const struct msr_entry *e);
/* Entries that behave alike (origin and MSR_F_DEFAULT ignored). */
bool msr_entry_same(const struct msr_entry *a, const struct msr_entry *b);
/* True if KVM may handle the access in the kernel (plain allow). */
bool msr_entry_in_kernel(const struct msr_entry *e);

/* The effective table for --msr-policy-check. */
void msr_policy_print(const struct msr_policy *p, FILE *out);

#endif
