/* SPDX-License-Identifier: MIT */
/*
 * A virtio-pci function's state for snapshots, as one fixed-layout struct
 * (struct virtio_pci_snap): the transport's registers, every queue's
 * set-up and progress, the MSI-X table and pending bits, whether the
 * driver was told to reset, and what the driver read of the device (its
 * offered features and configuration bytes: a restore onto a different
 * disk size or a read-only flag that changed is refused).  Take it with
 * the device quiesced (virtio_pci_quiesce: nothing in flight), so that
 * every request the driver made is either completed in guest RAM or still
 * only in the avail ring.  Loading checks every field against the device
 * before changing anything, then re-derives what is not state: the
 * queues' host pointers, the notify bindings at BAR 0's (already
 * restored) address, the MSI-X routes (made again on first use), the
 * INTx level, and which queues are live; the device thread then looks at
 * every queue once, for buffers the driver added before the snapshot.
 * The snapshot format only restores into the binary that wrote it, so
 * the struct's padding is part of the layout.
 */
#ifndef MINIVMM_VIRTIO_STATE_H
#define MINIVMM_VIRTIO_STATE_H

#include <stdint.h>

#include "devices/virtio/transport.h"

#define VIRTIO_SNAP_CFG_MAX	64	/* device configuration bytes kept */

struct virtio_pci_snap {
	uint32_t type;			/* VIRTIO_ID_* of the device */
	uint32_t nqueues;
	uint64_t offered;		/* features the device offered */
	uint32_t cfg_size;
	uint8_t cfg[VIRTIO_SNAP_CFG_MAX];	/* device configuration */
	uint8_t needs_reset;
	uint8_t reserved[3];
	struct virtio_pci_state st;
	struct vq_state vq[VIRTIO_MAX_QUEUES];
	struct msix_state msix;
};

void virtio_pci_get_state(struct virtio_pci *vp, struct virtio_pci_snap *s);
/* Load s into a device that has run no driver yet (just created, in a
 * restore).  0, or -1 with why (a static string) if s does not fit this
 * device; nothing is changed then. */
int virtio_pci_set_state(struct virtio_pci *vp,
			 const struct virtio_pci_snap *s, const char **why);

#endif
