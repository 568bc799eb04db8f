/* SPDX-License-Identifier: MIT */
/*
 * The common configuration structure of a virtio-pci function (virtio
 * 1.2, 4.1.4.3) and what writing it does: feature negotiation, device
 * status (reset, FEATURES_OK acceptance, DRIVER_OK), queue set-up and
 * vector assignment.  A driver that breaks the rules gets
 * DEVICE_NEEDS_RESET (and a configuration-change interrupt once it is
 * running), never undefined behaviour.
 */
#ifndef MINIVMM_VIRTIO_COMMON_H
#define MINIVMM_VIRTIO_COMMON_H

#include <stdint.h>

#include "devices/virtio/transport.h"

/* Register accesses at off within the common region (any width up to 8,
 * clipped to the region).  They take vp->lock. */
void virtio_common_read(struct virtio_pci *vp, uint64_t off, uint8_t *data,
			uint32_t len);
void virtio_common_write(struct virtio_pci *vp, uint64_t off,
			 const uint8_t *data, uint32_t len);

/* Device reset, as a write of 0 to device_status does (parks the
 * worker meanwhile).  Takes vp->lock. */
void virtio_common_reset(struct virtio_pci *vp);

/* The driver misbehaved (e.g. a malformed ring): set DEVICE_NEEDS_RESET
 * and tell a running driver.  Safe from the worker and from vCPUs. */
void virtio_needs_reset(struct virtio_pci *vp);

#endif
