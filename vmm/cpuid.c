// SPDX-License-Identifier: MIT
/* The one place where the guest's CPUID is decided: KVM's supported set
 * (KVM_GET_SUPPORTED_CPUID) with these adjustments:
 *   - leaf 0x1: EBX[31:24] = initial APIC id (the vCPU index), EBX[23:16]
 *     = logical processors per package; ECX[31] "hypervisor present".
 *   - leaves 0xb and 0x1f: EDX = x2APIC id (the vCPU index).
 * Everything else is passed as KVM reports it. */
#include "vmm/vcpu.h"
#include "vmm/vm.h"

#include <errno.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#define MAX_ENTRIES	256

static void adjust(struct kvm_cpuid_entry2 *e, unsigned int id,
		   unsigned int ncpus)
{
	switch (e->function) {
	case 1:
		e->ebx = (e->ebx & 0x0000ffffu) | (id << 24) |
			 ((ncpus & 0xffu) << 16);
		e->ecx |= 1u << 31;
		break;
	case 0xb:
	case 0x1f:
		e->edx = id;
		break;
	}
}

int cpuid_setup(struct vm *vm, struct vcpu *v)
{
	struct kvm_cpuid2 *c;
	size_t sz = sizeof(*c) + MAX_ENTRIES * sizeof(c->entries[0]);
	int ret;

	c = calloc(1, sz);
	if (!c)
		return -1;
	c->nent = MAX_ENTRIES;
	ret = ioctl(vm->kvm.sys_fd, KVM_GET_SUPPORTED_CPUID, c);
	if (ret == 0) {
		for (uint32_t i = 0; i < c->nent; i++)
			adjust(&c->entries[i], v->id, vm->ncpus);
		ret = ioctl(v->fd, KVM_SET_CPUID2, c);
	}
	if (ret < 0)
		fprintf(stderr, "minivmm: error: setting CPUID: %s\n",
			strerror(errno));
	free(c);
	return ret;
}
