/* SPDX-License-Identifier: MIT */
/*
 * The CPUID a vCPU sees: KVM's supported set, adjusted for minivmm's
 * machine and for this host (see cpuid.c for each adjustment).
 */
#ifndef MINIVMM_CPUID_H
#define MINIVMM_CPUID_H

#include <stdbool.h>
#include <stdint.h>

struct host;
struct vcpu;
struct kvm_cpuid2;

/* The CPUID every vCPU gets, before the per-vCPU fields (APIC ids): KVM's
 * supported set with minivmm's adjustments, the host's (h) and the --cpuid
 * edits (flags, may be NULL).  malloc'ed; NULL if KVM refuses. */
struct kvm_cpuid2 *cpuid_guest_table(struct host *h, int kvm_fd,
				     const char *flags);
/* One bit of a table (reg 0-3: eax-edx); false if the leaf is absent. */
bool cpuid_table_has(const struct kvm_cpuid2 *c, uint32_t leaf,
		     uint32_t subleaf, int reg, unsigned int bit);

/* Sets vCPU v's CPUID (of ncpus in all) on host h; kvm_fd is /dev/kvm's,
 * flags the --cpuid edits (NULL: none). */
int cpuid_setup(struct host *h, int kvm_fd, unsigned int ncpus,
		const char *flags, struct vcpu *v);

#endif
