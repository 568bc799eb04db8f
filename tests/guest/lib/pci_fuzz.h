/* SPDX-License-Identifier: MIT */
/*
 * Random PCI abuse for robustness tests: config reads and writes of every
 * width (1, 2, 4 and 8 through ECAM) at random registers of random
 * functions through CF8/CFC and ECAM, BAR placements at interesting
 * addresses (RAM, the payload's own image, ECAM, LAPIC/IOAPIC, the reset
 * vector, other devices' ports, all-ones), COMMAND toggles, raw accesses to
 * the CF8/CFC ports, and accesses to the targets' BARs and a device's
 * fixed ports.
 *
 * The payload must survive whatever the VMM allows: memory accesses stay
 * inside the ECAM window (plus one page past its end) and inside BARs
 * that currently sit in the 32-bit PCI window; port accesses stay on
 * CF8-CFF (never writing 0xCF9, the reset control register on PC chipsets)
 * the given fixed ports and I/O BARs inside the PCI I/O window.  A BAR the
 * fuzzer places over the payload's own RAM must be refused by the VMM;
 * canaries planted in RAM before the run show whether any RAM changed.
 * Ring 0 only.
 */
#ifndef GUEST_PCI_FUZZ_H
#define GUEST_PCI_FUZZ_H

#include <stdint.h>

#define PCI_FUZZ_MAX_TARGETS	8

struct pci_fuzz_conf {
	uint64_t seed;
	uint64_t count;			/* random operations */
	uint64_t ecam_size;		/* bytes of ECAM window (0: none) */
	unsigned int buses;		/* buses to pick from (1..256) */
	/* Functions most accesses go to. */
	uint32_t targets[PCI_FUZZ_MAX_TARGETS];
	unsigned int ntargets;
	uint16_t port;			/* a device's fixed ports, or 0 */
	uint16_t port_len;
	/* RAM canaries, checked after the run: two dwords in each of n
	 * steps from base (at 0 and step / 2).  n = 0: none. */
	uint64_t canary_base, canary_step;
	unsigned int canary_n;
};

struct pci_fuzz_stats {
	uint64_t cf8;		/* config accesses through CF8/CFC */
	uint64_t ecam;		/* ECAM accesses */
	uint64_t bar;		/* BAR register writes (placements) */
	uint64_t command;	/* COMMAND writes */
	uint64_t ports;		/* fixed-port and BAR-window accesses */
	unsigned int canaries_bad;	/* RAM canaries found changed */
};

void pci_fuzz_run(const struct pci_fuzz_conf *c, struct pci_fuzz_stats *st);

#endif
