/* SPDX-License-Identifier: MIT */
/*
 * The guest memory map (e820 / PVH memmap) as pure data: checking the RAM
 * ranges of the machine description, and turning them plus the firmware's
 * holes into a sorted, merged map.  Freestanding, no I/O, no globals.
 */
#ifndef FW_LIB_E820_H
#define FW_LIB_E820_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define E820_OMIT	0	/* carve only: drop from the map */
#define E820_RAM	1
#define E820_RESERVED	2
#define E820_ACPI	3
#define E820_NVS	4

/* Same layout as Xen's struct hvm_memmap_table_entry. */
struct e820_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t type;
	uint32_t reserved;
};

#define E820_EINVAL	1	/* zero size or addr + size wraps */
#define E820_EOVERLAP	2	/* input ranges overlap */
#define E820_EORDER	3	/* input ranges not sorted */
#define E820_ENOSPC	4	/* output array too small */

/* Sort the RAM ranges by address in place and check them: every size
 * non-zero, no wrap past 2^64, no overlaps (touching is fine).
 * Returns 0 or -E820_E*. */
int e820_ram_sort(struct e820_entry *ram, size_t n);

/* True if [addr, addr + size) (size > 0) lies inside one of the ranges. */
bool e820_ram_contains(const struct e820_entry *ram, size_t n,
		       uint64_t addr, uint64_t size);

/* Build the memory map: the RAM ranges (sorted, checked by e820_ram_sort)
 * minus the carve ranges (sorted, non-overlapping); the part of RAM a carve
 * range covers is listed with the carve's type, or dropped for E820_OMIT.
 * Neighbours of equal type are merged.  Writes at most cap entries to out
 * and returns their number, or -E820_E*. */
int e820_build(const struct e820_entry *ram, size_t n_ram,
	       const struct e820_entry *carve, size_t n_carve,
	       struct e820_entry *out, size_t cap);

#endif
