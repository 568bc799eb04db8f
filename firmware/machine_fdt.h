/* SPDX-License-Identifier: MIT */
/*
 * Internal to the device-tree reader (machine.c, machine_pci.c): one
 * property as libfdt returns it, and checked accessors that end the VM
 * with ABI_FW_FAIL_FDT on a malformed value.
 */
#ifndef FW_MACHINE_FDT_H
#define FW_MACHINE_FDT_H

#include <stdbool.h>
#include <stdint.h>

#include "firmware/machine.h"

struct prop {
	const char *name;
	const void *val;
	int len;
};

/* Name match; the first-byte test spares most strcmp calls. */
bool prop_is(const struct prop *p, const char *name);
const char *prop_string(const struct prop *p);
uint32_t prop_u32(const struct prop *p);
/* n big-endian u64 values (n <= 4), exactly. */
void prop_u64s(const struct prop *p, uint64_t *v, int n);

/* machine_pci.c: the /pci node's properties, then the checks once the
 * whole tree (RAM included) is known. */
struct pci_seen {
	bool node, compatible, bus_range, pio, io, mem32, mem64;
};

void machine_pci_prop(struct machine *m, const struct prop *p,
		      struct pci_seen *seen);
void machine_pci_check(const struct machine *m, const struct pci_seen *seen);

#endif
