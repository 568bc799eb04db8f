// SPDX-License-Identifier: MIT
/* Guest memory.  RAM is one host reservation: [guard][low RAM][guard]
 * [high RAM][guard], so a VMM access that runs off either end of a RAM part
 * faults instead of touching other host memory. */
#include "vmm/memory.h"
#include "vmm/layout.h"

#include <errno.h>
#include <linux/kvm.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define GUARD_SIZE	(2ull * MiB)

static int set_slot(struct gmem *mem, const struct gmem_region *r,
		    uint64_t size)
{
	struct kvm_userspace_memory_region kr = {
		.slot = r->slot,
		.flags = r->readonly ? KVM_MEM_READONLY : 0,
		.guest_phys_addr = r->gpa,
		.memory_size = size,
		.userspace_addr = (uint64_t)(uintptr_t)r->host,
	};

	if (mem->vm_fd < 0)
		return 0;
	return ioctl(mem->vm_fd, KVM_SET_USER_MEMORY_REGION, &kr);
}

static int push_region(struct gmem *mem, uint64_t gpa, uint64_t size,
		       void *host, bool readonly, bool is_ram, bool mapped,
		       const char *name)
{
	struct gmem_region *r;

	if (mem->n == GMEM_MAX_REGIONS) {
		errno = ENOSPC;
		return -1;
	}
	r = &mem->regions[mem->n];
	*r = (struct gmem_region){
		.gpa = gpa, .size = size, .host = host, .slot = mem->next_slot,
		.readonly = readonly, .is_ram = is_ram, .mapped = mapped,
		.name = name,
	};
	if (mapped && set_slot(mem, r, size) < 0)
		return -1;
	mem->next_slot++;
	return mem->n++;
}

int gmem_init(struct gmem *mem, int vm_fd, uint64_t ram_size)
{
	uint64_t low, high;
	uint8_t *map;
	size_t total;

	memset(mem, 0, sizeof(*mem));
	mem->vm_fd = vm_fd;
	low = ram_size < LAYOUT_LOW_RAM_MAX ? ram_size : LAYOUT_LOW_RAM_MAX;
	high = ram_size - low;
	total = GUARD_SIZE + low + GUARD_SIZE + high + (high ? GUARD_SIZE : 0);
	if (total < ram_size) {
		errno = ENOMEM;
		return -1;
	}
	map = mmap(NULL, total, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED)
		return -1;
	mem->ram_map = map;
	mem->ram_fd = -1;
	mem->ram_map_size = total;
	mem->ram_size = ram_size;
	mem->low_ram_end = low;
	mem->high_ram_end = LAYOUT_HIGH_RAM_BASE + high;

	if (mprotect(map + GUARD_SIZE, low, PROT_READ | PROT_WRITE) < 0 ||
	    push_region(mem, 0, low, map + GUARD_SIZE, false, true, true,
			"ram-low") < 0)
		goto fail;
	if (high) {
		uint8_t *h = map + GUARD_SIZE + low + GUARD_SIZE;

		if (mprotect(h, high, PROT_READ | PROT_WRITE) < 0 ||
		    push_region(mem, LAYOUT_HIGH_RAM_BASE, high, h, false,
				true, true, "ram-high") < 0)
			goto fail;
	}
	return 0;
fail:
	munmap(map, total);
	mem->ram_map = NULL;
	return -1;
}

int gmem_share(struct gmem *mem)
{
	uint64_t off = 0;
	int fd = memfd_create("minivmm-ram", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)mem->ram_size) < 0)
		goto fail;
	for (int i = 0; i < mem->n; i++) {
		struct gmem_region *r = &mem->regions[i];

		if (!r->is_ram)
			continue;
		/* Nothing has touched these pages yet: replacing them
		 * under KVM's memslot loses nothing. */
		if (mmap(r->host, r->size, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, (off_t)off) == MAP_FAILED)
			goto fail;
		r->fd_offset = off;
		off += r->size;
	}
	mem->ram_fd = fd;
	return 0;
fail:
	close(fd);
	return -1;
}

void gmem_destroy(struct gmem *mem)
{
	if (mem->ram_map)
		munmap(mem->ram_map, mem->ram_map_size);
	if (mem->ram_map && mem->ram_fd >= 0)
		close(mem->ram_fd);
	mem->ram_map = NULL;
	mem->n = 0;
}

