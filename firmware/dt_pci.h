/* SPDX-License-Identifier: MIT */
/*
 * The /pci node of the machine description (dt_pci.c): its
 * properties as the reader meets them, then the checks once the whole
 * tree (RAM included) is known.
 */
#ifndef FW_DT_PCI_H
#define FW_DT_PCI_H

#include <stdbool.h>

#include "firmware/dt_prop.h"
#include "firmware/machine.h"

struct pci_seen {
	bool node, compatible, bus_range, pio, io, mem32, mem64;
};

void machine_pci_prop(struct machine *m, const struct prop *p,
		      struct pci_seen *seen);
void machine_pci_check(const struct machine *m, const struct pci_seen *seen);

#endif
