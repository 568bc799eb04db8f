// SPDX-License-Identifier: MIT
#include "vmm/x86/pagewalk.h"

#include <string.h>

#define CR0_PG		(1ull << 31)
#define CR0_WP		(1ull << 16)
#define CR4_LA57	(1ull << 12)
#define CR4_SMAP	(1ull << 21)
#define EFER_LMA	(1ull << 10)
#define RFLAGS_AC	(1ull << 18)

#define PTE_P		(1ull << 0)
#define PTE_RW		(1ull << 1)
#define PTE_US		(1ull << 2)
#define PTE_A		(1ull << 5)
#define PTE_D		(1ull << 6)
#define PTE_PS		(1ull << 7)
#define ADDR_MASK	0x000ffffffffff000ull

/* The frame mask of a leaf at level (1: 4 KiB, 2: 2 MiB, 3: 1 GiB); large
 * pages drop the PAT bit (12) with the offset bits. */
static uint64_t frame_mask(int level)
{
	return ADDR_MASK & ~((1ull << (12 + 9 * (level - 1))) - 1);
}

static bool canonical(uint64_t la, int levels)
{
	int bits = 12 + 9 * levels;	/* 48 or 57 */
	int64_t s = (int64_t)(la << (64 - bits)) >> (64 - bits);

	return (uint64_t)s == la;
}

static void set_bits(uint64_t *pte, uint64_t bits)
{
	if ((__atomic_load_n(pte, __ATOMIC_RELAXED) & bits) != bits)
		__atomic_fetch_or(pte, bits, __ATOMIC_SEQ_CST);
}

/* The permission check of a leaf: user/supervisor, write protection and
 * SMAP (SMEP only concerns fetches). */
static bool allowed(const struct pw_cpu *cpu, bool rw, bool us, bool write)
{
	if (cpu->cpl == 3)
		return us && (rw || !write);
	if (us && (cpu->cr4 & CR4_SMAP) && !(cpu->rflags & RFLAGS_AC))
		return false;
	return rw || !write || !(cpu->cr0 & CR0_WP);
}

static uint32_t fault_code(const struct pw_cpu *cpu, bool write,
			   uint32_t extra)
{
	return extra | (write ? PF_WRITE : 0) | (cpu->cpl == 3 ? PF_USER : 0);
}

enum pw_result pagewalk(struct gmem *mem, const struct pw_cpu *cpu,
			uint64_t la, bool write, uint64_t *gpa,
			uint32_t *pf_err)
{
	uint64_t *walked[5], table, pte = 0;
	bool rw = true, us = true;
	int levels, level, n = 0;

	if (!(cpu->cr0 & CR0_PG)) {
		*gpa = la;
		return PW_OK;
	}
	if (!(cpu->efer & EFER_LMA))
		return PW_UNSUPPORTED;
	levels = cpu->cr4 & CR4_LA57 ? 5 : 4;
	if (!canonical(la, levels))
		return PW_UNSUPPORTED;	/* #GP, not a walk */
	table = cpu->cr3 & ADDR_MASK;
	for (level = levels; level >= 1; level--) {
		unsigned int idx = (la >> (12 + 9 * (level - 1))) & 511;
		uint64_t *p = gmem_ptr(mem, table + idx * 8ull, 8);

		if (!p)
			return PW_UNSUPPORTED;
		pte = __atomic_load_n(p, __ATOMIC_ACQUIRE);
		if (!(pte & PTE_P)) {
			*pf_err = fault_code(cpu, write, 0);
			return PW_FAULT;
		}
		if ((pte & PTE_PS) && level > 3) {
			*pf_err = fault_code(cpu, write, PF_PRESENT | PF_RSVD);
			return PW_FAULT;
		}
		rw = rw && (pte & PTE_RW);
		us = us && (pte & PTE_US);
		walked[n++] = p;
		if (level == 1 || (pte & PTE_PS))
			break;
		table = pte & ADDR_MASK;
	}
	if (!allowed(cpu, rw, us, write)) {
		*pf_err = fault_code(cpu, write, PF_PRESENT);
		return PW_FAULT;
	}
	for (int i = 0; i < n; i++)
		set_bits(walked[i], PTE_A | (write && i == n - 1 ? PTE_D : 0));
	*gpa = (pte & frame_mask(level)) |
	       (la & ((1ull << (12 + 9 * (level - 1))) - 1));
	return PW_OK;
}

enum pw_result pw_copy(struct gmem *mem, const struct pw_cpu *cpu,
		       uint64_t la, void *buf, size_t len, bool write,
		       uint64_t *la_fault, uint32_t *pf_err)
{
	size_t done = 0;

	while (done < len) {
		uint64_t gpa, chunk = 4096 - ((la + done) & 4095);
		enum pw_result r;
		uint8_t *p;

		r = pagewalk(mem, cpu, la + done, write, &gpa, pf_err);
		if (r == PW_FAULT)
			*la_fault = la + done;
		if (r != PW_OK)
			return r;
		if (chunk > len - done)
			chunk = len - done;
		p = gmem_ptr(mem, gpa, chunk);
		if (!p)
			return PW_UNSUPPORTED;
		if (write)
			memcpy(p, (const uint8_t *)buf + done, chunk);
		else
			memcpy((uint8_t *)buf + done, p, chunk);
		done += chunk;
	}
	return PW_OK;
}
