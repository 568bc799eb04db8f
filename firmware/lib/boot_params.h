/* SPDX-License-Identifier: MIT */
/*
 * Linux's "zero page" (struct boot_params, Documentation/arch/x86/
 * zero-page.rst and boot.rst) for the 64-bit boot protocol, as pure data:
 * the setup header copied from the bzImage, the loader's fields (command
 * line, initrd, loader type), the e820 map and the RSDP address.
 * Freestanding, no I/O, no globals; used by the firmware (linuxboot.c) and
 * unit-tested on the host.
 */
#ifndef FW_LIB_BOOT_PARAMS_H
#define FW_LIB_BOOT_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "firmware/lib/e820.h"

#define BOOT_PARAMS_SIZE	4096

/* Offsets in boot_params. */
#define BP_ACPI_RSDP_ADDR	0x070
#define BP_EXT_RAMDISK_IMAGE	0x0c0
#define BP_EXT_RAMDISK_SIZE	0x0c4
#define BP_EXT_CMD_LINE_PTR	0x0c8
#define BP_E820_ENTRIES		0x1e8
#define BP_HDR			0x1f1	/* the setup header starts here */
#define BP_HDR_END_MAX		0x290
#define BP_TYPE_OF_LOADER	0x210
#define BP_RAMDISK_IMAGE	0x218
#define BP_RAMDISK_SIZE		0x21c
#define BP_CMD_LINE_PTR		0x228
#define BP_CMDLINE_SIZE		0x238
#define BP_E820_TABLE		0x2d0
#define BP_E820_MAX		128
#define BP_E820_ENTRY_SIZE	20	/* packed: u64 addr, u64 size, u32 */

/* The setup header must reach at least past cmdline_size (2.06+). */
#define BP_HDR_MIN_LEN		(BP_CMDLINE_SIZE + 4 - BP_HDR)

#define BP_LOADER_UNDEFINED	0xff	/* type_of_loader: not registered */

struct boot_params_in {
	const uint8_t *setup_header;	/* as in the bzImage from 0x1f1 */
	size_t setup_header_len;
	uint64_t cmdline_addr;		/* where the command line is */
	size_t cmdline_len;		/* its length without the NUL */
	uint64_t initrd_addr, initrd_size;	/* size 0: none */
	const struct e820_entry *e820;
	unsigned int n_e820;
	uint64_t rsdp;			/* 0: none */
};

#define BP_EHEADER	1	/* setup header too short or too long */
#define BP_ECMDLINE	2	/* command line longer than cmdline_size */
#define BP_EE820	3	/* more than BP_E820_MAX entries */

/* Fills bp (BOOT_PARAMS_SIZE bytes, zeroed first).  Returns 0 or
 * -BP_E*. */
int boot_params_build(uint8_t *bp, const struct boot_params_in *in);

/* The kernel's cmdline_size from a setup header (0 if too short). */
uint32_t boot_params_cmdline_size(const uint8_t *setup_header, size_t len);

#endif
