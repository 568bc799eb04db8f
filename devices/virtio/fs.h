/* SPDX-License-Identifier: MIT */
/*
 * virtio-fs (virtio 1.2, 5.11) over a vhost-user back end (virtiofsd):
 * the device configuration (the mount tag, one request queue) and the
 * queue layout (hiprio + one request queue); the FUSE traffic itself is
 * between the guest's driver and the back end.
 */
#ifndef MINIVMM_VIRTIO_FS_H
#define MINIVMM_VIRTIO_FS_H

#include <stddef.h>
#include <stdint.h>

#include "devices/pci/bus.h"
#include "devices/virtio/pci.h"
#include "devices/virtio/vhost_user/device.h"

#define VIRTIO_FS_TAG_MAX	36	/* bytes, not NUL-terminated */
#define VIRTIO_FS_QUEUE_SIZE	1024

/* conf holds the socket, the memory table and the gone callback; the
 * device fills in the rest. NULL with a reason in err. */
struct vhu_dev *virtio_fs_create(struct pci_bus *bus, uint32_t bdf,
				 const char *tag, struct vhu_dev_conf *conf,
				 const struct virtio_host *host,
				 const char *name, char *err, size_t errlen);

#endif
