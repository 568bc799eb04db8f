// SPDX-License-Identifier: MIT
/*
 * Memory types the way Linux's memremap(MEMREMAP_WB) picks them: read the
 * MTRRs, take the type of the whole range (pat_x_mtrr_type(): anything but
 * WB becomes UC-), and map the range with that PAT type.  Mappings get
 * their own page tables under PML4 slot 1 (virtual 512 GiB up), one 1 GiB
 * slot per distinct (range, type), 2 MiB pages, user-accessible; the
 * identity map stays WB.
 */
#include "memtype.h"

#define MSR_MTRRCAP		0xfe
#define MSR_MTRR_DEF		0x2ff
#define MSR_PAT			0x277
#define PAT_POWER_ON		0x0007040600070406ull	/* WB WT UC- UC x2 */
#define DEF_E			(1u << 11)
#define DEF_FE			(1u << 10)
#define MASK_V			(1u << 11)
#define PTE_P			0x1ull
#define PTE_RW			0x2ull
#define PTE_US			0x4ull
#define PTE_PWT			0x8ull
#define PTE_PCD			0x10ull
#define PTE_AD			0x60ull
#define PTE_PS			0x80ull
#define PTE_PAT_LARGE		0x1000ull
#define MAP_VA_BASE		0x8000000000ull		/* PML4 slot 1 */
#define MAP_SLOTS		4
#define GIB			0x40000000ull
#define PAGE_2M			0x200000ull

static void mtrr_read(struct mtrr_state *m)
{
	memset(m, 0, sizeof(*m));
	m->phys_bits = 36;
	if (cpuid(0x80000000, 0).eax >= 0x80000008)
		m->phys_bits = cpuid(0x80000008, 0).eax & 0xff;
	m->supported = cpuid(1, 0).edx & (1u << 12);
	if (!m->supported)
		return;
	m->vcnt = rdmsr(MSR_MTRRCAP) & 0xff;
	if (m->vcnt > MTRR_MAX)
		m->vcnt = MTRR_MAX;
	m->def_type = rdmsr(MSR_MTRR_DEF);
	for (unsigned int i = 0; i < m->vcnt; i++) {
		m->base[i] = rdmsr(0x200 + 2 * i);
		m->mask[i] = rdmsr(0x201 + 2 * i);
	}
}

/* Combines the types of overlapping variable ranges (SDM): UC wins, WT
 * beats WB, anything else must agree. */
static unsigned int combine(unsigned int a, unsigned int b)
{
	if (a == 0xff || a == b)
		return b;
	if (a == MT_UC || b == MT_UC)
		return MT_UC;
	if ((a == MT_WT && b == MT_WB) || (a == MT_WB && b == MT_WT))
		return MT_WT;
	return MT_MIXED;
}

static unsigned int mtrr_range_type(const struct mtrr_state *m,
				    uint64_t start, uint64_t size)
{
	uint64_t phys = (m->phys_bits >= 64 ? ~0ull :
			 (1ull << m->phys_bits) - 1) & ~0xfffull;
	uint64_t end = start + size;	/* exclusive */
	unsigned int t = 0xff;

	if (!m->supported || !(m->def_type & DEF_E))
		return MT_UC;
	if ((m->def_type & DEF_FE) && start < 0x100000)
		return MT_MIXED;	/* fixed ranges: not needed here */
	for (unsigned int i = 0; i < m->vcnt; i++) {
		uint64_t mask = m->mask[i] & phys, base, len;

		if (!(m->mask[i] & MASK_V))
			continue;
		len = (~mask & phys) + 0x1000;
		base = m->base[i] & mask;
		if ((len & (len - 1)) || (mask | ~phys) != (~(len - 1) | 0xfff))
			return MT_MIXED;	/* non-contiguous mask */
		if (end <= base || start >= base + len)
			continue;
		if (start < base || end > base + len)
			return MT_MIXED;	/* partly covered */
		t = combine(t, m->base[i] & 0xff);
	}
	return t == 0xff ? (unsigned int)(m->def_type & 0xff) : t;
}

static const char *memtype_name(unsigned int t)
{
	switch (t) {
	case MT_UC:		return "UC";
	case MT_WC:		return "WC";
	case MT_WT:		return "WT";
	case MT_WP:		return "WP";
	case MT_WB:		return "WB";
	case MT_UC_MINUS:	return "UC-";
	case MT_MIXED:		return "mixed";
	default:		return "?";
	}
}

/* ---- mappings ------------------------------------------------------------ */

static uint64_t pdpt[512] __attribute__((aligned(4096)));
static uint64_t pds[MAP_SLOTS][512] __attribute__((aligned(4096)));
static unsigned int slots_used;
static struct {
	uint64_t pa, size;
	unsigned int t;
	bool user;
} slot_of[MAP_SLOTS];

/* PAT index bits under the power-on PAT: WB 0, WT 1, UC- 2, UC 3. */
static uint64_t pat_bits(unsigned int t)
{
	switch (t) {
	case MT_WT:		return PTE_PWT;
	case MT_UC_MINUS:	return PTE_PCD;
	case MT_UC:		return PTE_PCD | PTE_PWT;
	default:		return 0;
	}
}

static uint64_t map_range(uint64_t pa, uint64_t size, unsigned int t,
			  bool user)
{
	uint64_t *pml4 = (uint64_t *)(uintptr_t)(read_cr3() & ~0xfffull);
	uint64_t *pd;
	uint64_t flags = PTE_P | PTE_RW | (user ? PTE_US : 0) | PTE_AD |
			 PTE_PS | pat_bits(t);

	for (unsigned int i = 0; i < slots_used; i++)
		if (slot_of[i].pa == pa && slot_of[i].size >= size &&
		    slot_of[i].t == t && slot_of[i].user == user)
			return MAP_VA_BASE + (uint64_t)i * GIB;
	if (slots_used == MAP_SLOTS || size > GIB || (pa & (PAGE_2M - 1)))
		return 0;
	slot_of[slots_used].pa = pa;
	slot_of[slots_used].size = size;
	slot_of[slots_used].t = t;
	slot_of[slots_used].user = user;
	if (slots_used == 0) {
		wrmsr(MSR_PAT, PAT_POWER_ON);
		pml4[1] = (uintptr_t)pdpt | PTE_P | PTE_RW | PTE_US;
	}
	pd = pds[slots_used];
	pdpt[slots_used] = (uintptr_t)pd | PTE_P | PTE_RW | PTE_US;
	for (uint64_t off = 0; off < size; off += PAGE_2M)
		pd[off / PAGE_2M] = (pa + off) | flags;
	write_cr3(read_cr3());		/* flush the TLB */
	return MAP_VA_BASE + (uint64_t)slots_used++ * GIB;
}

static uint64_t map_with_type(uint64_t pa, uint64_t size, unsigned int t)
{
	return map_range(pa, size, t, true);
}

static uint64_t map_supervisor(uint64_t pa, uint64_t size)
{
	return map_range(pa, size, MT_WB, false);
}
