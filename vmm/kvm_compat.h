/* SPDX-License-Identifier: MIT */
/*
 * KVM UAPI constants that the Linux 6.1 headers lack, defined as later
 * headers define them (shared/reference/msr.md, "Linux 6.1 UAPI headers").
 * Each is guarded so newer headers win.
 */
#ifndef MINIVMM_KVM_COMPAT_H
#define MINIVMM_KVM_COMPAT_H

#include <linux/kvm.h>

#ifndef KVM_MSR_EXIT_REASON_VALID_MASK
#define KVM_MSR_EXIT_REASON_VALID_MASK	(KVM_MSR_EXIT_REASON_INVAL |	\
					 KVM_MSR_EXIT_REASON_UNKNOWN |	\
					 KVM_MSR_EXIT_REASON_FILTER)
#endif
#ifndef KVM_MSR_FILTER_RANGE_VALID_MASK
#define KVM_MSR_FILTER_RANGE_VALID_MASK	(KVM_MSR_FILTER_READ |		\
					 KVM_MSR_FILTER_WRITE)
#endif
#ifndef KVM_MSR_FILTER_VALID_MASK
#define KVM_MSR_FILTER_VALID_MASK	(KVM_MSR_FILTER_DEFAULT_DENY)
#endif

/* Exit reasons after 6.1 (for their names in vmm/run/exit_reason.c). */
#ifndef KVM_EXIT_LOONGARCH_IOCSR
#define KVM_EXIT_LOONGARCH_IOCSR	38
#endif
#ifndef KVM_EXIT_MEMORY_FAULT
#define KVM_EXIT_MEMORY_FAULT		39
#endif
#ifndef KVM_EXIT_TDX
#define KVM_EXIT_TDX			40
#endif

#endif
