/* SPDX-License-Identifier: MIT */
/*
 * virtio-net (virtio 1.2, 5.1) over a tap: a receive queue (0) and a
 * transmit queue (1), mergeable receive buffers, MAC and link status in
 * the device configuration, checksum and segmentation offloads both ways
 * (the GUEST_* ones only if the tap takes them).  The device thread
 * serves the queues and reads the tap when it is readable and the driver
 * has buffers; a frame that finds too few waits in the device until the
 * driver adds some.  Whatever a chain does wrong (short header, bad
 * offload fields, oversized frame) drops that frame and counts it; a
 * malformed ring ends in DEVICE_NEEDS_RESET as for every virtio device.
 * The function is owned by the PCI bus; this state (and the tap) go with
 * it.
 */
#ifndef MINIVMM_VIRTIO_NET_H
#define MINIVMM_VIRTIO_NET_H

#include <stdatomic.h>
#include <stdint.h>

#include "devices/pci/bus.h"
#include "devices/virtio/net_tap.h"
#include "devices/virtio/pci.h"

struct virtio_net_conf {
	struct net_tap tap;		/* opened; the device owns it */
	uint8_t mac[6];
	bool offloads;			/* offer CSUM/TSO (both ways) */
};

/* Per-device counters (the transport's cover kicks and interrupts). */
struct virtio_net_counters {
	atomic_uint_least64_t rx_packets, rx_bytes, rx_drops;
	atomic_uint_least64_t tx_packets, tx_bytes, tx_drops;
	atomic_uint_least64_t rx_waits;	/* frames that waited for buffers */
};

struct virtio_net;

/* NULL on failure (bdf taken, no memory); the tap is closed then. */
struct virtio_net *virtio_net_create(struct pci_bus *bus, uint32_t bdf,
				     const struct virtio_net_conf *conf,
				     const struct virtio_host *host,
				     const char *name);
struct virtio_pci *virtio_net_pci(struct virtio_net *n);
const struct virtio_net_counters *virtio_net_counters(
	const struct virtio_net *n);
const char *virtio_net_ifname(const struct virtio_net *n);
/* The last reason a frame was dropped (static string), or NULL. */
const char *virtio_net_last_drop(const struct virtio_net *n);

#endif
