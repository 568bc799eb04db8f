/* SPDX-License-Identifier: MIT */
/*
 * The PVH boot ABI's start-of-day structures (Xen public/arch-x86/
 * hvm/start_info.h, version 1), as the firmware hands them to a PVH payload
 * in %ebx.  Types only; shared with test payloads.
 */
#ifndef FW_LIB_HVM_START_INFO_H
#define FW_LIB_HVM_START_INFO_H

#include <stdint.h>

#define HVM_START_MAGIC		0x336ec578u
#define HVM_START_VERSION	1u

struct hvm_start_info {
	uint32_t magic;
	uint32_t version;
	uint32_t flags;
	uint32_t nr_modules;
	uint64_t modlist_paddr;		/* struct hvm_modlist_entry[] */
	uint64_t cmdline_paddr;		/* NUL-terminated */
	uint64_t rsdp_paddr;		/* ACPI RSDP, 0 if none */
	uint64_t memmap_paddr;		/* struct hvm_memmap_table_entry[] */
	uint32_t memmap_entries;
	uint32_t reserved;
};

struct hvm_modlist_entry {
	uint64_t paddr;
	uint64_t size;
	uint64_t cmdline_paddr;
	uint64_t reserved;
};

/* Types as in e820: 1 RAM, 2 reserved, 3 ACPI, 4 NVS. */
struct hvm_memmap_table_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t type;
	uint32_t reserved;
};

_Static_assert(sizeof(struct hvm_start_info) == 56, "hvm_start_info size");
_Static_assert(sizeof(struct hvm_modlist_entry) == 32, "modlist size");
_Static_assert(sizeof(struct hvm_memmap_table_entry) == 24, "memmap size");

#endif
