/* SPDX-License-Identifier: MIT */
/*
 * Virtio devices in a running VM: opens the --disk images (before the
 * guest starts), creates a virtio-blk function per disk and a virtio-rng
 * for --rng on the PCI bus (slots 4 onwards, 5 with --pci-testdev on),
 * and is the KVM side the devices never see: each MSI-X vector's eventfd
 * raises a GSI of its own (gsi.h: an irqfd, routed when the guest
 * programs the vector); each queue's kick eventfd is a KVM ioeventfd on
 * its notify address, so a kick is handled in the kernel; INTx is a gsi.h
 * level line on the swizzled pin the firmware's _PRT names.  Also the
 * per-device --stats, and snapshots: quiescing (requests in flight
 * finished, the images flushed) and each device's section
 * (devices/virtio/state.h).
 */
#ifndef MINIVMM_VIRTIO_VM_H
#define MINIVMM_VIRTIO_VM_H

struct vm;
struct pci_bus;
struct vmm_config;

/* First PCI slot on bus 0 for virtio functions (the Xen device is 3),
 * one further with --pci-testdev on (QEMU's pci-testdev takes 4). */
#define VIRTIO_VM_FIRST_SLOT	4
unsigned int virtio_vm_first_slot(const struct vmm_config *cfg);

/* Open and lock the images: 0, or -1 after one line (exit status 2). */
int virtio_vm_prepare(struct vm *vm);
/* Create the devices on bus and start their threads: 0, or -1 after a
 * line naming what failed (a missing KVM capability, resources). */
int virtio_vm_setup(struct vm *vm, struct pci_bus *bus);
/* Each device's snapshot section (SNAP_SEC_VIRTIO, instance = bdf,
 * loaded after the PCI functions') and quiesce hook: 0 or -1. */
int virtio_vm_snap_register(struct vm *vm);
/* After the PCI bus (and with it the devices) is gone. */
void virtio_vm_destroy(struct vm *vm);

#endif
