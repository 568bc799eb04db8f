/* SPDX-License-Identifier: MIT */
/*
 * PCI BARs placed in the machine: applies the moves the config-space
 * model reports (pci_bar_changed_fn) to the port and MMIO buses and to
 * memslots.  Each BAR's backing is what its device declared: a trapped
 * range (its ops registered on the port or MMIO bus, every access exits)
 * or, for a BAR marked `ram`, a memslot over host memory this module
 * allocates and moves with the BAR.  A placement over guest memory or
 * another range is refused (counted): the BAR then decodes nowhere until
 * the guest moves it again.  Nothing here knows any particular device.
 */
#ifndef MINIVMM_PCI_BARS_H
#define MINIVMM_PCI_BARS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "devices/pci/bus.h"

struct gmem;

#define PCI_BARS_MAX_RAM	4	/* RAM-backed BARs in the machine */

struct pci_ram_bar {
	const struct pci_fn *fn;
	int idx;
	uint8_t *host;			/* size bytes, page-aligned */
	uint64_t size;			/* the BAR's */
	int region;			/* its gmem region */
};

struct pci_bars {
	struct gmem *mem;
	struct bus *pio, *mmio;
	struct pci_ram_bar ram[PCI_BARS_MAX_RAM];
	unsigned int nram;
	uint64_t refused;		/* placements refused (overlaps) */
};

void pci_bars_init(struct pci_bars *b, struct gmem *mem, struct bus *pio,
		   struct bus *mmio);
/* The bus's BAR callback (pci_bus_config.bar_changed, bar_ctx = the
 * pci_bars): runs under the bus mutex. */
int pci_bars_changed(struct pci_fn *fn, int idx, uint64_t old_addr,
		     uint64_t new_addr, bool enabled);
/* Gives every `ram` BAR of the functions on buses 0..nbuses-1 its memory
 * and an unmapped memslot: once the functions exist, before the guest
 * runs.  0, or -1 (errno set). */
int pci_bars_back_ram(struct pci_bars *b, struct pci_bus *bus,
		      unsigned int nbuses);
/* The memory behind RAM BAR idx of fn (for snapshots), or NULL. */
uint8_t *pci_bars_ram(const struct pci_bars *b, const struct pci_fn *fn,
		      int idx);
/* Invariant: every mapped BAR lies where its function's config space
 * decodes it.  Call with the vCPUs stopped; prints problems to out and
 * returns their count. */
int pci_bars_check(struct pci_bus *bus, unsigned int nbuses, FILE *out);
/* Frees the BARs' memory (after the bus is gone). */
void pci_bars_destroy(struct pci_bars *b);

#endif
