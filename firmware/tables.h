/* SPDX-License-Identifier: MIT */
/*
 * The tables an OS reads (ring 3): ACPI (acpi_build) at ABI_TABLES_BASE
 * with the RSDP first, SMBIOS (smbios_build) with its entry point at
 * TABLES_SMBIOS (where Linux's scan finds it at once), and the memory map.
 */
#ifndef FW_TABLES_H
#define FW_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "firmware/lib/e820.h"
#include "firmware/machine.h"
#include "firmware/pci.h"

#define TABLES_SMBIOS	0xf0000u
/* Real-mode interrupt stubs for multiboot payloads (bios_ivt.h), in the
 * reserved tables area, reachable from real mode. */
#define TABLES_BIOS_STUBS	0xfff00u

/* Builds ACPI and SMBIOS; returns the RSDP address.  Ends the VM
 * (ABI_FW_FAIL_INTERNAL, or ABI_FW_FAIL_CPUS) if they cannot be built. */
uint64_t tables_build(const struct machine *m, const struct pci_state *p);

/* The memory map: RAM, with the firmware RAM [ABI_FW_RAM_BASE,
 * ABI_FW_RAM_END) and the boot page tables [ABI_BOOT_PT_BASE,
 * ABI_BOOT_PT_END) reserved, the VGA hole omitted, [ABI_TABLES_BASE,
 * ABI_TABLES_END) reserved, and the ECAM window reserved.  Returns the
 * number of entries written to out (at most cap); ends the VM if cap is
 * too small. */
unsigned int tables_e820(const struct machine *m, struct e820_entry *out,
			 size_t cap);

#endif
