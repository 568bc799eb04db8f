/* SPDX-License-Identifier: MIT */
/*
 * The machine description the VMM hands over in the FDT at ABI_FDT_ADDR,
 * read once into plain data (see abi.h for the schema).  Strings point
 * into the FDT, which stays in place.
 */
#ifndef FW_MACHINE_H
#define FW_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "firmware/lib/e820.h"

#define MACHINE_MAX_RAM		8
#define MACHINE_MAX_CPUS	255	/* xAPIC IDs */

enum payload_kind {
	PAYLOAD_NONE,
	PAYLOAD_PVH,
	PAYLOAD_BZIMAGE,
};

struct mem_range {
	uint64_t start;
	uint64_t size;
};

struct machine {
	struct e820_entry ram[MACHINE_MAX_RAM];	/* sorted, type E820_RAM */
	unsigned int n_ram;
	uint64_t ram_total;
	unsigned int n_cpus;
	const char *bootargs;		/* "" if absent */
	const char *options;		/* minivmm,options, "" if absent */
	enum payload_kind payload;
	uint64_t payload_entry;		/* PVH only */
	struct mem_range payload_range;	/* PVH only */
	bool has_initrd;
	struct mem_range initrd;
};

/* Read and check the description; ends the VM (ABI_FW_FAIL_FDT, or
 * ABI_FW_FAIL_CPUS) with a message when it is missing or malformed. */
void machine_read(struct machine *m, const void *fdt);

#endif
