/* SPDX-License-Identifier: MIT */
/*
 * Machine assembly: vm_create() builds the VM a config describes (console,
 * MSR policy, KVM, guest memory, images, device tree, devices, PCI,
 * vCPUs) in that visible order; vm_destroy() takes it apart.
 */
#ifndef MINIVMM_MACHINE_H
#define MINIVMM_MACHINE_H

struct host;
struct vm;
struct vmm_config;

/* Builds the machine on host h (host/host.h: the VM keeps the pointer).
 * Returns NULL after printing why; *status tells the exit status to use
 * (EXIT_USAGE for bad input, EXIT_VMM_ERROR else). */
struct vm *vm_create(const struct vmm_config *cfg, struct host *h,
		     int *status);
void vm_destroy(struct vm *vm);

#endif
