// SPDX-License-Identifier: MIT
/* Multiboot information; see mbi.h. */
#include "firmware/lib/mbi.h"
#include "firmware/lib/abi.h"

#define ONE_MIB		0x100000ull
#define FOUR_GIB	0x100000000ull

uint32_t mbi_contiguous_kib(const struct e820_entry *map, size_t n,
			    uint64_t addr)
{
	uint64_t end = addr;

	/* The map is sorted and merged, but neighbours of one type may
	 * still touch: follow RAM entries while they do. */
	for (size_t i = 0; i < n; i++) {
		const struct e820_entry *e = &map[i];

		if (e->type != E820_RAM || e->addr > end ||
		    e->size > UINT64_MAX - e->addr || e->addr + e->size <= end)
			continue;
		end = e->addr + e->size;
	}
	if ((end - addr) / 1024 > UINT32_MAX)
		return UINT32_MAX;
	return (uint32_t)((end - addr) / 1024);
}

static void *put(uint8_t *buf, size_t *off, size_t len)
{
	void *p = buf + *off;

	*off += len;
	return p;
}

static size_t need(const struct mbi_config *c)
{
	return sizeof(struct mbi) +
	       (c->has_module ? sizeof(struct mbi_module) : 0) +
	       c->n_map * sizeof(struct mbi_mmap_entry);
}

int mbi_build(const struct mbi_config *c, void *buf, size_t size,
	      uint32_t gpa, size_t *used)
{
	uint64_t mod_end = c->mod_start + c->mod_size;
	uint32_t lower = mbi_contiguous_kib(c->map, c->n_map, 0);
	uint8_t *b = buf;
	struct mbi *mbi;
	size_t off = 0;

	if (size < need(c))
		return MBI_ERR_NOSPACE;
	if (gpa + (uint64_t)need(c) > FOUR_GIB ||
	    (c->has_module && (mod_end < c->mod_start || mod_end > FOUR_GIB)))
		return MBI_ERR_RANGE;
	mbi = put(b, &off, sizeof(*mbi));
	*mbi = (struct mbi){
		.flags = MBI_FLAG_MEM | MBI_FLAG_CMDLINE | MBI_FLAG_MODS |
			 MBI_FLAG_MMAP | MBI_FLAG_LOADER_NAME,
		.mem_lower = lower > ABI_LOW_MEM_END / 1024 ?
			     ABI_LOW_MEM_END / 1024 : lower,
		.mem_upper = mbi_contiguous_kib(c->map, c->n_map, ONE_MIB),
		.boot_device = 0xffffffffu,	/* no BIOS disk */
		.cmdline = c->cmdline,
		.boot_loader_name = c->loader_name,
	};
	if (c->has_module) {
		struct mbi_module *m = put(b, &off, sizeof(*m));

		*m = (struct mbi_module){ (uint32_t)c->mod_start,
					  (uint32_t)mod_end, c->mod_string, 0 };
		mbi->mods_count = 1;
		mbi->mods_addr = gpa + (uint32_t)((uint8_t *)m - b);
	}
	mbi->mmap_addr = gpa + (uint32_t)off;
	for (size_t i = 0; i < c->n_map; i++) {
		struct mbi_mmap_entry *e = put(b, &off, sizeof(*e));

		e->size = sizeof(*e) - sizeof(e->size);
		e->addr = c->map[i].addr;
		e->len = c->map[i].size;
		e->type = c->map[i].type;
	}
	mbi->mmap_length = (uint32_t)(c->n_map * sizeof(struct mbi_mmap_entry));
	*used = off;
	return MBI_OK;
}
