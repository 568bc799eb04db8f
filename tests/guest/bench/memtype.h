/* SPDX-License-Identifier: MIT */
/*
 * The bench payload's memory types (memtype.c): the MTRRs as the guest
 * reads them, the type of a physical range under them, and mappings with a
 * chosen PAT type.  Separate from bench.h so the pure part can be compiled
 * and tested on the host (tests/unit/check_bench_memtype.c).
 */
#ifndef BENCH_MEMTYPE_H
#define BENCH_MEMTYPE_H

#include "../lib/guest.h"

#define MT_UC		0
#define MT_WC		1
#define MT_WT		4
#define MT_WP		5
#define MT_WB		6
#define MT_UC_MINUS	7	/* PAT only */
#define MT_MIXED	0xfe	/* MTRR types differ inside the range */

#define MTRR_MAX	32

struct mtrr_state {
	uint64_t def_type;		/* MTRRdefType */
	unsigned int vcnt;
	uint64_t base[MTRR_MAX], mask[MTRR_MAX];
	unsigned int phys_bits;
	bool supported;			/* CPUID.1:EDX.MTRR */
};

static void mtrr_read(struct mtrr_state *m);
/* The MTRR type of all of [start, start+size): MT_* or MT_MIXED.  UC when
 * MTRRs are disabled (what Linux >= 6.5 assumes). */
static unsigned int mtrr_range_type(const struct mtrr_state *m,
				    uint64_t start, uint64_t size);
static const char *memtype_name(unsigned int t);

/* Maps [pa, pa+size) (2 MiB aligned) at a fresh virtual address with the
 * PAT type t (MT_WB, MT_WT, MT_UC_MINUS or MT_UC); 0 if out of room.
 * Sets the PAT MSR to its power-on value first. */
static uint64_t map_with_type(uint64_t pa, uint64_t size, unsigned int t);
/* The same, write-back and for ring 0 only (user bit clear). */
static uint64_t map_supervisor(uint64_t pa, uint64_t size);

#endif
