/* SPDX-License-Identifier: MIT */
/*
 * What the firmware knows of the machine, as plain data: the description
 * the VMM hands over in the FDT at ABI_FDT_ADDR (see abi.h for the schema),
 * read and checked once by dt.c.  Strings point into the FDT, which stays
 * in place.
 */
#ifndef FW_MACHINE_H
#define FW_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "firmware/lib/abi.h"
#include "firmware/lib/e820.h"

#define MACHINE_MAX_RAM		8
#define MACHINE_MAX_CPUS	255	/* xAPIC IDs, MADT, AP counter */

/* PCI windows and ECAM must end at or below this (APICs, ROM above; the
 * APICs' addresses are fixed, not in the FDT: firmware/lib/abi.h). */
#define MACHINE_MMIO_TOP	ABI_IOAPIC_BASE
#define MACHINE_PCI_IO_MIN	0xd00u	/* legacy and ACPI PM ports below */

enum payload_kind {
	PAYLOAD_NONE,
	PAYLOAD_PVH,
	PAYLOAD_BZIMAGE,
	PAYLOAD_MULTIBOOT,
};

#define MACHINE_MAX_LOW		8	/* multiboot segments below 1 MiB */

/* A staged segment: [src, +filesz) goes to dst, zeros up to memsz. */
struct low_segment {
	uint64_t dst, src, filesz, memsz;
};

struct mem_range {
	uint64_t start;
	uint64_t size;
};

struct machine_pci {
	unsigned int bus_last;		/* buses 0..bus_last */
	bool has_ecam;
	struct mem_range ecam;		/* covers buses 0..bus_last */
	bool pio;			/* CF8/CFC decoded */
	struct mem_range io;		/* I/O BAR window */
	struct mem_range mem32;		/* 32-bit memory window */
	struct mem_range mem64;		/* size 0: none */
};

#define MACHINE_MAX_UARTS	4	/* COM1..COM4 */

/* A 16550A on ISA ports (a serial@PORT node). */
struct machine_uart {
	uint16_t port;
	uint8_t irq;
};

struct machine {
	struct e820_entry ram[MACHINE_MAX_RAM];	/* sorted, type E820_RAM */
	unsigned int n_ram;
	uint64_t ram_total;
	uint64_t low_ram_end;		/* end of RAM below 4 GiB */
	uint64_t high_ram_end;		/* end of RAM above 4 GiB, 0: none */
	unsigned int n_cpus;
	const char *bootargs;		/* "" if absent */
	const char *options;		/* minivmm,options, "" if absent */
	bool xen_bar_wb;		/* xen-bar-mtrr=wb (the default) */
	enum payload_kind payload;
	uint64_t payload_entry;
	struct mem_range payload_range;
	struct low_segment low[MACHINE_MAX_LOW];	/* multiboot */
	unsigned int n_low;
	bool has_initrd;
	struct mem_range initrd;
	struct mem_range snapctl;	/* size 0: none; reserved MMIO */
	struct machine_uart uart[MACHINE_MAX_UARTS];
	unsigned int n_uart;
	struct machine_pci pci;
};

#endif
