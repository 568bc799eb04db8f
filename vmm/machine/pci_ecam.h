/* SPDX-License-Identifier: MIT */
/*
 * The PCI configuration pages and the guest's ECAM window onto them.  Owns
 * the memfd every function's config page lives in (the bus's page
 * allocator), so the same bytes can be mapped twice: read-write for the
 * config-space model, read-only into the guest.  Pages 0-255 of the memfd
 * are all-ones and back every absent function, so the window costs one
 * memfd page per present function.  Also owns the window at
 * LAYOUT_ECAM_BASE in the --ecam mode: ro (config pages mapped read-only:
 * reads never exit, writes trap to the bus's ECAM ops), trap (every access
 * exits) or off (nothing decodes there).
 */
#ifndef MINIVMM_PCI_ECAM_H
#define MINIVMM_PCI_ECAM_H

#include <stdio.h>

#include "vmm/cli/cli.h"

struct bus;
struct gmem;
struct pci_bus;
struct pci_ecam;

/* The memfd, its all-ones pages still holes (pci_ecam_map fills them for
 * a read-only window): NULL (errno set) on failure. */
struct pci_ecam *pci_ecam_create(void);
/* pci_bus_config.alloc_page, ctx = the pci_ecam: a zeroed memfd page. */
void *pci_ecam_alloc_page(void *ctx);
/* Opens the window onto buses 0..nbuses-1 of bus in mode, once every
 * function exists (the read-only mapping is built from them): a memslot
 * in mem and/or a trap on mmio.  0, or -1 (errno set). */
int pci_ecam_map(struct pci_ecam *e, struct pci_bus *bus, unsigned int nbuses,
		 enum ecam_mode mode, struct gmem *mem, struct bus *mmio);
/* Invariant: the read-only window shows exactly the model's bytes (or
 * all-ones for absent functions).  Prints problems to out; their count. */
int pci_ecam_check(const struct pci_ecam *e, FILE *out);
/* After the bus (whose pages these are) is gone. */
void pci_ecam_destroy(struct pci_ecam *e);

#endif
