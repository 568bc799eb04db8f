/* SPDX-License-Identifier: MIT */
/*
 * Reading the guest's ACPI tables: the FACS for S3 resume, and
 * --dump-acpi DIR, which finds the RSDP the firmware built (scanning
 * 0xE0000-0xFFFFF like an OS), follows XSDT, FADT→DSDT/FACS, and writes
 * each table as DIR/<signature>.dat for acpica-tools.  Every guest address
 * goes through the bounds-checked accessor: a hostile guest's tables can
 * only make the dump fail.
 */
#ifndef MINIVMM_ACPI_DUMP_H
#define MINIVMM_ACPI_DUMP_H

#include "vmm/memory.h"

/* The FACS the guest's FADT names (found as by the dump), or 0. */
uint64_t acpi_find_facs(struct gmem *mem);

/* Returns the number of tables written, or -1 after printing why. */
int acpi_dump(struct gmem *mem, const char *dir);

#endif
