/* SPDX-License-Identifier: MIT */
/*
 * The CPUID a vCPU sees: KVM's supported set, adjusted for minivmm's
 * machine and for this host (see cpuid.c for each adjustment).
 */
#ifndef MINIVMM_CPUID_H
#define MINIVMM_CPUID_H

struct vcpu;

/* Sets vCPU v's CPUID (of ncpus in all); kvm_fd is /dev/kvm's, flags
 * the --cpuid edits (NULL: none). */
int cpuid_setup(int kvm_fd, unsigned int ncpus, const char *flags,
		struct vcpu *v);

#endif
