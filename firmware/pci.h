/* SPDX-License-Identifier: MIT */
/*
 * PCI enumeration and BAR assignment, in three steps so that only the I/O
 * runs in ring 0 (cpu.h):
 *   pci_scan()     ring 0: every function on buses 0..bus_last, through
 *                  ECAM if the machine has it (the read-only enumeration
 *                  then runs in ring 3), else CF8/CFC; decoding off, BARs
 *                  sized.
 *   pci_assign()   ring 3: bar_alloc() in the machine's windows, one
 *                  console line per BAR (per function without BARs).
 *   pci_program()  ring 0: BAR addresses, then IO/MEM decoding for the
 *                  functions whose every BAR was placed; a function with
 *                  a BAR that did not fit stays disabled (BARs zeroed).
 *                  Every function with an interrupt pin gets its
 *                  Interrupt Line: the GSI the DSDT's _PRT routes it to
 *                  (ABI_PCI_INTX_GSI) on bus 0, 0xff ("unknown", no
 *                  route) elsewhere.
 */
#ifndef FW_PCI_H
#define FW_PCI_H

#include <stdbool.h>
#include <stdint.h>

#include "firmware/lib/bar_alloc.h"
#include "firmware/machine.h"

#define PCI_MAX_FNS		64
#define PCI_MAX_BARS		96

/* Config space access, dwords only. */
struct pci_access {
	uint32_t (*read)(const struct pci_access *a, uint16_t bdf,
			 unsigned int reg);
	void (*write)(const struct pci_access *a, uint16_t bdf,
		      unsigned int reg, uint32_t val);
	uint64_t ecam_base;
	const char *name;		/* "ECAM" or "CF8" */
};

struct pci_func {
	uint16_t bdf;
	uint16_t vendor, device;
	uint8_t header;			/* header type, without the MFD bit */
	uint8_t pin;			/* interrupt pin, 0: none */
	uint8_t line;			/* Interrupt Line programmed: the
					 * _PRT's GSI on bus 0, else 0xff */
	uint16_t command;		/* with IO/MEM cleared */
	uint8_t first_req, n_reqs;	/* its BARs in pci_state.reqs */
	bool disabled;			/* leave decoding off */
};

struct pci_state {
	struct pci_access acc;
	struct pci_func fns[PCI_MAX_FNS];
	unsigned int n_fns;
	struct bar_req reqs[PCI_MAX_BARS];
	unsigned int n_reqs;
	struct bar_summary sum;
	uint32_t prt_slots;		/* bus-0 devices with an INTx pin */
	unsigned int bus_last;
};

void pci_scan(struct pci_state *p, const struct machine *m);
void pci_assign(struct pci_state *p, const struct machine *m);
void pci_program(struct pci_state *p);

#endif
