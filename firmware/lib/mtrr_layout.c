// SPDX-License-Identifier: MIT
/*
 * MTRR layout solver.  See mtrr_layout.h for the policy.
 *
 * The machine is described as a sorted list of "must" spans, each either
 * must-WB or must-UC; addresses in no span (and everything below 1 MiB,
 * which the fixed ranges decide) are "don't care".  Variable MTRRs are
 * naturally aligned power-of-two blocks, so any two are nested or disjoint,
 * and UC wins over WB.  Two exact solvers:
 *
 *   default WB: only UC blocks matter.  Covering the must-UC points with the
 *     fewest blocks that avoid must-WB is interval point cover, solved by the
 *     greedy "for the lowest uncovered point take the block that reaches
 *     farthest" (cover_uc).
 *   default UC: walk the binary tree of aligned blocks.  A block containing
 *     must-WB but no must-UC costs one WB MTRR; one containing neither costs
 *     nothing; a mixed one is either split in two or covered by one WB MTRR
 *     with the default-WB solution inside it (solve_uc).  Only blocks that
 *     contain a WB/UC transition are visited: a few dozen.
 *
 * Cost: roughly 3,000-10,000 instructions for real machine maps (it runs
 * in emulated ring 0, once, on the BSP).
 */
#include <stddef.h>

#include "mtrr_layout.h"

#define KIB4		0x1000ull
#define MIB1		0x100000ull
#define GIB4		0x100000000ull
#define MAX_SPANS	(2 * MTRR_MAX_WB + 6)
#define HAS_WB		1
#define HAS_UC		2
#define NO_LIMIT	0x7fffffffu

struct span {
	uint64_t start;
	uint64_t end;
	bool uc;
};

/* A maximal stretch without must-WB that holds must-UC, and the number
 * of UC blocks it needs on its own (runs never share blocks). */
struct run {
	uint64_t lo;
	uint64_t hi;
	unsigned int cost;
};

struct solver {
	struct span s[MAX_SPANS];
	unsigned int n;
	struct run r[MAX_SPANS];
	unsigned int nr_runs;
	unsigned int phys_bits;
	struct mtrr_var *out;	/* out[0..cap) receives blocks */
	unsigned int cap;
};

static bool aligned4k(uint64_t v)
{
	return (v & (KIB4 - 1)) == 0;
}

/* Appends [start, end), merging with an adjacent span of the same type. */
static void add_span(struct solver *sv, uint64_t start, uint64_t end, bool uc)
{
	struct span *last = sv->n ? &sv->s[sv->n - 1] : NULL;

	if (start >= end)
		return;
	if (last && last->end == start && last->uc == uc) {
		last->end = end;
		return;
	}
	if (sv->n == MAX_SPANS)
		return;		/* cannot happen: MAX_SPANS bounds the calls */
	sv->s[sv->n].start = start;
	sv->s[sv->n].end = end;
	sv->s[sv->n].uc = uc;
	sv->n++;
}

/* Checks the WB exceptions and returns them sorted in wb[]. */
static int sort_exceptions(const struct mtrr_config *c, struct mtrr_range *wb)
{
	unsigned int i, j;

	if (c->nr_wb > MTRR_MAX_WB)
		return MTRR_EINVAL;
	for (i = 0; i < c->nr_wb; i++) {
		struct mtrr_range r = c->wb[i];

		if (!r.size || !aligned4k(r.base) || !aligned4k(r.size) ||
		    r.base < c->hole_start || r.base > c->hole_end ||
		    r.size > c->hole_end - r.base)
			return MTRR_EINVAL;
		for (j = i; j > 0 && wb[j - 1].base > r.base; j--)
			wb[j] = wb[j - 1];
		wb[j] = r;
	}
	for (i = 1; i < c->nr_wb; i++)
		if (wb[i - 1].base + wb[i - 1].size > wb[i].base)
			return MTRR_EINVAL;
	return MTRR_OK;
}

static int check_config(const struct mtrr_config *c)
{
	uint64_t top, high;

	if (c->phys_bits < 32 || c->phys_bits > 52)
		return MTRR_EINVAL;
	top = 1ull << c->phys_bits;
	if (!aligned4k(c->low_ram_end) || !aligned4k(c->high_ram_end) ||
	    !aligned4k(c->hole_start) || !aligned4k(c->hole_end) ||
	    !aligned4k(c->pci64.base) || !aligned4k(c->pci64.size))
		return MTRR_EINVAL;
	if (c->low_ram_end < MIB1 || c->low_ram_end > c->hole_start ||
	    c->hole_start > c->hole_end || c->hole_end > GIB4)
		return MTRR_EINVAL;
	if (c->high_ram_end > top)
		return MTRR_EINVAL;
	high = c->high_ram_end > GIB4 ? c->high_ram_end : GIB4;
	if (c->pci64.size && (c->pci64.base < high || c->pci64.base > top ||
			      c->pci64.size > top - c->pci64.base))
		return MTRR_EINVAL;
	return MTRR_OK;
}

