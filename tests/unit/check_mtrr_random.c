// SPDX-License-Identifier: MIT
/* firmware/lib/mtrr_layout on seeded random configurations: every layout
 * checked address by address, and small ones against a brute-force
 * minimum. */
#include "tests/unit/unit.h"
#include "tests/unit/mtrr_check.h"
#include "firmware/lib/mtrr_layout.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? rng % n : 0;
}

/* A page address in [lo, hi], biased to "round" values. */
static uint64_t rnd_addr(uint64_t lo, uint64_t hi)
{
	uint64_t a = lo + rnd(hi - lo + 1);
	unsigned int keep = 12 + rnd(20);

	if (rnd(3))
		a &= ~((1ull << keep) - 1);
	if (a < lo)
		a = lo;
	return a & ~0xfffull;
}

/* hvmloader's greedy over one interval (no spill): an upper bound. */
static unsigned int greedy(uint64_t a, uint64_t b)
{
	unsigned int n = 0;

	while (a < b) {
		uint64_t s = a ? a & -a : 1ull << 62;

		while (s > b - a)
			s >>= 1;
		a += s;
		n++;
	}
	return n;
}

static unsigned int greedy_bound(const struct mtrr_config *c)
{
	uint64_t cur = c->hole_start;
	unsigned int n = 0, idx[MTRR_MAX_WB];

	/* Exceptions in address order. */
	for (unsigned int i = 0; i < c->nr_wb; i++) {
		unsigned int j = i;

		while (j && c->wb[idx[j - 1]].base > c->wb[i].base) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
	for (unsigned int i = 0; i < c->nr_wb; i++) {
		n += greedy(cur, c->wb[idx[i]].base);
		cur = c->wb[idx[i]].base + c->wb[idx[i]].size;
	}
	n += greedy(cur, c->hole_end);
	if (c->pci64_uc && c->pci64.size)
		n += greedy(c->pci64.base, c->pci64.base + c->pci64.size);
	return n;
}

static struct mtrr_config random_config(void)
{
	struct mtrr_config c = { .vcnt = MTRR_MAX_VAR };
	uint64_t top;

	c.phys_bits = 36 + rnd(17);
	top = 1ull << c.phys_bits;
	c.low_ram_end = rnd_addr(MiB, 0xf0000000);
	c.hole_start = rnd_addr(c.low_ram_end, 4 * GiB);
	c.hole_end = rnd_addr(c.hole_start, 4 * GiB);
	for (unsigned int i = rnd(MTRR_MAX_WB + 1); i; i--) {
		uint64_t b = rnd_addr(c.hole_start, c.hole_end);
		uint64_t e = rnd_addr(b, c.hole_end);
		bool clash = e == b;

		for (unsigned int j = 0; j < c.nr_wb; j++)
			clash |= b < c.wb[j].base + c.wb[j].size &&
				 c.wb[j].base < e;
		if (!clash)
			add_wb(&c, b, e - b);
	}
	if (rnd(2))
		c.high_ram_end = rnd_addr(4 * GiB, 4 * GiB + 256 * GiB);
	if (rnd(4)) {
		uint64_t lo = c.high_ram_end > 4 * GiB ? c.high_ram_end :
							 4 * GiB;

		c.pci64.base = rnd_addr(lo, lo + 128 * GiB);
		c.pci64.size = rnd_addr(0, 128 * GiB);
		c.pci64_uc = rnd(2);
	}
	if (c.high_ram_end > top || c.pci64.base + c.pci64.size > top) {
		c.high_ram_end = 0;
		c.pci64.size = 0;
	}
	return c;
}

START_TEST(test_random_layouts_verify)
{
	unsigned int ok = 0, nospc = 0, uc_default = 0;

	for (int iter = 0; iter < 1500; iter++) {
		struct mtrr_config c = random_config();
		struct mtrr_layout l;
		unsigned int bound = greedy_bound(&c);
		int rc = mtrr_layout_build(&c, &l);

		if (rc == MTRR_ENOSPC) {
			nospc++;
			ck_assert_uint_gt(l.nr_needed, MTRR_MAX_VAR);
			ck_assert_uint_le(l.nr_needed, bound);
			continue;
		}
		ck_assert_msg(rc == MTRR_OK, "iter %d rc %d", iter, rc);
		ok++;
		uc_default += l.def_type == 0xc00;
		/* Never worse than hvmloader's greedy. */
		ck_assert_uint_le(l.nr_var, bound);
		check_layout(&c, &l, iter < 40);
	}
	/* The generator must exercise both defaults. */
	ck_assert_uint_gt(ok, 1000);
	ck_assert_uint_gt(uc_default, 20);
	(void)nospc;
}
END_TEST

/*
 * Exactness on a small universe: phys_bits 32 and every boundary on a
 * 256 MiB unit (16 units).  Brute force tries every set of up to 5 typed
 * blocks of 256 MiB..2 GiB (bit masks over units) with either default and
 * must agree with the solver's count.
 */
#define UNITS 16
#define BF_MAX 5

struct bf {
	uint16_t mask[60];
	bool uc[60];
	unsigned int n;
	uint16_t want_wb, want_uc;
};

static bool bf_search(const struct bf *b, unsigned int from, unsigned int k,
		      uint16_t wb, uint16_t uc)
{
	/* Default WB: W never UC, U all UC.  Default UC: W WB and not UC,
	 * U not (WB and not UC). */
	if (!(b->want_wb & uc) && (b->want_uc & ~uc) == 0)
		return true;
	if ((b->want_wb & ~(wb & ~uc)) == 0 && !(b->want_uc & wb & ~uc))
		return true;
	if (!k)
		return false;
	for (unsigned int i = from; i < b->n; i++)
		if (bf_search(b, i + 1, k - 1, b->uc[i] ? wb : wb | b->mask[i],
			      b->uc[i] ? uc | b->mask[i] : uc))
			return true;
	return false;
}

static unsigned int bf_minimum(const struct mtrr_config *c)
{
	struct bf b = { .n = 0 };

	for (unsigned int order = 0; order < 4; order++)
		for (unsigned int u = 0; u < UNITS; u += 1u << order)
			for (int t = 0; t < 2; t++) {
				b.mask[b.n] = ((1u << (1u << order)) - 1) << u;
				b.uc[b.n++] = t;
			}
	for (unsigned int u = 0; u < UNITS; u++) {
		int w = want(c, u * 256 * MiB + 255 * MiB);

		b.want_wb |= (w == WB) << u;
		b.want_uc |= (w == UC) << u;
	}
	for (unsigned int k = 0; k <= BF_MAX; k++)
		if (bf_search(&b, 0, k, 0, 0))
			return k;
	return BF_MAX + 1;
}

START_TEST(test_exact_minimum_small)
{
	unsigned int seen[BF_MAX + 2] = { 0 };

	for (int iter = 0; iter < 400; iter++) {
		struct mtrr_config c = { .phys_bits = 32, .vcnt = 32 };
		struct mtrr_layout l;
		unsigned int a = 1 + rnd(15), b = a + rnd(16 - a);
		unsigned int e = b + rnd(17 - b), best;

		c.low_ram_end = a * 256 * MiB;
		c.hole_start = b * 256 * MiB;
		c.hole_end = e * 256 * MiB;
		if (e > b + 1 && rnd(2)) {
			unsigned int x = b + rnd(e - b), y = x + 1 + rnd(e - x);

			if (y > e)
				y = e;
			add_wb(&c, x * 256 * MiB, (y - x) * 256 * MiB);
		}
		best = bf_minimum(&c);
		l = build_ok(&c);
		seen[best]++;
		if (best <= BF_MAX)
			ck_assert_msg(l.nr_var == best, "iter %d: %u vs %u",
				      iter, l.nr_var, best);
		else
			ck_assert_uint_gt(l.nr_var, BF_MAX);
		check_layout(&c, &l, false);
	}
	/* The generator reaches non-trivial minima. */
	ck_assert_uint_gt(seen[3] + seen[4] + seen[5], 20);
}
END_TEST

static Suite *mtrr_random_suite(void)
{
	Suite *s = suite_create("mtrr_random");
	TCase *tc = tcase_create("random");

	tcase_add_test(tc, test_random_layouts_verify);
	tcase_add_test(tc, test_exact_minimum_small);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(mtrr_random_suite());
}
