/* SPDX-License-Identifier: MIT */
/*
 * The PCI bus in a running VM: the device wiring.  Creates the bus (config
 * pages from pci_ecam.c, BAR moves to pci_bars.c) and its functions (host
 * bridge, Xen platform device, pci-testdev, the virtio devices), hands
 * each its backing (RAM BARs' memory, the ECAM window built from the
 * functions present, the CF8/CFC ports), and registers the bus's --stats
 * and snapshot sections (CF8, each function's config space and BARs, the
 * devices' own state).
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
