/* SPDX-License-Identifier: MIT */
/*
 * The KVM system and VM file descriptors: opening /dev/kvm, checking the API
 * version and every capability minivmm relies on, creating the VM with its
 * in-kernel irqchip and PIT.
 */
#ifndef MINIVMM_KVM_H
#define MINIVMM_KVM_H

#include <stdint.h>

struct kvm {
	int sys_fd;
	int vm_fd;
	int vcpu_mmap_size;
	unsigned int max_vcpus;
};

/* 0, or -1 after printing one line naming what is missing. */
int kvm_open(struct kvm *kvm);
void kvm_close(struct kvm *kvm);
/* Raise an ISA/IOAPIC interrupt line through the in-kernel irqchip. */
int kvm_irq_line(struct kvm *kvm, uint32_t irq, int level);

#endif
