/* SPDX-License-Identifier: MIT */
/*
 * The multiboot v1 boot information (the structure a multiboot kernel
 * finds at %ebx, with %eax = MBI_BOOT_MAGIC), built from the memory map
 * the firmware hands every payload: memory sizes, the command line, one
 * module, the memory map and the boot loader's name.  Pure data building
 * into a caller buffer that the guest sees at a given address below 4 GiB.
 *
 * Freestanding: <stdint.h>, <stddef.h>, <stdbool.h> only.
 */
#ifndef FW_LIB_MBI_H
#define FW_LIB_MBI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "firmware/lib/e820.h"

#define MBI_BOOT_MAGIC		0x2badb002u

#define MBI_FLAG_MEM		(1u << 0)
#define MBI_FLAG_CMDLINE	(1u << 2)
#define MBI_FLAG_MODS		(1u << 3)
#define MBI_FLAG_MMAP		(1u << 6)
#define MBI_FLAG_LOADER_NAME	(1u << 9)

struct mbi {
	uint32_t flags;
	uint32_t mem_lower;		/* KiB of RAM from 0 (at most 640) */
	uint32_t mem_upper;		/* KiB of RAM from 1 MiB, contiguous */
	uint32_t boot_device;
	uint32_t cmdline;
	uint32_t mods_count;
	uint32_t mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length;		/* bytes */
	uint32_t mmap_addr;
	uint32_t drives_length;
	uint32_t drives_addr;
	uint32_t config_table;
	uint32_t boot_loader_name;
	uint32_t apm_table;
	uint32_t vbe[6];
};

struct mbi_module {
	uint32_t mod_start;
	uint32_t mod_end;		/* first byte after */
	uint32_t string;
	uint32_t reserved;
};

/* "size" counts the bytes after itself: the next entry is at +size+4. */
struct mbi_mmap_entry {
	uint32_t size;
	uint64_t addr;
	uint64_t len;
	uint32_t type;			/* e820 numbering: 1 RAM, 2 reserved */
} __attribute__((packed));

struct mbi_config {
	const struct e820_entry *map;	/* sorted, as tables_e820 makes it */
	size_t n_map;
	uint32_t cmdline;		/* guest addresses of NUL-terminated */
	uint32_t loader_name;		/* strings the caller placed */
	bool has_module;
	uint64_t mod_start, mod_size;
	uint32_t mod_string;
};

#define MBI_OK			0
#define MBI_ERR_NOSPACE		(-1)	/* buffer too small */
#define MBI_ERR_RANGE		(-2)	/* something at or above 4 GiB */

/* Writes struct mbi, then the module (if any), then the memory map into
 * buf[0..size), which the guest sees at gpa.  *used gets the bytes
 * written.  MBI_OK or MBI_ERR_*. */
int mbi_build(const struct mbi_config *c, void *buf, size_t size,
	      uint32_t gpa, size_t *used);

/* KiB of RAM from addr on, without a hole, in the map (0 if addr is not
 * RAM), capped at 2^32 - 1. */
uint32_t mbi_contiguous_kib(const struct e820_entry *map, size_t n,
			    uint64_t addr);

#endif
