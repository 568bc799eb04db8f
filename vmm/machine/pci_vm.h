/* SPDX-License-Identifier: MIT */
/*
 * The PCI bus in a running VM: creates the bus and its functions (host
 * bridge, Xen platform device), exposes CF8/CFC and the ECAM window
 * (read-only mapped, trapped, or absent), and applies BAR moves reported by
 * the config-space model to the port/MMIO buses and memslots.
 */
#ifndef MINIVMM_PCI_VM_H
#define MINIVMM_PCI_VM_H

#include <stdbool.h>
#include <stdio.h>

struct vm;
struct pci_vm;

/* 0, or -1 after printing why. */
int pci_vm_setup(struct vm *vm);
void pci_vm_destroy(struct vm *vm);

/* Invariant check (tests, hostile guests): every registered BAR range lies
 * where its function's config space says it decodes.  Prints problems to
 * out and returns their count. */
int pci_vm_check(struct vm *vm, FILE *out);

#endif
