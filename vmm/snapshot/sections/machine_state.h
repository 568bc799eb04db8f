/* SPDX-License-Identifier: MIT */
/*
 * The VM-wide KVM state as sections: the in-kernel irqchip (PIC master,
 * PIC slave, IOAPIC: SNAP_SEC_IRQCHIP), the PIT (KVM_GET_PIT2:
 * SNAP_SEC_PIT) and kvmclock (KVM_GET_CLOCK: SNAP_SEC_CLOCK, restored last
 * so the guest's clock goes on from where it paused instead of jumping by
 * the time the snapshot sat on disk).
 */
#ifndef MINIVMM_SNAPSHOT_MACHINE_STATE_H
#define MINIVMM_SNAPSHOT_MACHINE_STATE_H

struct snap_registry;

/* vm_fd must outlive the registry.  0 or -1. */
int snap_machine_register(struct snap_registry *r, const int *vm_fd);

#endif
