/* SPDX-License-Identifier: MIT */
/*
 * A vCPU's KVM state as one section (SNAP_SEC_VCPU, instance = vCPU id):
 * general and special registers, the XSAVE area (x87, SSE, AVX...) and
 * XCR0, every MSR KVM lists (KVM_GET_MSR_INDEX_LIST: TSC, SYSCALL/
 * SYSENTER, PAT, kvmclock and other PV MSRs, TSC deadline...) and those
 * it leaves out (msr_extra.h: MTRRs, machine-check banks...), the local
 * APIC (registers, IRR/ISR, timer), pending events (exception, interrupt,
 * NMI, SIPI, interrupt shadow), debug registers, the MP state and the TSC
 * frequency.  Restored in QEMU's order: registers, XSAVE, XCRs, special
 * registers, MSRs, MP state, LAPIC, TSC deadline (it needs the LAPIC's
 * timer mode), events, debug registers.
 */
#ifndef MINIVMM_SNAPSHOT_VCPU_STATE_H
#define MINIVMM_SNAPSHOT_VCPU_STATE_H

#include <stdint.h>

struct snap_registry;

struct snap_vcpus;

/* Registers a section for each of the n vCPU fds (before the sandbox:
 * reads KVM's MSR list through sys_fd).  NULL after printing why. */
struct snap_vcpus *snap_vcpus_register(struct snap_registry *r, int sys_fd,
				       const int *fds, unsigned int n,
				       uint32_t xsave_size);
void snap_vcpus_free(struct snap_vcpus *s);

#endif
