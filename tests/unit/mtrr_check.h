/* SPDX-License-Identifier: MIT */
/*
 * Shared by the MTRR layout tests (check_mtrr_layout.c,
 * check_mtrr_random.c): sample configurations and the checker that
 * verifies a layout against the intended type of every address, written
 * from the policy rather than from the solver.
 */
#ifndef MINIVMM_TESTS_MTRR_CHECK_H
#define MINIVMM_TESTS_MTRR_CHECK_H

#include "tests/unit/unit.h"
#include "firmware/lib/mtrr_layout.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)
#define DC  (-1)		/* don't care */
#define UC  MTRR_TYPE_UC
#define WB  MTRR_TYPE_WB

/* hvmloader defaults: hole [0xF0000000, 0xFC000000), 36 phys bits, 8 MTRRs. */
static inline struct mtrr_config hvmloader(void)
{
	struct mtrr_config c = {
		.low_ram_end = 0xf0000000,
		.high_ram_end = 4 * GiB + 256 * MiB,
		.hole_start = 0xf0000000,
		.hole_end = 0xfc000000,
		.phys_bits = 36,
		.vcnt = 8,
	};
	return c;
}

/* minivmm: 256 MiB RAM, PCI window + 256-bus ECAM, 64 GiB window at 4G. */
static inline struct mtrr_config machine(void)
{
	struct mtrr_config c = {
		.low_ram_end = 256 * MiB,
		.hole_start = 0xc0000000,
		.hole_end = 0xf0000000,
		.pci64 = { 4 * GiB, 64 * GiB },
		.phys_bits = 40,
		.vcnt = 8,
	};
	return c;
}

static inline void add_wb(struct mtrr_config *c, uint64_t base, uint64_t size)
{
	c->wb[c->nr_wb].base = base;
	c->wb[c->nr_wb].size = size;
	c->nr_wb++;
}

/* The intended type, written from the policy, not from the solver. */
static inline int want(const struct mtrr_config *c, uint64_t a)
{
	if (a < MiB)
		return a >= 0xa0000 && a < 0xc0000 ? UC : WB;
	if (a < c->low_ram_end)
		return WB;
	if (a >= c->hole_start && a < c->hole_end) {
		for (unsigned int i = 0; i < c->nr_wb; i++)
			if (a - c->wb[i].base < c->wb[i].size)
				return WB;
		return UC;
	}
	if (a >= c->hole_end && a < 4 * GiB)
		return WB;
	if (a >= 4 * GiB && a < c->high_ram_end)
		return WB;
	if (c->pci64.size && a - c->pci64.base < c->pci64.size)
		return c->pci64_uc ? UC : WB;
	return DC;
}

static inline void check_addr(const struct mtrr_config *c, const struct mtrr_layout *l,
		       uint64_t a)
{
	int w;
	uint8_t got;

	if (a >> c->phys_bits)
		return;
	w = want(c, a);
	got = mtrr_layout_lookup(l, a);
	/* Not ck_assert: it makes a syscall per success (mark point). */
	if ((got != UC && got != WB) || (w != DC && got != w))
		ck_abort_msg("%#llx: got type %u, want %d",
			     (unsigned long long)a, got, w);
}

static inline void check_around(const struct mtrr_config *c,
			 const struct mtrr_layout *l, uint64_t b)
{
	static const int64_t d[] = { -4096, -1, 0, 1, 4095, 4096 };

	for (unsigned int i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		if (b + d[i] < (1ull << c->phys_bits))
			check_addr(c, l, b + d[i]);
}

/* Register-level sanity of every variable range. */
static inline void check_regs(const struct mtrr_layout *l)
{
	uint64_t phys = (1ull << l->phys_bits) - 1;

	ck_assert(l->def_type == 0xc06 || l->def_type == 0xc00);
	ck_assert_uint_le(l->nr_var, MTRR_MAX_VAR);
	for (unsigned int i = 0; i < l->nr_var; i++) {
		uint64_t m = l->var[i].mask, b = l->var[i].base;
		uint64_t size = ((~m & phys) | 0xfff) + 1;

		ck_assert(m & MTRR_PHYSMASK_V);
		ck_assert_uint_eq(m & ~phys, 0);
		ck_assert_uint_eq(m & 0x7ff, 0);
		/* Contiguous mask: size is a power of two below 2^phys. */
		ck_assert_uint_eq(size & (size - 1), 0);
		ck_assert_uint_lt(size, 1ull << l->phys_bits);
		ck_assert_uint_eq((b & ~0xfffull) & (size - 1), 0);
		ck_assert_uint_eq(b & 0xf00, 0);
		ck_assert((b & 0xff) == UC || (b & 0xff) == WB);
		ck_assert_uint_eq(b & ~phys, 0);
	}
}

/* Boundaries of the config and of every block, plus seeded samples. */
static inline void check_layout(const struct mtrr_config *c,
			 const struct mtrr_layout *l, bool every_page)
{
	uint64_t top = 1ull << c->phys_bits, x = 88172645463325252ull;
	uint64_t b[] = { MiB, c->low_ram_end, c->hole_start, c->hole_end,
			 4 * GiB, c->high_ram_end, c->pci64.base,
			 c->pci64.base + c->pci64.size, top - 4096 };

	check_regs(l);
	for (unsigned int i = 0; i < sizeof(b) / sizeof(b[0]); i++)
		check_around(c, l, b[i]);
	for (unsigned int i = 0; i < c->nr_wb; i++) {
		check_around(c, l, c->wb[i].base);
		check_around(c, l, c->wb[i].base + c->wb[i].size);
	}
	for (unsigned int i = 0; i < l->nr_var; i++) {
		uint64_t base = l->var[i].base & ~0xfffull;
		uint64_t size = ((~l->var[i].mask & (top - 1)) | 0xfff) + 1;

		check_around(c, l, base);
		check_around(c, l, base + size);
	}
	for (uint64_t a = 0; a < MiB; a += 4096)
		check_addr(c, l, a);
	if (every_page)
		for (uint64_t a = MiB; a < 4 * GiB; a += 4096)
			check_addr(c, l, a);
	for (int i = 0; i < 20000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		check_addr(c, l, (x % top) & ~0xfffull);
		check_addr(c, l, x % (8 * GiB));
	}
}

static inline struct mtrr_layout build_ok(const struct mtrr_config *c)
{
	struct mtrr_layout l;
	int rc = mtrr_layout_build(c, &l);

	ck_assert_msg(rc == MTRR_OK, "rc %d (%s), needed %u", rc,
		      mtrr_strerror(rc), l.nr_needed);
	ck_assert_uint_eq(l.nr_needed, l.nr_var);
	return l;
}

static inline uint64_t mask_of(uint64_t size, unsigned int bits)
{
	return (((1ull << bits) - 1) & ~(size - 1)) | 0x800;
}

#define ck_var(l, i, b, size, type, bits) do { \
	ck_assert_uint_eq((l).var[i].base, (b) | (type)); \
	ck_assert_uint_eq((l).var[i].mask, mask_of(size, bits)); \
} while (0)

#endif
