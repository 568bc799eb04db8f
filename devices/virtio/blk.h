/* SPDX-License-Identifier: MIT */
/*
 * virtio-blk (virtio 1.2, 5.2) over a raw image the VMM opened: one
 * request queue, served by the device's own thread with preadv/pwritev on
 * the image; flush is fdatasync (durable); discard punches holes; write
 * zeroes uses fallocate (or writes zeros where the file system cannot);
 * get-id returns the serial.  A read-only disk offers VIRTIO_BLK_F_RO and
 * fails every write with VIRTIO_BLK_S_IOERR.  An O_DIRECT image
 * (direct_align) offers that block size and fails requests not aligned
 * to it, as QEMU does; an unsafe one (cache=unsafe) does not offer
 * VIRTIO_BLK_F_FLUSH and completes a flush without syncing.  The function is owned by the
 * PCI bus; the image descriptor is closed with it.
 */
#ifndef MINIVMM_VIRTIO_BLK_H
#define MINIVMM_VIRTIO_BLK_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/pci/bus.h"
#include "devices/virtio/pci.h"

#define VIRTIO_BLK_QUEUE_SIZE	256
#define VIRTIO_BLK_SEG_MAX	(VIRTIO_BLK_QUEUE_SIZE - 2)
#define VIRTIO_BLK_MAX_DISCARD	0x3fffffu	/* sectors per segment */
#define VIRTIO_BLK_MAX_SEG	16		/* segments per request */
#define VIRTIO_BLK_DISCARD_ALIGN 8		/* sectors: 4 KiB */
#define VIRTIO_BLK_POLL_NS	50000		/* see virtio_device_ops */

struct virtio_blk_conf {
	int fd;			/* open image; the device owns it from now */
	bool ro;
	bool unsafe;		/* flushes ignored */
	unsigned int direct_align;	/* O_DIRECT image: bytes; else 0 */
	uint64_t size;		/* bytes; capacity is size / 512 */
	const char *serial;	/* at most VIRTIO_BLK_ID_BYTES, or NULL */
};

struct virtio_blk;

/* NULL on failure (bdf taken, no memory); conf->fd is then not closed. */
struct virtio_blk *virtio_blk_create(struct pci_bus *bus, uint32_t bdf,
				     const struct virtio_blk_conf *conf,
				     const struct virtio_host *host,
				     const char *name);
struct virtio_pci *virtio_blk_pci(struct virtio_blk *b);

#endif
