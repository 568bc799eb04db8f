/* SPDX-License-Identifier: MIT */
/*
 * virtio-console (virtio 1.2, 5.3), one port (hvc0 in Linux): the
 * transmit queue's bytes go to the output sink the VMM gives, host input
 * (virtio_console_receive, from any thread) waits in a buffer of
 * VCONSOLE_IN_BUF bytes until the driver posts receive buffers, and the
 * emergency write register (VIRTIO_CONSOLE_F_EMERG_WRITE) sends one byte
 * straight to the sink.  The input buffer is the device's only state
 * beyond the transport's (struct vconsole_state, for snapshots).  The
 * function is owned by the PCI bus; this state is freed with it.
 */
#ifndef MINIVMM_VIRTIO_CONSOLE_H
#define MINIVMM_VIRTIO_CONSOLE_H

#include <stddef.h>
#include <stdint.h>

#include "devices/pci/bus.h"
#include "devices/virtio/pci.h"

#define VCONSOLE_IN_BUF		4096
#define VCONSOLE_QUEUE_MAX	128

/* Where guest output goes; write is called from the device thread (the
 * transmit queue) and from vCPUs (emergency writes). */
struct vconsole_sink {
	void (*write)(void *ctx, const uint8_t *buf, size_t n);
	void *ctx;
};

/* Host input not yet given to the driver.  A fixed layout of bytes: it is
 * stored as it is. */
struct vconsole_state {
	uint32_t len;
	uint8_t buf[VCONSOLE_IN_BUF];
};

struct virtio_console;

/* NULL on failure (bdf taken, no memory). */
struct virtio_console *virtio_console_create(struct pci_bus *bus,
					     uint32_t bdf,
					     struct vconsole_sink out,
					     const struct virtio_host *host,
					     const char *name);
struct virtio_pci *virtio_console_pci(struct virtio_console *c);

/* Free space in the input buffer (the host console stops reading when it
 * is full). */
size_t virtio_console_rx_space(void *c);
/* Queue host input for the driver; returns how many bytes fit. */
size_t virtio_console_receive(void *c, const uint8_t *buf, size_t n);

/* With the device quiesced (virtio_pci_quiesce). */
void virtio_console_get_state(struct virtio_console *c,
			      struct vconsole_state *s);
/* -1 (nothing changes) if s is inconsistent. */
int virtio_console_set_state(struct virtio_console *c,
			     const struct vconsole_state *s);

#endif
