/* SPDX-License-Identifier: MIT */
/*
 * --dump-acpi DIR: finds the RSDP the firmware built (scanning
 * 0xE0000-0xFFFFF like an OS), follows XSDT, FADT→DSDT/FACS, and writes
 * each table as DIR/<signature>.dat for acpica-tools.  Every guest address
 * goes through the bounds-checked accessor: a hostile guest's tables can
 * only make the dump fail.
 */
#ifndef MINIVMM_ACPI_DUMP_H
#define MINIVMM_ACPI_DUMP_H

#include "vmm/memory.h"

/* Returns the number of tables written, or -1 after printing why. */
int acpi_dump(struct gmem *mem, const char *dir);

#endif
