/* SPDX-License-Identifier: MIT */
/*
 * The MSRs a snapshot must carry that KVM_GET_MSR_INDEX_LIST leaves out.
 * KVM holds them per vCPU, the guest sets them, and KVM_GET/SET_MSRS
 * reach them, but the index list does not name them (QEMU saves them by
 * its own list, target/i386/kvm/kvm.c):
 *	- the MTRRs: MTRRdefType, the eleven fixed-range MTRRs (if MTRRcap
 *	  says FIX) and the MTRRphysBase/Mask pairs MTRRcap's VCNT counts
 *	- PAT (listed by current KVMs; kept here so no KVM drops it)
 *	- the machine-check banks MCG_CAP counts: MCi_CTL, _STATUS, _ADDR,
 *	  _MISC, and MCi_CTL2 when MCG_CAP says CMCI_P; MCG_STATUS and
 *	  MCG_CTL (when MCG_CTL_P)
 *	- DEBUGCTL (BTF/LBR enables: a debugger's single-step-on-branches)
 *	- XSS (the supervisor XSAVE components XSAVES saves; Debian's 6.1
 *	  kvm_amd reads it but does not list it)
 * Each candidate is kept only if KVM reads it on this vCPU; XSS only if
 * KVM also takes the value back (PVM reads it but refuses its writes).
 * Call it on a vCPU that has not run.
 */
#ifndef MINIVMM_SNAPSHOT_MSR_EXTRA_H
#define MINIVMM_SNAPSHOT_MSR_EXTRA_H

#include <stdint.h>

/* Appends to list[*n] (room for max) the candidates above that vcpu_fd
 * reads and list does not hold yet.  Returns how many were appended. */
uint32_t snap_msr_extra(int vcpu_fd, uint32_t *list, uint32_t *n,
			uint32_t max);

#endif