/* The policy of mtrr_layout.h as a sorted span list. */
static int build_spans(const struct mtrr_config *c, struct solver *sv)
{
	struct mtrr_range wb[MTRR_MAX_WB];
	uint64_t cur;
	unsigned int i;
	int rc;

	rc = check_config(c);
	if (rc)
		return rc;
	rc = sort_exceptions(c, wb);
	if (rc)
		return rc;
	sv->n = 0;
	sv->phys_bits = c->phys_bits;
	add_span(sv, MIB1, c->low_ram_end, false);
	cur = c->hole_start;
	for (i = 0; i < c->nr_wb; i++) {
		add_span(sv, cur, wb[i].base, true);
		add_span(sv, wb[i].base, wb[i].base + wb[i].size, false);
		cur = wb[i].base + wb[i].size;
	}
	add_span(sv, cur, c->hole_end, true);
	add_span(sv, c->hole_end, GIB4, false);
	add_span(sv, GIB4, c->high_ram_end, false);
	if (c->pci64.size)
		add_span(sv, c->pci64.base, c->pci64.base + c->pci64.size,
			 c->pci64_uc);
	return MTRR_OK;
}

static void emit(struct solver *sv, bool write, unsigned int idx,
		 uint64_t base, unsigned int order, uint8_t type)
{
	uint64_t phys = (1ull << sv->phys_bits) - 1;

	if (!write || idx >= sv->cap)
		return;
	sv->out[idx].base = base | type;
	sv->out[idx].mask = (~((1ull << order) - 1) & phys & ~(KIB4 - 1)) |
			    MTRR_PHYSMASK_V;
}

static unsigned int classify(const struct solver *sv, uint64_t nb, uint64_t ne)
{
	unsigned int i, cls = 0;

	for (i = 0; i < sv->n; i++)
		if (sv->s[i].start < ne && sv->s[i].end > nb)
			cls |= sv->s[i].uc ? HAS_UC : HAS_WB;
	return cls;
}

/* Moves *p to the lowest must-UC address >= *p below ne, if any. */
static bool next_uc(const struct solver *sv, uint64_t *p, uint64_t ne)
{
	unsigned int i;

	for (i = 0; i < sv->n; i++) {
		uint64_t q;

		if (!sv->s[i].uc || sv->s[i].end <= *p)
			continue;
		q = sv->s[i].start > *p ? sv->s[i].start : *p;
		if (q >= ne)
			return false;
		*p = q;
		return true;
	}
	return false;
}

/* Narrows [*lo, *hi) to the WB-free stretch around p (p is not must-WB). */
static void wb_free_run(const struct solver *sv, uint64_t p, uint64_t *lo,
			uint64_t *hi)
{
	unsigned int i;

	for (i = 0; i < sv->n; i++) {
		if (sv->s[i].uc)
			continue;
		if (sv->s[i].end <= p && sv->s[i].end > *lo)
			*lo = sv->s[i].end;
		if (sv->s[i].start > p && sv->s[i].start < *hi)
			*hi = sv->s[i].start;
	}
}

static unsigned int msb(uint64_t v)
{
	return 63 - __builtin_clzll(v);
}

/*
 * Order of the largest aligned block containing p inside [lo, hi), at most
 * max.  With s = p rounded down to 2^k: s >= lo iff p and lo - 1 differ at
 * bit k or above, and s + 2^k <= hi iff p and hi do.  No loop: this runs
 * for every block of every candidate layout.  All values are 4 KiB
 * aligned and lo <= p < hi, so the result is at least 12.
 */
static unsigned int largest_block(uint64_t p, uint64_t lo, uint64_t hi,
				  unsigned int max)
{
	unsigned int order = msb(p ^ hi);

	if (lo && msb(p ^ (lo - 1)) < order)
		order = msb(p ^ (lo - 1));
	return order < max ? order : max;
}

/*
 * Covers the must-UC addresses in [nb, ne) with UC blocks inside [nb, ne)
 * that avoid must-WB, writing them at out[idx..] if write.  Returns the
 * count, or limit + 1 as soon as it would exceed limit.
 */
