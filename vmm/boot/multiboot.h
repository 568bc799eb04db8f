/* SPDX-License-Identifier: MIT */
/*
 * Multiboot v1 kernels (the kvm-unit-tests .flat files, among others):
 * finding and checking the header, the load layout (ELF program headers,
 * or the header's address fields when flag 16 asks for them), and
 * placement.  Segments at or above 1 MiB go straight into guest RAM; those
 * below 1 MiB (realmode.flat is linked at 32 KiB, where the firmware still
 * keeps its stacks) are staged above 1 MiB and listed in struct payload,
 * for the firmware to copy as its last act before the jump.  The boot
 * information itself (memory map, command line, modules) is the
 * firmware's (firmware/multiboot.c).
 *
 * Parsing works on buffers (unit-tested and fuzzed); every failure is bad
 * input: one line, and the caller exits with status 2.
 */
#ifndef MINIVMM_MULTIBOOT_H
#define MINIVMM_MULTIBOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/boot/loader.h"
#include "vmm/memory.h"

#define MB_HEADER_MAGIC		0x1badb002u
#define MB_SEARCH_BYTES		8192	/* the header lies within these */

#define MB_FLAG_PAGE_ALIGN	(1u << 0)	/* modules page aligned */
#define MB_FLAG_MEMORY_INFO	(1u << 1)	/* mem_* and mmap wanted */
#define MB_FLAG_VIDEO		(1u << 2)	/* a video mode wanted */
#define MB_FLAG_ADDRESSES	(1u << 16)	/* layout from the header */
/* Bits 0-15 are requirements: a loader must refuse those it cannot meet.
 * minivmm always aligns modules to pages and always gives memory info. */
#define MB_FLAGS_REQUIRED	0x0000ffffu
#define MB_FLAGS_MET		(MB_FLAG_PAGE_ALIGN | MB_FLAG_MEMORY_INFO)

/* Segments below 1 MiB may go to ABI_LOW_MEM_MIN..ABI_LOW_MEM_END (not
 * the IVT and BIOS data area, not the VGA hole and the tables above it),
 * but not into the firmware's boot-info area (the multiboot information
 * lives there). */

struct multiboot_image {
	uint32_t flags;
	size_t header_off;		/* file offset of the header */
	uint64_t entry;
	int nseg;
	struct elf_segment seg[ELF_MAX_SEGMENTS];
};

/* True if the first MB_SEARCH_BYTES hold the header magic at a 4-byte
 * aligned offset (the checksum is checked by multiboot_parse). */
bool multiboot_probe(const uint8_t *buf, size_t len);

/* The header and the layout.  -1 with err (LOADER_ERR_MAX bytes). */
int multiboot_parse(const uint8_t *buf, size_t len,
		    struct multiboot_image *img, char *err);

/* Places a parsed image: p gets kind, entry, the RAM range it occupies
 * (high segments and the staging area, all at or above 1 MiB) and the
 * low segments.  -1 with err. */
int multiboot_place(struct gmem *mem, const uint8_t *buf,
		    const struct multiboot_image *img, struct payload *p,
		    char *err);

/* parse + place, printing "minivmm: error: --kernel 'PATH': ..." */
int multiboot_load(struct gmem *mem, const char *path, const uint8_t *buf,
		   size_t len, struct payload *p);

#endif
