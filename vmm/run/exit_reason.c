// SPDX-License-Identifier: MIT
#include "vmm/run/exit_reason.h"
#include "vmm/kvm_compat.h"

#include <stddef.h>

struct reason {
	const char *name;
	const char *key;
};

#define R(n, k)	[KVM_EXIT_##n] = { "KVM_EXIT_" #n, k }

static const struct reason reasons[] = {
	R(UNKNOWN, "unknown"),
	R(EXCEPTION, "exception"),
	R(IO, "io"),
	R(HYPERCALL, "hypercall"),
	R(DEBUG, "debug"),
	R(HLT, "hlt"),
	R(MMIO, "mmio"),
	R(IRQ_WINDOW_OPEN, "irq_window_open"),
	R(SHUTDOWN, "shutdown"),
	R(FAIL_ENTRY, "fail_entry"),
	R(INTR, "intr"),
	R(SET_TPR, "set_tpr"),
	R(TPR_ACCESS, "tpr_access"),
	R(S390_SIEIC, "s390_sieic"),
	R(S390_RESET, "s390_reset"),
	R(DCR, "dcr"),
	R(NMI, "nmi"),
	R(INTERNAL_ERROR, "internal_error"),
	R(OSI, "osi"),
	R(PAPR_HCALL, "papr_hcall"),
	R(S390_UCONTROL, "s390_ucontrol"),
	R(WATCHDOG, "watchdog"),
	R(S390_TSCH, "s390_tsch"),
	R(EPR, "epr"),
	R(SYSTEM_EVENT, "system_event"),
	R(S390_STSI, "s390_stsi"),
	R(IOAPIC_EOI, "ioapic_eoi"),
	R(HYPERV, "hyperv"),
	R(ARM_NISV, "arm_nisv"),
	R(X86_RDMSR, "rdmsr"),
	R(X86_WRMSR, "wrmsr"),
	R(DIRTY_RING_FULL, "dirty_ring_full"),
	R(AP_RESET_HOLD, "ap_reset_hold"),
	R(X86_BUS_LOCK, "bus_lock"),
	R(XEN, "xen"),
	R(RISCV_SBI, "riscv_sbi"),
	R(RISCV_CSR, "riscv_csr"),
	R(NOTIFY, "notify"),
	R(LOONGARCH_IOCSR, "loongarch_iocsr"),
	R(MEMORY_FAULT, "memory_fault"),
	R(TDX, "tdx"),
};

static const struct reason *lookup(uint32_t reason)
{
	if (reason >= sizeof(reasons) / sizeof(reasons[0]))
		return NULL;
	return reasons[reason].name ? &reasons[reason] : NULL;
}

const char *exit_reason_name(uint32_t reason)
{
	const struct reason *r = lookup(reason);

	return r ? r->name : NULL;
}

const char *exit_reason_key(uint32_t reason)
{
	const struct reason *r = lookup(reason);

	return r ? r->key : NULL;
}
