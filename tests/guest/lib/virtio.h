/* SPDX-License-Identifier: MIT */
/*
 * A small virtio 1.2 driver for payloads: finds a modern virtio-pci
 * function on bus 0, reads its capabilities, negotiates, sets up split
 * virtqueues in the payload's (identity-mapped) memory, submits chains and
 * polls for completions.  It assumes nothing of minivmm beyond what the
 * specification says, so the same code drives QEMU's devices.  Also the
 * raw pieces hostile tests need to break the rules on purpose.
 *
 * Config space goes through CF8/CFC (ring 0); the BAR regions are plain
 * MMIO and work from ring 3 too, as do submission and polling.
 */
#ifndef GUEST_VIRTIO_H
#define GUEST_VIRTIO_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/virtio/spec.h"
#include "firmware/lib/pci_regs.h"

#define GV_MAX_QUEUES	4

/* A descriptor as it sits in the table. */
struct gv_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

struct gvq {
	uint16_t index, size;
	struct gv_desc *desc;
	volatile uint16_t *avail;	/* flags, idx, ring[size], used_event */
	volatile uint8_t *used;		/* flags, idx, ring, avail_event */
	uint16_t avail_idx;		/* next avail slot (driver shadow) */
	uint16_t last_used;
	uint16_t next_desc;		/* descriptors handed out round-robin */
	uint64_t notify;		/* MMIO address of the queue's kick */
	bool event_idx;
	uint64_t kicks;			/* doorbell writes made */
};

struct gvirtio {
	uint32_t bdf;
	uint16_t device_id;
	uint8_t irq_line, irq_pin;
	uint64_t bar[6];
	bool bar64[6];
	uint64_t common, isr, device, notify;
	uint32_t notify_mult, device_len;
	uint16_t msix_cap, msix_nvec;
	uint64_t msix_table;
	uint16_t cfg_cap;		/* PCI_CFG capability, 0: none */
	uint64_t features;		/* negotiated */
	struct gvq q[GV_MAX_QUEUES];
};

/* One buffer of a chain. */
struct gv_buf {
	void *p;
	uint32_t len;
	bool write;			/* device-writable */
};

/* Find the nth (from 0) function with vendor 0x1af4, device
 * VIRTIO_PCI_DEVICE_BASE + type on bus 0 and read its capabilities and
 * BARs (as the firmware assigned them).  0, or -1 if absent or
 * malformed (why printed). */
int gv_find(unsigned int type, unsigned int nth, struct gvirtio *d);

/* Common configuration accesses (natural widths). */
uint8_t gv_status(const struct gvirtio *d);
void gv_set_status(const struct gvirtio *d, uint8_t s);
uint64_t gv_device_features(const struct gvirtio *d);
/* Reset, ACKNOWLEDGE|DRIVER, offer want & device features (or exactly
 * want when exact), FEATURES_OK; true if the device kept FEATURES_OK. */
bool gv_negotiate(struct gvirtio *d, uint64_t want, bool exact);
void gv_reset(struct gvirtio *d);

/* Queue q with size entries in mem (at least gv_queue_bytes(size),
 * 4 KiB aligned); enable it.  -1 if the device offers no such queue or
 * did not take it (queue_enable reads 0). */
uint64_t gv_queue_bytes(uint16_t size);
int gv_queue_setup(struct gvirtio *d, unsigned int q, uint16_t size,
		   void *mem, uint16_t msix_vector);
void gv_driver_ok(struct gvirtio *d);

/* Chain of n buffers (readable ones first) from fresh descriptors; with
 * indirect, one descriptor pointing at a table in itab (n entries).
 * Returns the head index. */
uint16_t gv_add(struct gvq *q, const struct gv_buf *b, unsigned int n,
		struct gv_desc *itab);
/* Publish head in the avail ring (no kick). */
void gv_publish(struct gvq *q, uint16_t head);
/* Kick if the device asked for it (event index or flags); true if it
 * kicked.  gv_kick_always writes the doorbell regardless. */
bool gv_kick(struct gvq *q, uint16_t old_avail);
void gv_kick_always(struct gvq *q);
/* A completion, if any: true with *id, *len. */
bool gv_poll(struct gvq *q, uint32_t *id, uint32_t *len);
/* Publish, kick, spin until the chain completes or the TSC deadline
 * passes; returns the used length or -1 on timeout. */
int64_t gv_submit_wait(struct gvq *q, uint16_t head, uint64_t cycles);
/* Ask for no interrupt (event index: used_event behind last_used). */
void gv_no_interrupts(struct gvq *q);
void gv_want_interrupt(struct gvq *q);

/* MSI-X: vector entry and the capability's enable/mask bits. */
void gv_msix_vector(struct gvirtio *d, unsigned int vec, uint64_t addr,
		    uint32_t data, bool masked);
void gv_msix_enable(struct gvirtio *d, bool enable, bool func_mask);

/* Device configuration, little-endian fields. */
uint32_t gv_cfg_read32(const struct gvirtio *d, unsigned int off);
uint64_t gv_cfg_read64(const struct gvirtio *d, unsigned int off);

/* Config-space helpers (CF8/CFC, dword registers). */
uint32_t gv_pci_read(const struct gvirtio *d, unsigned int reg,
		     unsigned int len);
void gv_pci_write(const struct gvirtio *d, unsigned int reg, uint32_t v,
		  unsigned int len);

#endif
