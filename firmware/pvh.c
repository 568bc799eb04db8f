// SPDX-License-Identifier: MIT
/*
 * PVH boot (Xen's "HVM direct boot" ABI, as Linux's CONFIG_PVH entry
 * expects it).  Boot-info area layout, from ABI_BOOTINFO_BASE:
 *
 *   +0x0000  struct hvm_start_info
 *   +0x0040  struct hvm_modlist_entry (initrd, if any)
 *   +0x0100  memory map, up to PVH_MEMMAP_MAX entries
 *   +0x1000  command line, up to ABI_BOOTINFO_END
 */
#include <stddef.h>
#include <string.h>

#include "firmware/io.h"
#include "firmware/lib/abi.h"
#include "firmware/lib/e820.h"
#include "firmware/lib/hvm_start_info.h"
#include "firmware/print.h"
#include "firmware/pvh.h"
#include "firmware/tables.h"

#define PVH_START_INFO	(ABI_BOOTINFO_BASE + 0x0)
#define PVH_MODLIST	(ABI_BOOTINFO_BASE + 0x40)
#define PVH_MEMMAP	(ABI_BOOTINFO_BASE + 0x100)
#define PVH_MEMMAP_MAX	64
#define PVH_CMDLINE	(ABI_BOOTINFO_BASE + 0x1000)
#define PVH_CMDLINE_MAX	(ABI_BOOTINFO_END - PVH_CMDLINE)	/* with NUL */

_Static_assert(PVH_MEMMAP + PVH_MEMMAP_MAX * sizeof(struct e820_entry) <=
	       PVH_CMDLINE, "PVH memory map overlaps the command line");
_Static_assert(sizeof(struct e820_entry) ==
	       sizeof(struct hvm_memmap_table_entry) &&
	       offsetof(struct e820_entry, type) ==
	       offsetof(struct hvm_memmap_table_entry, type),
	       "e820_entry must match hvm_memmap_table_entry");

#define fail(...)	fw_fail(ABI_FW_FAIL_PAYLOAD, __VA_ARGS__)

/* handoff.S */
__attribute__((noreturn)) void pvh_jump(uint32_t entry, uint32_t start_info);

static void check_range(const struct machine *m, const char *what,
			const struct mem_range *r)
{
	if (r->start < ABI_PAYLOAD_MIN ||
	    !e820_ram_contains(m->ram, m->n_ram, r->start, r->size))
		fail("%s [0x%llx, +0x%llx) is not in RAM above 1 MiB", what,
		     (unsigned long long)r->start,
		     (unsigned long long)r->size);
}

static void check_payload(const struct machine *m)
{
	const struct mem_range *p = &m->payload_range;
	uint64_t entry = m->payload_entry;

	check_range(m, "payload", p);
	if (entry < p->start || entry - p->start >= p->size ||
	    entry >= 0x100000000ull)
		fail("PVH entry 0x%llx is outside the payload or above 4 GiB",
		     (unsigned long long)entry);
	if (!m->has_initrd)
		return;
	check_range(m, "initrd", &m->initrd);
	if (m->initrd.start < p->start + p->size &&
	    p->start < m->initrd.start + m->initrd.size)
		fail("initrd overlaps the payload");
}

static void build_start_info(const struct machine *m, uint64_t rsdp)
{
	struct hvm_start_info *si = phys_ptr(PVH_START_INFO);
	struct hvm_modlist_entry *mod = phys_ptr(PVH_MODLIST);
	size_t len = strnlen(m->bootargs, PVH_CMDLINE_MAX);
	unsigned int n;

	if (len == PVH_CMDLINE_MAX)
		fail("bootargs longer than %u bytes", PVH_CMDLINE_MAX - 1);
	memcpy(phys_ptr(PVH_CMDLINE), m->bootargs, len + 1);
	n = tables_e820(m, phys_ptr(PVH_MEMMAP), PVH_MEMMAP_MAX);
	*si = (struct hvm_start_info){
		.magic = HVM_START_MAGIC,
		.version = HVM_START_VERSION,
		.cmdline_paddr = PVH_CMDLINE,
		.rsdp_paddr = rsdp,
		.memmap_paddr = PVH_MEMMAP,
		.memmap_entries = n,
	};
	if (m->has_initrd) {
		*mod = (struct hvm_modlist_entry){
			.paddr = m->initrd.start, .size = m->initrd.size,
		};
		si->nr_modules = 1;
		si->modlist_paddr = PVH_MODLIST;
	}
}

void pvh_prepare(const struct machine *m, uint64_t rsdp)
{
	check_payload(m);
	build_start_info(m, rsdp);
}

void pvh_enter(const struct machine *m)
{
	progress(ABI_MS_FW_HANDOFF);
	pvh_jump((uint32_t)m->payload_entry, PVH_START_INFO);
}
