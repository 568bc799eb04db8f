/* SPDX-License-Identifier: MIT */
/*
 * Guest memory: the host mappings behind guest RAM, the firmware ROM and
 * other memslots, and the one bounds-checked translation from guest-physical
 * ranges to host pointers.  No other code does arithmetic on guest addresses
 * to reach host memory.
 */
#ifndef MINIVMM_MEMORY_H
#define MINIVMM_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GMEM_MAX_REGIONS	16

struct gmem_region {
	uint64_t gpa;
	uint64_t size;
	uint8_t *host;		/* host mapping of [gpa, gpa+size) */
	uint32_t slot;		/* KVM memslot id */
	bool readonly;		/* KVM_MEM_READONLY */
	bool is_ram;		/* guest RAM (vs ROM, shadows, BAR backing) */
	bool mapped;		/* currently a KVM memslot at gpa */
	uint64_t fd_offset;	/* RAM in gmem.ram_fd: where it starts */
	const char *name;
};

struct gmem {
	int vm_fd;		/* -1 in unit tests: no KVM calls */
	uint64_t ram_size;	/* total guest RAM */
	uint64_t low_ram_end;	/* end of RAM below 4 GiB */
	uint64_t high_ram_end;	/* end of RAM above 4 GiB (= 4 GiB if none) */
	uint8_t *ram_map;	/* one reservation with guard pages */
	size_t ram_map_size;
	int ram_fd;		/* gmem_share's memfd, or -1: private RAM */
	int n;
	struct gmem_region regions[GMEM_MAX_REGIONS];
	uint32_t next_slot;
};

/* Reserve guest RAM of ram_size bytes: low part below LAYOUT_LOW_RAM_MAX,
 * the rest from 4 GiB; each part surrounded by PROT_NONE guard pages and
 * registered with KVM if vm_fd >= 0.  Returns 0, or -1 with errno set
 * (ENOMEM when the host cannot map that much). */
int gmem_init(struct gmem *mem, int vm_fd, uint64_t ram_size);
void gmem_destroy(struct gmem *mem);
/* Back guest RAM by one memfd mapped shared, at the same addresses, so a
 * vhost-user back end can map it too (ram_fd; each RAM region's
 * fd_offset).  Right after gmem_init, before RAM is written.  0 or -1
 * (errno). */
int gmem_share(struct gmem *mem);

/* Add a memslot backed by host (size page-aligned), e.g. the firmware ROM
 * (readonly) or a RAM-backed BAR.  Returns the region index or -1. */
int gmem_add_region(struct gmem *mem, uint64_t gpa, uint64_t size,
		    void *host, bool readonly, const char *name);
/* Add a writable region that is not mapped anywhere yet (no memslot until
 * gmem_place_region maps it), e.g. a RAM-backed BAR before the guest
 * enables it.  Returns the region index or -1. */
int gmem_add_unmapped(struct gmem *mem, uint64_t size, void *host,
		      const char *name);
/* Map an added region at gpa (mapped) or unmap it (its memslot is
 * deleted; the backing stays).  -1 if the new place overlaps another mapped
 * region or is misaligned; the region then stays where it was. */
int gmem_place_region(struct gmem *mem, int idx, uint64_t gpa, bool mapped);

/* Host pointer for [gpa, gpa+len) if the whole range lies inside one RAM
 * region (checked arithmetic); NULL otherwise.  ROM and device regions are
 * not reachable through this: use gmem_region_ptr for them. */
void *gmem_ptr(struct gmem *mem, uint64_t gpa, uint64_t len);
/* Same for any region (including ROM), for VMM-internal use. */
void *gmem_any_ptr(struct gmem *mem, uint64_t gpa, uint64_t len);

/* Copy to/from guest RAM; -1 if the range is not entirely RAM. */
int gmem_read(struct gmem *mem, uint64_t gpa, void *buf, uint64_t len);
int gmem_write(struct gmem *mem, uint64_t gpa, const void *buf, uint64_t len);

/* A debugger's access (gdb stub): [gpa, gpa+len) in RAM or ROM; writes
 * to ROM make its host page writable for the copy only.  0, or -1 if the
 * range is not entirely one such region. */
int gmem_debug_read(struct gmem *mem, uint64_t gpa, void *buf, uint64_t len);
int gmem_debug_write(struct gmem *mem, uint64_t gpa, const void *buf,
		     uint64_t len);

/* True if [gpa, gpa+len) overlaps any mapped region (for BAR placement checks). */
bool gmem_overlaps(struct gmem *mem, uint64_t gpa, uint64_t len);

#endif
