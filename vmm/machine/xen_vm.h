/* SPDX-License-Identifier: MIT */
/*
 * The Xen platform PCI device in a running VM (--xen-platform): creates
 * the function, registers its fixed legacy ports at
 * LAYOUT_XEN_LEGACY_PORT, sends the guest driver's log lines to stderr,
 * and provides its --stats lines and snapshot sections (the protocol
 * state, and BAR1's memory, which pci_bars.c backs, as a memory section).
 */
#ifndef MINIVMM_XEN_VM_H
#define MINIVMM_XEN_VM_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

struct vm;
struct pci_bus;
struct xen_platform;

/* The device at bdf on bus, its ports registered: NULL on failure. */
struct xen_platform *xen_vm_add(struct vm *vm, struct pci_bus *bus,
				uint32_t bdf);
/* SNAP_SEC_XEN_PLATFORM and SNAP_SEC_XEN_BAR1 (bar1: BAR1's memory). */
int xen_vm_snap_register(struct vm *vm, struct xen_platform *xp,
			 uint8_t *bar1);
void xen_vm_print_stats(struct xen_platform *xp, FILE *out);
void xen_vm_json_stats(struct xen_platform *xp, cJSON *root);

#endif