static unsigned int cover_uc(struct solver *sv, bool write, uint64_t nb,
			     uint64_t ne, unsigned int idx, unsigned int limit)
{
	unsigned int n = 0;
	uint64_t p = nb;

	while (next_uc(sv, &p, ne)) {
		uint64_t lo = nb, hi = ne, base;
		unsigned int order;

		if (n == limit)
			return limit + 1;
		wb_free_run(sv, p, &lo, &hi);
		order = largest_block(p, lo, hi, sv->phys_bits - 1);
		base = p & ~((1ull << order) - 1);
		emit(sv, write, idx + n, base, order, MTRR_TYPE_UC);
		n++;
		p = base + (1ull << order);
	}
	return n;
}

static void find_runs(struct solver *sv)
{
	uint64_t top = 1ull << sv->phys_bits;
	unsigned int i;

	sv->nr_runs = 0;
	for (i = 0; i < sv->n; i++) {
		struct run *r = &sv->r[sv->nr_runs];

		if (!sv->s[i].uc)
			continue;
		if (sv->nr_runs && sv->s[i].start < sv->r[sv->nr_runs - 1].hi)
			continue;	/* only dc since the last UC span */
		r->lo = 0;
		r->hi = top;
		wb_free_run(sv, sv->s[i].start, &r->lo, &r->hi);
		r->cost = cover_uc(sv, false, r->lo, r->hi, 0, NO_LIMIT);
		sv->nr_runs++;
	}
}

/* cover_uc(sv, false, nb, ne, 0, limit) from the per-run counts. */
static unsigned int carve_count(struct solver *sv, uint64_t nb, uint64_t ne,
				unsigned int limit)
{
	unsigned int i, n = 0;

	for (i = 0; i < sv->nr_runs && n <= limit; i++) {
		const struct run *r = &sv->r[i];

		if (r->hi <= nb || r->lo >= ne)
			continue;
		if (r->lo >= nb && r->hi <= ne)
			n += r->cost;
		else
			n += cover_uc(sv, false, r->lo > nb ? r->lo : nb,
				      r->hi < ne ? r->hi : ne, 0, limit);
	}
	return n <= limit ? n : limit + 1;
}

/*
 * Fewest blocks for the aligned block [nb, nb + 2^order) when the type
 * inherited from above is the default UC, if that is at most budget
 * (otherwise returns budget + 1: branch and bound, as only layouts that
 * beat default WB matter).  Writes the blocks at out[idx..].  The root
 * (the whole physical space) never becomes a block itself.
 */
static unsigned int solve_uc(struct solver *sv, uint64_t nb,
			     unsigned int order, unsigned int idx,
			     unsigned int budget, bool root)
{
	uint64_t size = 1ull << order;
	unsigned int cls = classify(sv, nb, nb + size);
	unsigned int nl, nr, best, alt;

	if (!(cls & HAS_WB))
		return 0;
	if (cls == HAS_WB && !root) {
		emit(sv, true, idx, nb, order, MTRR_TYPE_WB);
		return 1;	/* over budget iff budget is 0 */
	}
	nl = solve_uc(sv, nb, order - 1, idx, budget, false);
	nr = nl > budget ? 1 : solve_uc(sv, nb + size / 2, order - 1,
					 idx + nl, budget - nl, false);
	best = nl + nr <= budget ? nl + nr : budget + 1;
	/*
	 * Or: one WB block here with UC carved out of it.  Only worth trying
	 * if both halves hold must-WB (a result of 0 means none): otherwise
	 * the carve splits into the other half's carve plus at least one
	 * block for any UC in the empty half, which never beats the split.
	 */
	if (root || best < 2 || !nl || !nr)
		return best;
	alt = carve_count(sv, nb, nb + size, best - 2);
	if (alt > best - 2)
		return best;
	emit(sv, true, idx, nb, order, MTRR_TYPE_WB);
	cover_uc(sv, true, nb, nb + size, idx + 1, alt);
	return alt + 1;
}

/* Fixed ranges: all WB but fix16K_A0000 (VGA hole, UC); see the header. */
static uint64_t fixed_value(unsigned int i)
{
	return i == 2 ? 0 : 0x0606060606060606ull;
}

static void clear_layout(struct mtrr_layout *l)
{
	unsigned int i;

	l->def_type = 0;
	for (i = 0; i < MTRR_NR_FIXED; i++)
		l->fixed[i] = 0;
	for (i = 0; i < MTRR_MAX_VAR; i++) {
		l->var[i].base = 0;
		l->var[i].mask = 0;
	}
	l->nr_var = 0;
	l->nr_needed = 0;
	l->phys_bits = 0;
}

