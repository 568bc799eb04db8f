// SPDX-License-Identifier: MIT
/* CPUID bits hidden from emulated ring 0 (cpuid_hide.h). */
#include "vmm/pvm/cpuid_hide.h"

#include <linux/kvm.h>
#include <stdint.h>

#define CPUID1_ECX_CX16		(1u << 13)
#define LEAF_KVM_FEATURES	0x40000001u
#define KVM_PV_UNHALT		(1u << 7)	/* KVM_FEATURE_PV_UNHALT */
#define KVM_PV_SEND_IPI		(1u << 11)	/* KVM_FEATURE_PV_SEND_IPI */
#define KVM_PV_SCHED_YIELD	(1u << 13)	/* KVM_FEATURE_PV_SCHED_YIELD */
/* The features whose use is a VMCALL from ring 0. */
#define KVM_PV_VMCALLS	(KVM_PV_UNHALT | KVM_PV_SEND_IPI | KVM_PV_SCHED_YIELD)

static unsigned int clear(uint32_t *reg, uint32_t bits)
{
	unsigned int n = (unsigned int)__builtin_popcount(*reg & bits);

	*reg &= ~bits;
	return n;
}

unsigned int pvm_cpuid_hide(struct kvm_cpuid2 *c)
{
	unsigned int n = 0;

	for (uint32_t i = 0; i < c->nent; i++) {
		struct kvm_cpuid_entry2 *e = &c->entries[i];

		if (e->function == 1)
			n += clear(&e->ecx, CPUID1_ECX_CX16);
		else if (e->function == LEAF_KVM_FEATURES)
			n += clear(&e->eax, KVM_PV_VMCALLS);
	}
	return n;
}
