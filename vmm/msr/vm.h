/* SPDX-License-Identifier: MIT */
/*
 * The MSR policy in a running VM: builds the table from the options,
 * installs the KVM filter and user-space MSR exits, answers exits for the
 * vCPU loop, and reports the MSRs the guest touched in --stats.
 */
#ifndef MINIVMM_MSR_VM_H
#define MINIVMM_MSR_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "vmm/cli/cli.h"
#include "vmm/msr/policy.h"

struct host;
struct vm;

/* The policy on host h: the CPUID layer (cpuid_layer.h), then
 * --msr-policy, --msr and --msr-default, in that order.
 * 0, or -1 after printing one "minivmm: error: FILE:LINE:COL: ..." line.
 * The caller frees p either way. */
int msr_policy_from_config(struct msr_policy *p, const struct vmm_config *cfg,
			   struct host *h, const char *policy_file);

/* --msr-policy-check FILE: print the effective table and the KVM filter it
 * compiles to.  Returns the exit status (0, or 2 for a bad policy). */
int msr_policy_check(const struct vmm_config *cfg, struct host *h, FILE *out);

/* Builds and compiles the table and opens host MSR devices: before KVM is
 * opened, so bad input is reported as such.  0, or -1 after printing why
 * (bad input: the caller exits with status 2). */
int msr_vm_prepare(struct vm *vm);
/* Enables MSR exits, installs the filter and the exit handler (after the
 * vCPUs exist).  0, or -1 after printing why (a host error). */
int msr_vm_install(struct vm *vm);
void msr_vm_destroy(struct vm *vm);

/* While the vCPUs are paused (QMP): sets (1), clears (0) or keeps (-1)
 * the log and count modifiers on every rule (x2APIC ones excepted) and
 * on the default, and installs the filter that follows.  *log_now and
 * *count_now: the default's flags after.  0, or -1 with one line in err
 * (nothing changed: the table would need more ranges than KVM has). */
int msr_vm_set_flags(struct vm *vm, int log, int count, bool *log_now,
		     bool *count_now, char *err, size_t errlen);

#endif