int mtrr_layout_build(const struct mtrr_config *cfg, struct mtrr_layout *out)
{
	struct solver sv;
	unsigned int i, n_wb, n_uc, n, cap;
	uint8_t def = MTRR_TYPE_WB;
	int rc;

	if (!out)
		return MTRR_EINVAL;
	clear_layout(out);
	if (!cfg)
		return MTRR_EINVAL;
	rc = build_spans(cfg, &sv);
	if (rc)
		return rc;
	sv.out = out->var;
	sv.cap = MTRR_MAX_VAR;
	find_runs(&sv);
	n_wb = carve_count(&sv, 0, 1ull << sv.phys_bits, NO_LIMIT);
	/* Default UC must beat default WB strictly (ties keep WB). */
	n_uc = n_wb ? solve_uc(&sv, 0, sv.phys_bits, 0, n_wb - 1, true) : 1;
	if (n_wb <= n_uc) {
		n = cover_uc(&sv, true, 0, 1ull << sv.phys_bits, 0, NO_LIMIT);
	} else {
		n = n_uc;
		def = MTRR_TYPE_UC;
	}
	cap = cfg->vcnt < MTRR_MAX_VAR ? cfg->vcnt : MTRR_MAX_VAR;
	if (n > cap) {
		clear_layout(out);
		out->nr_needed = n;
		return MTRR_ENOSPC;
	}
	for (i = n; i < MTRR_MAX_VAR; i++)	/* drop speculative leftovers */
		out->var[i].base = out->var[i].mask = 0;
	for (i = 0; i < MTRR_NR_FIXED; i++)
		out->fixed[i] = fixed_value(i);
	out->def_type = MTRR_DEF_TYPE_E | MTRR_DEF_TYPE_FE | def;
	out->nr_var = n;
	out->nr_needed = n;
	out->phys_bits = sv.phys_bits;
	return MTRR_OK;
}

uint32_t mtrr_fixed_msr(unsigned int i)
{
	if (i == 0)
		return 0x250;
	if (i < 3)
		return 0x257 + i;	/* 0x258, 0x259 */
	if (i < MTRR_NR_FIXED)
		return 0x265 + i;	/* 0x268..0x26f */
	return 0;
}

static uint8_t fixed_lookup(const struct mtrr_layout *l, uint64_t addr)
{
	unsigned int i, j;

	if (addr < 0x80000) {
		i = 0;
		j = addr >> 16;
	} else if (addr < 0xc0000) {
		i = 1 + ((addr - 0x80000) >> 17);
		j = ((addr - 0x80000) >> 14) & 7;
	} else {
		i = 3 + ((addr - 0xc0000) >> 15);
		j = ((addr - 0xc0000) >> 12) & 7;
	}
	return (l->fixed[i] >> (8 * j)) & 0xff;
}

uint8_t mtrr_layout_lookup(const struct mtrr_layout *l, uint64_t addr)
{
	unsigned int i, n, seen = 0;
	uint64_t phys;

	if (!(l->def_type & MTRR_DEF_TYPE_E))
		return MTRR_TYPE_UC;
	if ((l->def_type & MTRR_DEF_TYPE_FE) && addr < MIB1)
		return fixed_lookup(l, addr);
	if (l->phys_bits < 32 || l->phys_bits > 52 || addr >> l->phys_bits)
		return MTRR_TYPE_INVALID;
	phys = ((1ull << l->phys_bits) - 1) & ~(KIB4 - 1);
	n = l->nr_var < MTRR_MAX_VAR ? l->nr_var : MTRR_MAX_VAR;
	for (i = 0; i < n; i++) {
		uint64_t m = l->var[i].mask & phys;
		unsigned int t = l->var[i].base & 0xff;

		if (!(l->var[i].mask & MTRR_PHYSMASK_V) ||
		    (addr & m) != (l->var[i].base & m))
			continue;
		if (t > 7)
			return MTRR_TYPE_INVALID;
		seen |= 1u << t;
	}
	if (!seen)
		return l->def_type & 0xff;
	if (seen & (1u << MTRR_TYPE_UC))
		return MTRR_TYPE_UC;
	if (!(seen & (seen - 1)))
		return __builtin_ctz(seen);
	if (seen == ((1u << MTRR_TYPE_WT) | (1u << MTRR_TYPE_WB)))
		return MTRR_TYPE_WT;
	return MTRR_TYPE_INVALID;
}

const char *mtrr_strerror(int err)
{
	switch (err) {
	case MTRR_OK:
		return "ok";
	case MTRR_EINVAL:
		return "invalid memory map for MTRRs";
	case MTRR_ENOSPC:
		return "layout needs more variable MTRRs than MTRRcap.VCNT";
	default:
		return "unknown MTRR error";
	}
}
