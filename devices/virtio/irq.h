/* SPDX-License-Identifier: MIT */
/*
 * Interrupts of a virtio-pci function: the ISR status byte (read clears
 * it and lowers INTx), INTx as the fallback when MSI-X is off, and MSI-X
 * delivery of queue and configuration-change vectors.  Callers must not
 * hold the transport's irq_lock; these take it.
 */
#ifndef MINIVMM_VIRTIO_IRQ_H
#define MINIVMM_VIRTIO_IRQ_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/virtio/transport.h"

/* A used-buffer notification for queue q. */
void virtio_irq_queue(struct virtio_pci *vp, unsigned int q);
/* A configuration-change notification (also for DEVICE_NEEDS_RESET). */
void virtio_irq_config(struct virtio_pci *vp);
/* The ISR register: returns it and clears it (and the INTx level). */
uint8_t virtio_irq_isr_read(struct virtio_pci *vp);
/* Re-evaluate the INTx level (after COMMAND.INTX_DISABLE or a reset). */
void virtio_irq_intx_update(struct virtio_pci *vp);
/* Reset: ISR cleared, INTx lowered, pending MSI-X bits dropped. */
void virtio_irq_reset(struct virtio_pci *vp);

#endif