static bool ranges_overlap(uint64_t a, uint64_t alen, uint64_t b,
			   uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

static bool overlaps_except(struct gmem *mem, uint64_t gpa, uint64_t len,
			    int skip)
{
	for (int i = 0; i < mem->n; i++) {
		const struct gmem_region *r = &mem->regions[i];

		if (i != skip && r->mapped &&
		    ranges_overlap(gpa, len, r->gpa, r->size))
			return true;
	}
	return false;
}

bool gmem_overlaps(struct gmem *mem, uint64_t gpa, uint64_t len)
{
	return overlaps_except(mem, gpa, len, -1);
}

static bool region_ok(uint64_t gpa, uint64_t size, void *host)
{
	long page = sysconf(_SC_PAGESIZE);

	if (!size || gpa + size < gpa)
		return false;
	return !((gpa | size | (uintptr_t)host) & (uint64_t)(page - 1));
}

int gmem_add_region(struct gmem *mem, uint64_t gpa, uint64_t size,
		    void *host, bool readonly, const char *name)
{
	if (!region_ok(gpa, size, host) || gmem_overlaps(mem, gpa, size)) {
		errno = EINVAL;
		return -1;
	}
	return push_region(mem, gpa, size, host, readonly, false, true, name);
}

int gmem_add_unmapped(struct gmem *mem, uint64_t size, void *host,
		      const char *name)
{
	if (!region_ok(0, size, host)) {
		errno = EINVAL;
		return -1;
	}
	return push_region(mem, 0, size, host, false, false, false, name);
}

int gmem_place_region(struct gmem *mem, int idx, uint64_t gpa, bool mapped)
{
	struct gmem_region *r, old;

	if (idx < 0 || idx >= mem->n || mem->regions[idx].is_ram)
		return -1;
	r = &mem->regions[idx];
	if (mapped && (!region_ok(gpa, r->size, r->host) ||
		       overlaps_except(mem, gpa, r->size, idx)))
		return -1;
	if (r->mapped == mapped && (!mapped || r->gpa == gpa)) {
		r->gpa = gpa;
		return 0;
	}
	/* KVM cannot change a slot's base: delete it, then add it again. */
	old = *r;
	if (r->mapped && set_slot(mem, r, 0) < 0)
		return -1;
	r->mapped = false;
	r->gpa = gpa;
	if (mapped) {
		if (set_slot(mem, r, r->size) < 0) {
			*r = old;
			if (old.mapped)
				set_slot(mem, r, r->size);
			return -1;
		}
		r->mapped = true;
	}
	return 0;
}

static void *lookup(struct gmem *mem, uint64_t gpa, uint64_t len,
		    bool ram_only)
{
	if (!len || gpa + len < gpa)
		return NULL;
	for (int i = 0; i < mem->n; i++) {
		const struct gmem_region *r = &mem->regions[i];

		if ((ram_only && !r->is_ram) || !r->mapped)
			continue;
		if (gpa >= r->gpa && gpa - r->gpa < r->size &&
		    len <= r->size - (gpa - r->gpa))
			return r->host + (gpa - r->gpa);
	}
	return NULL;
}

void *gmem_ptr(struct gmem *mem, uint64_t gpa, uint64_t len)
{
	return lookup(mem, gpa, len, true);
}

void *gmem_any_ptr(struct gmem *mem, uint64_t gpa, uint64_t len)
{
	return lookup(mem, gpa, len, false);
}

int gmem_debug_read(struct gmem *mem, uint64_t gpa, void *buf, uint64_t len)
{
	void *p = gmem_any_ptr(mem, gpa, len);

	if (!p)
		return -1;
	memcpy(buf, p, len);
	return 0;
}

static const struct gmem_region *region_of(struct gmem *mem, uint64_t gpa,
					   uint64_t len)
{
	for (int i = 0; i < mem->n; i++) {
		const struct gmem_region *r = &mem->regions[i];

		if (r->mapped && gpa >= r->gpa && gpa - r->gpa < r->size &&
		    len <= r->size - (gpa - r->gpa))
			return r;
	}
	return NULL;
}

int gmem_debug_write(struct gmem *mem, uint64_t gpa, const void *buf,
		     uint64_t len)
{
	const struct gmem_region *r = len && gpa + len >= gpa ?
				      region_of(mem, gpa, len) : NULL;
	uint8_t *p, *page;
	size_t span;

	if (!r || (!r->is_ram && !r->readonly))
		return -1;	/* device-backed: not the debugger's */
	p = r->host + (gpa - r->gpa);
	if (r->is_ram) {
		memcpy(p, buf, len);
		return 0;
	}
	/* ROM: mapped read-only on the host too (loader.c). */
	page = (uint8_t *)((uintptr_t)p & ~(uintptr_t)4095);
	span = (size_t)(p + len - page + 4095) & ~(size_t)4095;
	if (mprotect(page, span, PROT_READ | PROT_WRITE) < 0)
		return -1;
	memcpy(p, buf, len);
	mprotect(page, span, PROT_READ);
	return 0;
}

int gmem_read(struct gmem *mem, uint64_t gpa, void *buf, uint64_t len)
{
	void *p = gmem_ptr(mem, gpa, len);

	if (!p)
		return -1;
	memcpy(buf, p, len);
	return 0;
}

int gmem_write(struct gmem *mem, uint64_t gpa, const void *buf, uint64_t len)
{
	void *p = gmem_ptr(mem, gpa, len);

	if (!p)
		return -1;
	memcpy(p, buf, len);
	return 0;
}
