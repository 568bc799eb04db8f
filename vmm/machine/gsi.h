/* SPDX-License-Identifier: MIT */
/*
 * The machine's interrupt routing, in one place: every GSI a device
 * raises goes through here.  Owns KVM's GSI routing table (the in-kernel
 * irqchip's default routes for GSI 0-23, and one MSI route per GSI handed
 * out above them), the irqfds that raise a GSI from an eventfd, and the
 * level lines into the IOAPIC/PIC pins (ISA IRQs, PCI INTx after the
 * swizzle in firmware/lib/abi.h).  Devices never see KVM: their wiring
 * hands them an irq_line, or an eventfd bound here.
 *
 * Threads: gsi_route_msi and the level lines may be called from any
 * thread; gsi_alloc_msi only while the machine is being built.
 */
#ifndef MINIVMM_GSI_H
#define MINIVMM_GSI_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "devices/irq.h"

struct kvm;
struct kvm_irq_routing;
struct kvm_irq_routing_entry;

struct gsi {
	struct kvm *kvm;
	pthread_mutex_t lock;		/* the routing table */
	struct kvm_irq_routing_entry *msi;	/* by gsi - first MSI GSI */
	bool *msi_used;			/* routed yet */
	unsigned int nmsi;		/* GSIs handed out */
	struct kvm_irq_routing *table;	/* scratch for the ioctl */
	uint64_t route_updates;		/* KVM_SET_GSI_ROUTING calls */
	uint64_t route_failures;	/* of them refused */
};

void gsi_init(struct gsi *g, struct kvm *kvm);
void gsi_destroy(struct gsi *g);

/* n consecutive GSIs for MSI routes, unrouted until gsi_route_msi: the
 * first of them, or -1 (no memory). */
int gsi_alloc_msi(struct gsi *g, unsigned int n);
/* From now on gsi (from gsi_alloc_msi) delivers the message (addr,
 * data).  KVM_SET_GSI_ROUTING replaces the whole table, so each update
 * carries the default routes and every MSI route.  0, or -1 if KVM
 * refused (counted; the guest's message is its own business). */
int gsi_route_msi(struct gsi *g, uint32_t gsi, uint64_t addr, uint32_t data);
/* Writes to the eventfd fd raise gsi in the kernel (KVM irqfd): 0 or -1. */
int gsi_bind_irqfd(struct gsi *g, int fd, uint32_t gsi);

/* A level line on an IOAPIC/PIC pin (gsi < 24), for a device. */
struct irq_line gsi_line(struct gsi *g, uint32_t gsi);
/* The same as a plain setter: ctx is the struct gsi. */
void gsi_set_level(void *ctx, uint32_t gsi, int level);
/* The GSI of INTx pin (0 = INTA) of device slot on bus 0. */
uint32_t gsi_pci_intx(unsigned int slot, unsigned int pin);

#endif
