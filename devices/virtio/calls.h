/* SPDX-License-Identifier: MIT */
/*
 * The call eventfds of queues an outside back end serves (backend_queues,
 * transport.h): which one a queue's back end signals, the vector's own
 * irqfd while MSI-X lets that vector fire as it is, else the transport's
 * relay; and keeping that right as the driver writes the MSI-X table and
 * control, and the queues' vectors.  Owns nothing but the choice: the
 * fds are the transport's (pci.c) and the MSI-X model's (msix.c).
 */
#ifndef MINIVMM_VIRTIO_CALLS_H
#define MINIVMM_VIRTIO_CALLS_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/virtio/transport.h"

/* The fd q's completions should be signalled on now (routes the vector
 * at once when it is the irqfd). */
int virtio_call_target(struct virtio_pci *vp, unsigned int q);
/* Under vp->lock, after the driver changed what decides the call
 * eventfds (MSI-X masks and enable, a queue's vector): moves each started
 * queue's with ops->set_call. */
void virtio_pci_calls_update(struct virtio_pci *vp);
/* BAR 0's MSI-X table and PBA regions (region: VIRTIO_BAR_MSIX_*, r the
 * offset in it); a table write moves the calls under vp->lock. */
void virtio_msix_access(struct virtio_pci *vp, uint64_t region, uint64_t r,
			uint8_t *data, uint32_t len, bool is_write);

#endif
