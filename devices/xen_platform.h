/* SPDX-License-Identifier: MIT */
/*
 * Xen platform PCI device (5853:0001), as QEMU presents it to HVM guests:
 * the PCI function, its BAR0 I/O registers, the 16 legacy ports (magic,
 * unplug protocol, driver log; QEMU and Xen put them at 0x10) and the
 * protocol's statistics.  BAR1 (16 MiB prefetchable memory) has no
 * registers: it is marked `ram` so the VMM backs it with a RAM memslot
 * that follows the BAR through bar_changed.  No Xen hypercalls or event channels here.
 *
 * COMMAND starts at 0 (QEMU starts with IO|MEM): minivmm's firmware
 * assigns the BARs and then enables decode, and until then the BARs are
 * at 0 and would not decode anyway.
 */
#ifndef MINIVMM_XEN_PLATFORM_H
#define MINIVMM_XEN_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/pci/bus.h"
#include "vmm/bus.h"

#define XEN_PLATFORM_VENDOR	0x5853
#define XEN_PLATFORM_DEVICE	0x0001
#define XEN_PLATFORM_CLASS	0xff8000	/* others / 0x80, prog-if 0 */
#define XEN_PLATFORM_REVISION	1
#define XEN_PLATFORM_BAR0_SIZE	0x100		/* I/O */
#define XEN_PLATFORM_BAR1_SIZE	0x1000000	/* 32-bit prefetchable */

/* xen_platform_legacy_ops covers this many ports. */
#define XEN_PLATFORM_LEGACY_LEN	16

#define XEN_PLATFORM_MAGIC	0x49d2	/* word read at offset 0 */
#define XEN_PLATFORM_PROTOCOL	1	/* byte read at offset 2 */
#define XEN_PFFLAG_ROM_LOCK	0x01	/* the only platform flag */

/* Unplug mask bits (word write to offset 0). */
#define XEN_UNPLUG_ALL_IDE_DISKS 0x01	/* IDE and SCSI disks */
#define XEN_UNPLUG_ALL_NICS	0x02
#define XEN_UNPLUG_AUX_IDE_DISKS 0x04	/* all but the primary master */
#define XEN_UNPLUG_NVME_DISKS	0x08

/* Guest log lines longer than this are flushed in pieces. */
#define XEN_PLATFORM_LOG_MAX	256
#define XEN_PLATFORM_LOG_PREFIX	"xen-platform: "

struct xen_platform_config {
	/* One NUL-terminated line, XEN_PLATFORM_LOG_PREFIX included, no
	 * newline; non-printable guest bytes are shown as '.'.  NULL:
	 * stderr. */
	void (*log)(void *ctx, const char *line);
	void *log_ctx;
};

struct xen_platform_stats {
	uint8_t flags;			/* platform flags */
	uint16_t unplug_mask;		/* last unplug request */
	uint64_t unplug_writes;		/* offset-0 word writes + BAR0 */
	bool product_set;
	uint16_t product;		/* last offset-2 word write */
	bool build_set;
	uint32_t build;			/* last offset-0 dword write */
	uint64_t magic_reads;
	uint64_t log_lines;		/* lines passed to the log callback */
	uint64_t log_bytes;		/* guest bytes written to the log */
};

struct xen_platform;

/* Create the function and plug it at bdf on bus; the bus owns it (freed by
 * pci_bus_destroy, which also flushes a partial log line).  NULL on
 * failure (bdf taken, no memory). */
struct xen_platform *
xen_platform_create(struct pci_bus *bus, uint32_t bdf,
		    const struct xen_platform_config *conf);
struct pci_fn *xen_platform_fn(struct xen_platform *xp);
void xen_platform_get_stats(struct xen_platform *xp,
			    struct xen_platform_stats *out);

/* The protocol state and a partial log line, for snapshots (fixed
 * layout; config space and BARs are the PCI function's). */
struct xen_platform_state {
	uint8_t flags, product_set, build_set, reserved;
	uint16_t unplug_mask, product;
	uint32_t build;
	uint32_t log_len;
	uint64_t unplug_writes, magic_reads, log_lines, log_bytes;
	char log_buf[XEN_PLATFORM_LOG_MAX];
};

void xen_platform_get_state(struct xen_platform *xp,
			    struct xen_platform_state *s);
/* -1 (nothing changes) if s is inconsistent. */
int xen_platform_set_state(struct xen_platform *xp,
			   const struct xen_platform_state *s);

/* The legacy ports, opaque = the device. */
extern const struct bus_ops xen_platform_legacy_ops;
/* BAR0 (256 I/O ports); set as BAR 0's ops, opaque = the device.  Byte
 * registers, wider accesses act byte by byte (as in QEMU): offset 0
 * platform flags; offset 4 value 1 unplugs disks and NICs (SUSE);
 * offset 8 value 1 disks, 2 NICs (Novell VMDP).  Other reads all-ones. */
extern const struct bus_ops xen_platform_bar0_ops;

#endif
