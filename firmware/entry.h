/* SPDX-License-Identifier: MIT */
/*
 * Constants shared by the firmware's assembly (entry.S, handoff.S,
 * pagetables.S) and C: GDT selectors, control-register and MSR bits.  Must
 * stay valid for both the assembler and the C compiler (no C-only syntax
 * such as 'u' suffixes).
 */
#ifndef FW_ENTRY_H
#define FW_ENTRY_H

/* GDT in ROM (entry.S).  Accessed bits are preset: ROM cannot be written. */
#define GDT_CODE32	0x08	/* flat 4 GiB, 32-bit */
#define GDT_CODE64	0x10	/* long mode */
#define GDT_DATA	0x18	/* flat 4 GiB, read/write */

#define CR0_PE		0x00000001
#define CR0_MP		0x00000002
#define CR0_EM		0x00000004
#define CR0_ET		0x00000010
#define CR0_NE		0x00000020
#define CR0_NW		0x20000000
#define CR0_CD		0x40000000
#define CR0_PG		0x80000000

#define CR4_PAE		0x00000020
#define CR4_OSFXSR	0x00000200
#define CR4_OSXMMEXCPT	0x00000400

#define MSR_EFER	0xc0000080
#define EFER_LME	0x00000100
#define MSR_FS_BASE	0xc0000100

/* The ROM page tables (pagetables.S): PML4, PDPT, 4 PDs, 24 KiB right
 * below the reset page.  CR3 value. */
#define FW_PT_PHYS	0xffff9000

/* Page-table entry bits: present, writable, accessed, dirty, large.  A and
 * D are preset so the CPU never has to write them back. */
#define PTE_TABLE	0x23
#define PTE_LARGE	0xe3

/* ABI_FW_FAIL_MAGIC | ABI_FW_FAIL_INTERNAL for entry.S (no long mode);
 * checked in exit.c. */
#define FW_EXIT_INTERNAL	0x4d460006

#endif
