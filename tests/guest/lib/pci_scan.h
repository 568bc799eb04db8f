/* SPDX-License-Identifier: MIT */
/*
 * Whole-bus scans for payloads: which functions answer through one
 * mechanism, a 4 KiB snapshot of chosen functions, and proof that every
 * other function reads all-ones (every register, or a sample where reads
 * cost exits); then comparing snapshots with each other and with
 * narrower and wider reads.  An ECAM scan may run in ring 3 (run_user):
 * it does no port I/O and keeps its results in the struct.
 */
#ifndef GUEST_PCI_SCAN_H
#define GUEST_PCI_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "pci_access.h"

#define PCI_SCAN_DWORDS		(PCI_CFG_SPACE_EXP_SIZE / 4)
#define PCI_SCAN_MAX_FOUND	16

struct pci_scan {
	/* In: */
	enum pci_mech m;
	unsigned int buses;		/* scan buses 0..buses-1 (1..256) */
	bool full;			/* every register of absent functions,
					 * else a sample (12 on bus 0, 3 on
					 * other buses) */
	const uint32_t *keep;		/* functions to snapshot... */
	unsigned int nkeep;
	uint32_t (*snap)[PCI_SCAN_DWORDS];	/* ...into snap[i] */
	/* Out: */
	unsigned int nfns;		/* functions scanned */
	unsigned int nfound;		/* with vendor/device != all-ones */
	uint32_t found[PCI_SCAN_MAX_FOUND];
	unsigned int bad;		/* other non-all-ones reads */
	uint32_t first_bad;		/* bdf << 12 | reg */
	uint32_t bad_val;
};

/* Scans s->buses buses, then bus s->buses (when < 256) at two functions,
 * which must read all-ones: through ECAM that read is an uncounted plain
 * MMIO read, as it lies outside the window.  Also usable as a run_user
 * function when s->m is PCI_MECH_ECAM. */
void pci_scan_run(void *s);

/* Dwords that differ between two snapshots; *first (optional) gets the
 * index of the first. */
unsigned int pci_snap_diff(const uint32_t *a, const uint32_t *b,
			   unsigned int *first);

/* Reads every byte and aligned word of [0, len) of bdf through m (and
 * every aligned qword when m is ECAM) and counts the reads that differ
 * from the dword snapshot snap.  len <= PCI_SCAN_DWORDS * 4 - 8. */
unsigned int pci_snap_width_errors(enum pci_mech m, uint32_t bdf,
				   const uint32_t *snap, unsigned int len);

#endif
