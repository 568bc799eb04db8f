/* SPDX-License-Identifier: MIT */
/*
 * The MSRs the architecture and KVM cover: those every x86-64 guest needs
 * to boot and KVM emulates itself (long mode and system-call MSRs, segment
 * bases, TSC, TSC_AUX and TSC deadline, APIC base, PAT, MTRRs, SYSENTER,
 * MISC_ENABLE, the machine-check capability and status, the microcode
 * revision, KVM's paravirtual MSRs).  A `default deny` or `default ignore`
 * (--msr-default) does not reach them: the default is for MSRs that
 * neither a rule nor this list covers.  Rules still override them.  Data
 * and lookups only.
 */
#ifndef MINIVMM_MSR_ARCH_H
#define MINIVMM_MSR_ARCH_H

#include <stdbool.h>
#include <stdint.h>

/* True if index is in the list. */
bool msr_arch_covers(uint32_t index);
/* The smallest MSR index > from where membership changes (one past a
 * listed range's end, or a range's start), or 2^32. */
uint64_t msr_arch_next_edge(uint64_t from);

#endif
