/* SPDX-License-Identifier: MIT */
/*
 * The Xen platform PCI device (5853:0001) from the guest side: its IDs,
 * the fixed legacy ports 0x10-0x1F (magic, protocol, log, unplug
 * handshake), placing its two BARs, and a fill/verify pattern spread over
 * its 16 MiB RAM-backed BAR1 (to see the RAM follow the BAR).  Ring 0.
 */
#ifndef GUEST_PCI_XEN_H
#define GUEST_PCI_XEN_H

#include <stdbool.h>
#include <stdint.h>

#include "pci_access.h"

/* IDs: device << 16 | vendor. */
#define XEN_PLATFORM_ID		0x00015853u
#define XEN_PLATFORM_BAR0_SIZE	0x100u
#define XEN_PLATFORM_BAR1_SIZE	0x1000000u
#define XEN_PORT_BASE		0x10	/* fixed ports 0x10-0x1f */
#define XEN_PORT_LEN		16
/* 0x10: word read magic, byte flags; 0x12: byte read protocol, write log */
#define XEN_PORT_MAGIC		0x10
#define XEN_PORT_PROTO		0x12
#define XEN_MAGIC		0x49d2
#define XEN_BLACKLISTED	0xd249	/* magic after a refused build */
#define XEN_PFFLAG_ROM_LOCK	0x01

/* Writes s to the log port (the VMM prints each '\n'-ended line). */
void xen_platform_log(const char *s);

/* The unplug handshake (hvm-emulated-unplug): product, build, re-read
 * the magic, then the mask.  Returns the re-read magic. */
uint16_t xen_platform_unplug(uint16_t product, uint32_t build,
			     uint16_t mask);

/* Turns decode off, sets BAR0 = io and BAR1 = mem through m, then sets
 * COMMAND.IO and COMMAND.MEMORY: the order Linux uses. */
void xen_platform_place(enum pci_mech m, uint32_t bdf, uint16_t io,
			uint32_t mem);

/* Writes a pattern derived from tag at a few offsets across BAR1 placed
 * at base (start, second page, middle, last dword). */
void xen_bar1_fill(uint64_t base, uint32_t tag);
/* 1 if base holds the whole pattern, 0 if every probe reads all-ones
 * (nothing mapped), -1 otherwise. */
int xen_bar1_match(uint64_t base, uint32_t tag);

#endif
