/* SPDX-License-Identifier: MIT */
/*
 * The long-mode page tables, fixed in ROM: no instruction builds them.
 * Filling 2048 2 MiB entries in RAM costs ~6 ms of emulated ring-0 code on
 * the target host (whose KVM offers no 1 GiB pages); these cost nothing.
 * Accessed and dirty bits are preset, so the CPU never writes them.
 *
 *   PML4[0]   -> PDPT: identity map 0..4 GiB with 2 MiB pages
 *   PML4[511] -> the same PDPT, whose [511] -> PD 3: the top 1 GiB of the
 *                64-bit address space shows 3..4 GiB, the ROM alias the
 *                64-bit code is linked at (fw.lds)
 *
 * Everything is mapped write-back; MMIO is left to the MTRRs.
 */
#include "firmware/entry.h"

	.globl	fw_pt_phys
	.set	fw_pt_phys, FW_PT_PHYS		/* checked by fw.lds */

#define PDPT	(FW_PT_PHYS + 0x1000)
#define PD(n)	(FW_PT_PHYS + 0x2000 + (n) * 0x1000)

	.section .pagetables, "a"
pml4:
	.quad	PDPT + PTE_TABLE
	.fill	510, 8, 0
	.quad	PDPT + PTE_TABLE
pdpt:
	.quad	PD(0) + PTE_TABLE
	.quad	PD(1) + PTE_TABLE
	.quad	PD(2) + PTE_TABLE
	.quad	PD(3) + PTE_TABLE
	.fill	507, 8, 0
	.quad	PD(3) + PTE_TABLE
pds:
	.set	page, 0
	.rept	2048
	.quad	(page << 21) + PTE_LARGE
	.set	page, page + 1
	.endr

	.section .note.GNU-stack, "", @progbits
