/* SPDX-License-Identifier: MIT */
/*
 * PCI configuration access for payloads: the type-1 mechanism (CF8/CFC,
 * with AMD's extended-register bits 27:24 for offsets >= 0x100), ECAM at
 * minivmm's window, one-call BAR sizing, and counts of the ECAM accesses
 * made through it (so tests can match them against the VMM's exit
 * statistics).  Port I/O needs ring 0; ECAM reads also work from ring 3.
 */
#ifndef GUEST_PCI_ACCESS_H
#define GUEST_PCI_ACCESS_H

#include <stdbool.h>
#include <stdint.h>

#include "firmware/lib/pci_regs.h"
#include "vmm/layout.h"

#define PCI_ECAM_BASE		LAYOUT_ECAM_BASE

enum pci_mech {
	PCI_MECH_CF8,
	PCI_MECH_ECAM,
};

/* Every ECAM access made through the functions below (any width). */
struct pci_ecam_counts {
	uint64_t reads;
	uint64_t writes;
};
extern struct pci_ecam_counts pci_ecam_count;

/* len is 1, 2 or 4; reg < 4096 and (reg & 3) + len <= 4.  Each access
 * writes CF8 (including bits 27:24 from reg bits 11:8) then uses CFC. */
uint32_t pci_cf8_read(uint32_t bdf, unsigned int reg, unsigned int len);
void pci_cf8_write(uint32_t bdf, unsigned int reg, uint32_t val,
		   unsigned int len);

/* Guest-physical address of register reg of bdf in the ECAM window. */
static inline uint64_t pci_ecam_addr(uint32_t bdf, unsigned int reg)
{
	return PCI_ECAM_BASE + ((uint64_t)bdf << PCI_ECAM_DEVFN_SHIFT) +
	       (reg & 0xfffu);
}

/* len is 1, 2, 4 or 8 (naturally aligned), one access each. */
uint64_t pci_ecam_read(uint32_t bdf, unsigned int reg, unsigned int len);
void pci_ecam_write(uint32_t bdf, unsigned int reg, uint64_t val,
		    unsigned int len);

/* Either mechanism; len 1, 2 or 4. */
uint32_t pci_cfg_read(enum pci_mech m, uint32_t bdf, unsigned int reg,
		      unsigned int len);
void pci_cfg_write(enum pci_mech m, uint32_t bdf, unsigned int reg,
		   uint32_t val, unsigned int len);

struct pci_bar_info {
	uint64_t addr;		/* register contents without flag bits */
	uint64_t size;		/* 0: not implemented */
	uint32_t raw_lo;	/* read back after writing all-ones */
	uint32_t raw_hi;	/* same for the upper dword of a 64-bit BAR */
	bool io;
	bool is64;
	bool prefetch;
};

/*
 * Sizes BAR idx of bdf the classic way: save, write all-ones, read back,
 * write the saved value back (both dwords of a 64-bit BAR).  Writes go
 * through m; returns the number of BAR slots it spans (2 for a 64-bit BAR,
 * else 1).
 */
int pci_bar_probe(enum pci_mech m, uint32_t bdf, int idx,
		  struct pci_bar_info *out);

#endif
