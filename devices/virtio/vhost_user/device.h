/* SPDX-License-Identifier: MIT */
/*
 * A virtio-pci device whose queues a vhost-user back end serves.  The
 * transport (PCI function, common configuration, MSI-X) stays minivmm's;
 * the back end gets guest RAM (the memory table: shared descriptors the
 * VMM supplies), each queue's kick eventfd (KVM's ioeventfd on the notify
 * address: a guest kick reaches the back end without minivmm) and call
 * eventfd (relayed into the queue's interrupt by the device thread, which
 * keeps MSI-X masking and INTx right).  Rings are handed over when the
 * driver sets DRIVER_OK and taken back (GET_VRING_BASE) on a reset.
 *
 * Features: the guest is offered the back end's device-specific bits
 * plus what the transport always offers (VERSION_1, indirect descriptors,
 * event index), which the back end must have.  A back end that goes away
 * or fails a request is never reconnected: conf.gone is told once, with
 * the reason, and the owner ends the run.
 */
#ifndef MINIVMM_VHOST_USER_DEVICE_H
#define MINIVMM_VHOST_USER_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "devices/pci/bus.h"
#include "devices/virtio/pci.h"
#include "devices/virtio/vhost_user/msg.h"

#define VHU_DEV_CFG_MAX		64

struct vhu_dev_conf {
	const char *socket;
	uint16_t type;			/* VIRTIO_ID_* */
	uint32_t class_code;
	unsigned int nqueues;
	uint16_t queue_max;
	uint8_t config[VHU_DEV_CFG_MAX];	/* device configuration, as the
						 * driver reads it */
	unsigned int cfg_size;
	/* Guest RAM as the back end maps it: one descriptor per region. */
	struct vhu_region regions[VHU_MAX_REGIONS];
	int region_fds[VHU_MAX_REGIONS];
	unsigned int nregions;
	/* The back end is gone or failed (any thread, once). */
	void (*gone)(void *ctx, const char *why);
	void *ctx;
};

struct vhu_dev;

/* Connect, negotiate, send the memory table, create the function at bdf.
 * NULL with a one-line reason in err. */
struct vhu_dev *vhu_dev_create(struct pci_bus *bus, uint32_t bdf,
			       const struct vhu_dev_conf *conf,
			       const struct virtio_host *host,
			       const char *name, char *err, size_t errlen);
struct virtio_pci *vhu_dev_pci(struct vhu_dev *d);

#endif
