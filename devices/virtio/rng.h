/* SPDX-License-Identifier: MIT */
/*
 * virtio-rng (virtio 1.2, 5.4): one request queue whose writable buffers
 * the device fills from the host's getrandom().  The function is owned by
 * the PCI bus; this state is freed with it.
 */
#ifndef MINIVMM_VIRTIO_RNG_H
#define MINIVMM_VIRTIO_RNG_H

#include <stdint.h>

#include "devices/pci/bus.h"
#include "devices/virtio/pci.h"

/* Bytes served per request at most: a driver asking for more gets this
 * much (the used length says so), which bounds the thread's time per
 * request. */
#define VIRTIO_RNG_MAX_REQUEST	(64u * 1024)

struct virtio_rng;

/* NULL on failure (bdf taken, no memory). */
struct virtio_rng *virtio_rng_create(struct pci_bus *bus, uint32_t bdf,
				     const struct virtio_host *host,
				     const char *name);
struct virtio_pci *virtio_rng_pci(struct virtio_rng *r);

#endif
