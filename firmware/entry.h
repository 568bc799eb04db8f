/* SPDX-License-Identifier: MIT */
/*
 * Constants shared by the firmware's assembly (entry.S, handoff.S) and C: GDT selectors, control-register and MSR bits.  Must
 * stay valid for both the assembler and the C compiler (no C-only syntax
 * such as 'u' suffixes).
 */
#ifndef FW_ENTRY_H
#define FW_ENTRY_H

/* GDT selectors.  The boot GDT in ROM (entry.S) has the first four, with
 * accessed bits preset (ROM cannot be written); cpu.c moves to a copy in
 * RAM that adds ring 3 and the TSS (LTR writes the busy bit). */
#define GDT_CODE32	0x08	/* flat 4 GiB, 32-bit */
#define GDT_CODE64	0x10	/* long mode */
#define GDT_DATA	0x18	/* flat 4 GiB, read/write */
#define GDT_USER_DATA	0x23	/* 0x20 | RPL 3 */
#define GDT_USER_CODE64	0x2b	/* 0x28 | RPL 3 */
#define GDT_TSS		0x30	/* 16-byte system descriptor */

/* Fixed places in the firmware RAM [ABI_FW_RAM_BASE, ABI_FW_RAM_END); see
 * fw.lds for the whole map. */
#define FW_GDT_ADDR	0x1000	/* 8 descriptors + TSS, 72 bytes */
#define FW_TSS_ADDR	0x1080	/* 104 bytes */
#define FW_IDT_ADDR	0x1100	/* 32 gates, 512 bytes */
#define FW_IDT_VECTORS	32
#define FW_AP_ADDR	0x2000	/* AP trampoline page: SIPI vector 0x02 */
#define FW_AP_COUNT	0x2080	/* u16: APs that finished */
#define FW_AP_MSRS	0x2100	/* MSR list the APs apply (mtrr.h) */
#define FW_AP_END	0x3000

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

/* ABI_FW_FAIL_MAGIC | ABI_FW_FAIL_INTERNAL for entry.S (no long mode);
 * checked in exit.c. */
#define FW_EXIT_INTERNAL	0x4d460006

#endif
