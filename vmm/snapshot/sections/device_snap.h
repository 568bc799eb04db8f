/* SPDX-License-Identifier: MIT */
/*
 * The snapshot sections of the legacy devices machine.c creates: the
 * UARTs (SNAP_SEC_UART, instance 0 COM1, 1 COM2) and the ACPI PM block
 * (SNAP_SEC_ACPI_PM).  Each section is the device's own fixed-layout
 * state struct.  (The PCI bus, its functions and the Xen device register
 * theirs in pci_vm.c, the MSR policy's emulate stores in msr/vm.c;
 * device_snap_register() also registers the virtio devices',
 * virtio_vm.c.)
 */
#ifndef MINIVMM_DEVICE_SNAP_H
#define MINIVMM_DEVICE_SNAP_H

struct vm;

/* 0 or -1. */
int device_snap_register(struct vm *vm);

#endif
