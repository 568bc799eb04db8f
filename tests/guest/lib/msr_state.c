// SPDX-License-Identifier: MIT
/* Known patterns in the MSRs outside KVM's index list (msr_state.h). */
#include "msr_state.h"
#include "msr_try.h"
#include "guest.h"

#define MSR_MTRRCAP		0xfeu
#define MSR_MCG_CAP		0x179u
#define MSR_MCG_STATUS		0x17au
#define MSR_MTRR_PHYSBASE0	0x200u
#define MSR_PAT			0x277u
#define MSR_MTRR_DEF_TYPE	0x2ffu
#define MSR_MC0_CTL		0x400u
#define MTRR_VALID		(1ull << 11)
#define MTRR_DEF_ON		0xc06ull	/* E, FE, default WB */
#define MCG_STATUS_RIPV		0x1ull
/* Entry 0 stays WB (every ordinary page uses it); the rest are permuted
 * from the reset value 0x0007040600070406. */
#define PAT_PATTERN		0x0105040700060406ull
#define BANK_MAX		32u
#define VAR_MAX			32u

static const uint32_t fixed[] = {
	0x250, 0x258, 0x259, 0x268, 0x269, 0x26a, 0x26b, 0x26c, 0x26d,
	0x26e, 0x26f,
};

/* Writes v, reads it back and records the MSR for msr_state_check. */
static void set(struct msr_state *s, uint32_t index, uint64_t v)
{
	uint64_t back = 0;
	int wvec = msr_try_wr(index, v);
	int rvec = msr_try_rd(index, &back);

	if (!check(wvec < 0 && rvec < 0 && back == v, "MSR %#x: wrote %#llx "
		   "(vector %d), reads %#llx (vector %d)", index,
		   (unsigned long long)v, wvec, (unsigned long long)back,
		   rvec) || s->n >= MSR_STATE_MAX)
		return;
	s->index[s->n] = index;
	s->value[s->n++] = v;
}

/* A memory type byte for the fixed ranges: UC, WC, WT, WP, WB. */
static uint64_t fixed_pattern(unsigned int i)
{
	static const uint8_t types[] = { 0, 1, 4, 5, 6 };
	uint64_t v = 0;

	for (unsigned int b = 0; b < 8; b++)
		v |= (uint64_t)types[(i + b) % 5] << (8 * b);
	return v;
}

static unsigned int phys_bits(void)
{
	if (cpuid(0x80000000, 0).eax < 0x80000008)
		return 36;
	return cpuid(0x80000008, 0).eax & 0xff;
}

/* Pair i: 1 GiB at 2^(bits-2) + i GiB, type WC or UC; far above RAM. */
static void fill_mtrrs(struct msr_state *s)
{
	uint64_t cap = rdmsr(MSR_MTRRCAP);
	unsigned int bits = phys_bits();
	uint64_t top = (1ull << bits) - 1;

	s->vcnt = cap & 0xff;
	check(s->vcnt > 0 && (cap & 0x100), "MTRRcap %#llx: no variable or "
	      "no fixed ranges", (unsigned long long)cap);
	if (s->vcnt > VAR_MAX)
		s->vcnt = VAR_MAX;
	for (unsigned int i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		set(s, fixed[i], fixed_pattern(i));
	for (unsigned int i = 0; i < s->vcnt; i++) {
		uint64_t base = (1ull << (bits - 2)) + ((uint64_t)i << 30);

		set(s, MSR_MTRR_PHYSBASE0 + 2 * i, base | (i & 1));
		set(s, MSR_MTRR_PHYSBASE0 + 2 * i + 1,
		    (top & ~((1ull << 30) - 1)) | MTRR_VALID);
	}
	set(s, MSR_MTRR_DEF_TYPE, MTRR_DEF_ON);
}

/* MCi_CTL: all ones or 0 (what KVM takes), alternating; ADDR and MISC:
 * a pattern naming the bank. */
static void fill_mce(struct msr_state *s)
{
	uint64_t cap;

	if (msr_try_rd(MSR_MCG_CAP, &cap) >= 0)
		return;
	s->banks = cap & 0xff;
	if (s->banks > BANK_MAX)
		s->banks = BANK_MAX;
	for (unsigned int i = 0; i < s->banks; i++) {
		uint32_t m = MSR_MC0_CTL + 4 * i;

		set(s, m, i & 1 ? 0 : ~0ull);
		set(s, m + 2, 0xadd0000000ull | i << 12);
		set(s, m + 3, 0x5150000000ull | i);
	}
	set(s, MSR_MCG_STATUS, MCG_STATUS_RIPV);
}

void msr_state_fill(struct msr_state *s)
{
	s->n = 0;
	fill_mtrrs(s);
	set(s, MSR_PAT, PAT_PATTERN);
	fill_mce(s);
	gprintf("msr-state: %u MSRs set (%u variable MTRR pairs, %u "
		"machine-check banks)\n", s->n, s->vcnt, s->banks);
}

unsigned int msr_state_check(const struct msr_state *s)
{
	unsigned int bad = 0;

	for (uint32_t i = 0; i < s->n; i++) {
		uint64_t v = 0;
		int vec = msr_try_rd(s->index[i], &v);

		if (!check(vec < 0 && v == s->value[i], "MSR %#x reads %#llx "
			   "(vector %d), want %#llx", s->index[i],
			   (unsigned long long)v, vec,
			   (unsigned long long)s->value[i]))
			bad++;
	}
	gprintf("msr-state: %u of %u MSRs kept\n", s->n - bad, s->n);
	return bad;
}
