// SPDX-License-Identifier: MIT
/* Compiling the MSR policy into a KVM filter: what exits and what stays in
 * the kernel (checked against the policy everywhere it changes), KVM's
 * limits (16 ranges, 12288 MSRs per range, 12288 boundaries, read vs write
 * ranges, MSR 0xffffffff, x2APIC), the fewest ranges, and refusals. */
#include "tests/unit/unit.h"
#include "vmm/kvm_compat.h"
#include "vmm/msr/filter.h"

static struct msr_policy P;
static struct msr_filter F;
static char err[1024];

#define RD	KVM_MSR_FILTER_READ
#define WR	KVM_MSR_FILTER_WRITE
#define MAXN	MSR_FILTER_RANGE_MAX

static void setup(void)
{
	msr_policy_init(&P);
	memset(&F, 0, sizeof(F));
	err[0] = '\0';
}

static void teardown(void)
{
	msr_filter_free(&F);
	msr_policy_free(&P);
}

static void add(const char *rule)
{
	int rc = msr_policy_add_line(&P, "--msr", 1, rule, err, sizeof(err));

	ck_assert_msg(rc == 0, "rule \"%s\": %s", rule, err);
}

static bool in_kernel(uint32_t i, enum msr_dir d)
{
	struct msr_entry e = msr_policy_lookup(&P, i, d);

	return msr_entry_in_kernel(&e);
}

static void check_point(uint64_t i)
{
	if (i > UINT32_MAX)
		return;
	for (int d = 0; d < 2; d++)
		ck_assert_msg(msr_filter_allows(&F, (uint32_t)i, d) ==
			      in_kernel((uint32_t)i, d),
			      "MSR 0x%llx %s: filter %d, policy %d",
			      (unsigned long long)i, d ? "write" : "read",
			      msr_filter_allows(&F, (uint32_t)i, d),
			      in_kernel((uint32_t)i, d));
}

/* Each range is one KVM accepts, and is trimmed: its first and last MSR
 * need it (differ from the default in a direction it carries). */
static void check_ranges(void)
{
	bool defbit = !(F.kvm.flags & KVM_MSR_FILTER_DEFAULT_DENY);

	ck_assert_uint_eq(F.kvm.flags & ~KVM_MSR_FILTER_VALID_MASK, 0);
	ck_assert_uint_le(F.nranges, KVM_MSR_FILTER_MAX_RANGES);
	if (!defbit)
		ck_assert_uint_ge(F.nranges, 1);
	ck_assert(defbit == msr_entry_in_kernel(&P.def));
	for (unsigned int i = 0; i < KVM_MSR_FILTER_MAX_RANGES; i++) {
		const struct kvm_msr_filter_range *r = &F.kvm.ranges[i];

		if (i >= F.nranges) {
			ck_assert_uint_eq(r->nmsrs, 0);
			ck_assert_ptr_null(r->bitmap);
			continue;
		}
		ck_assert_uint_ge(r->nmsrs, 1);
		ck_assert_uint_le(r->nmsrs, MAXN);
		ck_assert_uint_le((r->nmsrs + 7) / 8,
				  KVM_MSR_FILTER_MAX_BITMAP_SIZE);
		ck_assert_uint_ne(r->flags, 0);
		ck_assert_uint_eq(r->flags & ~KVM_MSR_FILTER_RANGE_VALID_MASK,
				  0);
		ck_assert_ptr_nonnull(r->bitmap);
		/* KVM's end is a u32: it must not wrap */
		ck_assert_uint_le((uint64_t)r->base + r->nmsrs, 0xffffffffull);
		if (F.nranges == 1 && !defbit && r->base == 0 &&
		    r->nmsrs == 1)
			continue;	/* the placeholder of an empty deny */
		for (int end = 0; end < 2; end++) {
			uint32_t m = end ? r->base + r->nmsrs - 1 : r->base;
			bool need = false;

			for (int d = 0; d < 2; d++)
				if (r->flags & (d ? WR : RD))
					need |= in_kernel(m, d) != defbit;
			ck_assert_msg(need, "range %u (0x%x+%u) has a useless "
				      "%s", i, r->base, r->nmsrs,
				      end ? "end" : "start");
		}
	}
}

/* Compiles and checks the filter against the policy at every span edge,
 * the x2APIC edges and both ends of the index space. */
static void compile_ok(void)
{
	struct msr_span *v;
	size_t n;

	ck_assert_msg(msr_filter_compile(&F, &P, err, sizeof(err)) == 0,
		      "%s", err);
	check_ranges();
	n = msr_policy_effective(&P, &v);
	for (size_t i = 0; i < n; i++) {
		check_point((uint64_t)v[i].first - 1);
		check_point(v[i].first);
		check_point(v[i].first + ((uint64_t)v[i].last - v[i].first) / 2);
		check_point(v[i].last);
		check_point((uint64_t)v[i].last + 1);
	}
	free(v);
	for (uint64_t i = 0x7fe; i <= 0x901; i++)
		check_point(i);
	check_point(0);
	check_point(0xffffffff);
}

static void compile_fails(const char *msg)
{
	ck_assert_int_eq(msr_filter_compile(&F, &P, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, msg), "\"%s\" lacks \"%s\"", err, msg);
	ck_assert_ptr_null(strchr(err, '\n'));
	ck_assert_uint_eq(F.nranges, 0);
	for (int i = 0; i < KVM_MSR_FILTER_MAX_RANGES; i++)
		ck_assert_ptr_null(F.kvm.ranges[i].bitmap);
}

/* Under a deny default the architectural MSRs stay KVM's (msr/arch.h)
 * and need allow ranges; tests about other ranges deny them too. */
static void no_arch(void)
{
	add("0x10-0x6e0 deny");
	add("0x4b564d00-0x4b564d08 deny");
	add("0xc0000080-0xc0000103 deny");
}

static const struct kvm_msr_filter_range *range(unsigned int i)
{
	ck_assert_uint_lt(i, F.nranges);
	return &F.kvm.ranges[i];
}

static bool bit(const struct kvm_msr_filter_range *r, uint32_t msr)
{
	uint32_t off = msr - r->base;

	ck_assert_uint_lt(off, r->nmsrs);
	return r->bitmap[off / 8] & (1u << (off % 8));
}

/* ---- basics ---------------------------------------------------------- */

START_TEST(kvm_needs_no_filter)
{
	add("preset:kvm");
	compile_ok();
	ck_assert_uint_eq(F.nranges, 0);
	ck_assert_uint_eq(F.kvm.flags, KVM_MSR_FILTER_DEFAULT_ALLOW);
	ck_assert(!msr_filter_needed(&F));
	ck_assert(msr_filter_allows(&F, 0x19a, MSR_READ));
}
END_TEST

START_TEST(empty_deny_gets_a_placeholder)
{
	add("default deny");
	no_arch();
	compile_ok();
	ck_assert(msr_filter_needed(&F));
	ck_assert_uint_eq(F.kvm.flags, KVM_MSR_FILTER_DEFAULT_DENY);
	ck_assert_uint_eq(F.nranges, 1);
	ck_assert_uint_eq(range(0)->nmsrs, 1);
	ck_assert_uint_eq(range(0)->flags, RD | WR);
	ck_assert(!bit(range(0), 0));
	ck_assert(!msr_filter_allows(&F, 0x10, MSR_WRITE));
	ck_assert(msr_filter_allows(&F, 0x830, MSR_WRITE));	/* x2APIC */
}
END_TEST

START_TEST(one_rule_one_range)
{
	add("0x19a deny");
	compile_ok();
	ck_assert_uint_eq(F.nranges, 1);
	ck_assert_uint_eq(range(0)->base, 0x19a);
	ck_assert_uint_eq(range(0)->nmsrs, 1);
	ck_assert_uint_eq(range(0)->flags, RD | WR);
	ck_assert(!bit(range(0), 0x19a));
}
END_TEST

START_TEST(read_only_and_write_only_rules)
{
	add("0x10 r deny");
	compile_ok();
	ck_assert_uint_eq(F.nranges, 1);
	ck_assert_uint_eq(range(0)->flags, RD);
	ck_assert(!msr_filter_allows(&F, 0x10, MSR_READ));
	ck_assert(msr_filter_allows(&F, 0x10, MSR_WRITE));
	msr_filter_free(&F);
	add("0x10 r allow");
	add("0x20 w value=1");		/* write side: ignore */
	compile_ok();
	ck_assert_uint_eq(F.nranges, 1);
	ck_assert_uint_eq(range(0)->flags, WR);
	ck_assert_uint_eq(range(0)->base, 0x20);
	ck_assert(msr_filter_allows(&F, 0x20, MSR_READ));
	ck_assert(!msr_filter_allows(&F, 0x20, MSR_WRITE));
}
END_TEST

START_TEST(different_actions_same_bits_share_a_range)
{
	add("0x10 r deny");
	add("0x10 w ignore");
	add("0x11 value=3");		/* reads 3, drops writes */
	add("0x12 emulate");
	compile_ok();
	ck_assert_uint_eq(F.nranges, 1);
	ck_assert_uint_eq(range(0)->flags, RD | WR);
	ck_assert_uint_eq(range(0)->nmsrs, 3);
}
END_TEST

START_TEST(differing_directions_need_two)
{
	add("0x10 r deny");
	add("0x20 w deny");
	compile_ok();
	ck_assert_uint_eq(F.nranges, 2);
	ck_assert(range(0)->flags != range(1)->flags);
	for (unsigned int i = 0; i < 2; i++)
		ck_assert_uint_eq(range(i)->nmsrs, 1);
}
END_TEST

START_TEST(log_and_count_force_exits)
{
	add("0x10 allow,log");
	add("0x11 r allow,count");
	add("0x12 allow");
	compile_ok();
	ck_assert(!msr_filter_allows(&F, 0x10, MSR_READ));
	ck_assert(!msr_filter_allows(&F, 0x10, MSR_WRITE));
	ck_assert(!msr_filter_allows(&F, 0x11, MSR_READ));
	ck_assert(msr_filter_allows(&F, 0x11, MSR_WRITE));
	ck_assert(msr_filter_allows(&F, 0x12, MSR_READ));
}
END_TEST

START_TEST(default_deny_with_allowed_islands)
{
	add("default deny");
	no_arch();
	add("IA32_TSC allow");
	add("EFER-SFMASK allow");
	add("FS_BASE r allow");
	add("0x19a value=5");		/* exits like the default */
	compile_ok();
	ck_assert_uint_eq(F.kvm.flags, KVM_MSR_FILTER_DEFAULT_DENY);
	ck_assert_uint_eq(F.nranges, 3);
	ck_assert(msr_filter_allows(&F, 0x10, MSR_READ));
	ck_assert(!msr_filter_allows(&F, 0x11, MSR_READ));
	ck_assert(!msr_filter_allows(&F, 0x19a, MSR_READ));
	ck_assert(msr_filter_allows(&F, 0xc0000084, MSR_WRITE));
	ck_assert(msr_filter_allows(&F, 0xc0000100, MSR_READ));
	ck_assert(!msr_filter_allows(&F, 0xc0000104, MSR_WRITE));
	ck_assert(!msr_filter_allows(&F, 0xc0000085, MSR_READ));
}
END_TEST

/* ---- KVM's limits ---------------------------------------------------- */

START_TEST(sixteen_ranges_fit_seventeen_do_not)
{
	char rule[64];

	for (int i = 0; i < 16; i++) {
		snprintf(rule, sizeof(rule), "0x%x deny", i * 0x10000);
		add(rule);
	}
	compile_ok();
	ck_assert_uint_eq(F.nranges, 16);
	msr_filter_free(&F);
	add("0x170000 deny");
	compile_fails("msr policy: error: the table needs more than 16 KVM "
		      "filter ranges (each covers at most 12288 consecutive "
		      "MSRs; reads and writes need separate ranges where they "
		      "differ); group the rules that differ from the default "
		      "(allow) more tightly");
}
END_TEST

START_TEST(sixteen_ranges_by_direction)
{
	char rule[64];

	/* 8 read-only and 8 write-only rules, far apart: 16 ranges */
	for (int i = 0; i < 16; i++) {
		snprintf(rule, sizeof(rule), "0x%x %s deny", i * 0x10000,
			 i % 2 ? "w" : "r");
		add(rule);
	}
	compile_ok();
	ck_assert_uint_eq(F.nranges, 16);
	msr_filter_free(&F);
	add("0x100000 w deny");
	compile_fails("more than 16 KVM filter ranges");
}
END_TEST

START_TEST(bitmap_size_limit)
{
	add("0x1000-0x3fff deny");
	compile_ok();
	ck_assert_uint_eq(F.nranges, 1);
	ck_assert_uint_eq(range(0)->nmsrs, MAXN);
	msr_filter_free(&F);
	add("0x4000 deny");		/* 12289 MSRs */
	compile_ok();
	ck_assert_uint_eq(F.nranges, 2);
	ck_assert_uint_eq(range(0)->base, 0x1000);
	ck_assert_uint_eq(range(0)->nmsrs, MAXN);
	ck_assert_uint_eq(range(1)->base, 0x4000);
	ck_assert_uint_eq(range(1)->nmsrs, 1);
}
END_TEST

START_TEST(biggest_expressible_range)
{
	add("0x10000-0x3ffff deny");	/* 16 * 12288 MSRs */
	compile_ok();
	ck_assert_uint_eq(F.nranges, 16);
	msr_filter_free(&F);
	add("0x40000 deny");
	compile_fails("more than 16 KVM filter ranges");
}
END_TEST

START_TEST(straddling_12288_boundaries)
{
	/* exceptions 12287 apart fit one range, 12288 apart do not */
	add("0 deny");
	add("0x2fff deny");
	compile_ok();
	ck_assert_uint_eq(F.nranges, 1);
	ck_assert_uint_eq(range(0)->nmsrs, MAXN);
	ck_assert(bit(range(0), 1));
	msr_filter_free(&F);
	add("0x3000 deny");
	compile_ok();
	ck_assert_uint_eq(F.nranges, 2);
	ck_assert_uint_eq(range(1)->base, 0x3000);
	msr_filter_free(&F);
	msr_policy_free(&P);
	msr_policy_init(&P);
	/* a pair across a multiple of 12288 is still one short range */
	add("0x2fff-0x3000 deny");
	add("0x5fff-0x6000 w deny");
	compile_ok();
	ck_assert_uint_eq(F.nranges, 2);
	ck_assert_uint_eq(range(0)->base, 0x2fff);
	ck_assert_uint_eq(range(0)->nmsrs, 2);
	msr_filter_free(&F);
	msr_policy_free(&P);
	msr_policy_init(&P);
	add("0x1000-0x4fff deny");
	compile_ok();
	ck_assert_uint_eq(F.nranges, 2);
	ck_assert_uint_eq(range(0)->nmsrs, MAXN);
	ck_assert_uint_eq(range(1)->base, 0x4000);
	ck_assert_uint_eq(range(1)->nmsrs, 0x1000);
}
END_TEST

START_TEST(the_last_msr)
{
	add("0xffffffff deny");
	compile_fails("--msr:1:1: error: MSR 0xffffffff can only get the "
		      "filter's default (KVM computes a range's end in 32 bits, "
		      "so no range can cover it), but this rule makes its reads "
		      "'deny' under default 'allow'");
	msr_policy_free(&P);
	msr_policy_init(&P);
	add("0xffff0000-0xffffffff w allow,count");
	compile_fails("makes its writes 'allow,count' under default 'allow'");
	msr_policy_free(&P);
	msr_policy_init(&P);
	add("default deny");
	no_arch();
	add("0xffffffff emulate=5");	/* exits anyway: fine */
	add("0xfffff000-0xfffffffe allow");
	compile_ok();
	ck_assert(!msr_filter_allows(&F, 0xffffffff, MSR_READ));
	ck_assert_uint_eq(F.nranges, 1);
	ck_assert_uint_eq(range(0)->base, 0xfffff000);
	ck_assert_uint_eq(range(0)->nmsrs, 0xfff);
	msr_filter_free(&F);
	msr_policy_free(&P);
	msr_policy_init(&P);
	add("0xfffffffe deny");
	compile_ok();
	ck_assert_uint_eq(range(0)->base, 0xfffffffe);
	ck_assert_uint_eq(range(0)->nmsrs, 1);
}
END_TEST

START_TEST(x2apic_refused)
{
	add("0x800 deny");
	compile_fails("--msr:1:1: error: x2APIC MSRs 0x800-0x8ff cannot be "
		      "filtered by KVM, but this rule makes reads of 0x800 "
		      "'deny'; only allow is possible there");
	msr_policy_free(&P);
	msr_policy_init(&P);
	ck_assert_int_eq(msr_policy_add_line(&P, "f.msr", 3,
					     "0x8ff w ignore", err,
					     sizeof(err)), 0);
	compile_fails("f.msr:3:1: error: x2APIC MSRs 0x800-0x8ff cannot be "
		      "filtered by KVM, but this rule makes writes of 0x8ff "
		      "'ignore'");
	msr_policy_free(&P);
	msr_policy_init(&P);
	add("0x7ff-0x900 allow,log");
	compile_fails("makes reads of 0x800 'allow,log'");
}
END_TEST

START_TEST(x2apic_around)
{
	add("0-0xffff deny");
	add("0x800-0x8ff allow");	/* a later allow makes it fine */
	compile_ok();
	ck_assert(msr_filter_allows(&F, 0x800, MSR_READ));
	ck_assert(!msr_filter_allows(&F, 0x7ff, MSR_READ));
	ck_assert(!msr_filter_allows(&F, 0x900, MSR_READ));
	msr_filter_free(&F);
	msr_policy_free(&P);
	msr_policy_init(&P);
	/* under default deny x2APIC needs no range, and one range spans it */
	add("default deny");
	no_arch();
	add("0x7ff allow");
	add("0x900 allow");
	compile_ok();
	ck_assert_uint_eq(F.nranges, 1);
	ck_assert_uint_eq(range(0)->base, 0x7ff);
	ck_assert_uint_eq(range(0)->nmsrs, 0x102);
	ck_assert_uint_eq(range(0)->flags, RD | WR);
	ck_assert(bit(range(0), 0x7ff));
	ck_assert(bit(range(0), 0x800));	/* KVM ignores it; say so */
	ck_assert(bit(range(0), 0x8ff));
	ck_assert(bit(range(0), 0x900));
}
END_TEST

/* ---- the mirror of kvm_msr_allowed() --------------------------------- */

START_TEST(allows_mirrors_kvm)
{
	static uint8_t zero[2], ones[2] = { 0xff, 0xff };

	F.nranges = 3;
	F.kvm.flags = KVM_MSR_FILTER_DEFAULT_DENY;
	F.kvm.ranges[0] = (struct kvm_msr_filter_range){ RD, 8, 0x100, zero };
	F.kvm.ranges[1] = (struct kvm_msr_filter_range){ RD | WR, 16, 0x100,
							 ones };
	F.kvm.ranges[2] = (struct kvm_msr_filter_range){ RD | WR, 2,
							 0xffffffff, ones };
	ck_assert(!msr_filter_allows(&F, 0x100, MSR_READ));	/* first wins */
	ck_assert(msr_filter_allows(&F, 0x100, MSR_WRITE));
	ck_assert(msr_filter_allows(&F, 0x108, MSR_READ));
	ck_assert(!msr_filter_allows(&F, 0x110, MSR_READ));	/* default */
	ck_assert(!msr_filter_allows(&F, 0xffffffff, MSR_READ)); /* wraps */
	ck_assert(msr_filter_allows(&F, 0x8aa, MSR_READ));	/* x2APIC */
	memset(&F, 0, sizeof(F));	/* static bitmaps: do not free */
}
END_TEST

/* ---- presets and random tables --------------------------------------- */

START_TEST(presets_compile)
{
	static const char *const names[] = { "preset:kvm", "preset:xen-strict",
					     "preset:xen-relaxed",
					     "preset:therm-compat" };

	add(names[_i]);
	compile_ok();
	ck_assert(msr_filter_allows(&F, 0xc0000080, MSR_WRITE));
	if (_i)
		ck_assert(!msr_filter_allows(&F, 0x12345678, MSR_READ));
}
END_TEST

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng >> 33) % n;
}

/* Indices clustered near interesting places, so ranges interact. */
static uint32_t random_index(void)
{
	static const uint32_t base[] = { 0, 0x2f00, 0x6000, 0x780,
					  0x40000000, 0xc0000000, 0xc0010000,
					  0xfffff000 };

	return base[rnd(8)] + rnd(rnd(2) ? 0x100 : 0x4000);
}

/* The fewest windows of MAXN MSRs that cover one direction's exceptions
 * (greedy, which is optimal for one direction). */
static unsigned int greedy(enum msr_dir d)
{
	bool defbit = msr_entry_in_kernel(&P.def);
	struct msr_span *v;
	size_t n = msr_policy_effective(&P, &v);
	unsigned int count = 0;
	uint64_t end = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t lo = v[i].first, hi = v[i].last + 1ull;

		if (msr_entry_in_kernel(&v[i].e[d]) == defbit ||
		    v[i].first == 0x800)
			continue;
		if (count && lo < end)
			lo = end;
		for (; lo < hi; lo = end) {
			count++;
			end = lo + MAXN;
		}
	}
	free(v);
	return count;
}

START_TEST(random_tables)
{
	static const char *const acts[] = { "allow", "deny", "ignore",
					    "allow,log", "value=1", "emulate" };
	static const char *const dirs[] = { "r", "w", "rw" };
	char rule[96];
	int rules = 1 + (int)rnd(12);

	rng += (uint64_t)_i * 0x2545f4914f6cdd1dull;
	add(rnd(3) ? "default allow" : "default deny");
	for (int k = 0; k < rules; k++) {
		uint32_t a = random_index(), len = rnd(4) ? rnd(8) : rnd(0x5000);
		uint64_t b = (uint64_t)a + len;

		if (b > 0xfffffffe)
			b = 0xfffffffe;
		if (a <= 0x8ff && b >= 0x800)
			continue;
		snprintf(rule, sizeof(rule), "0x%x-0x%llx %s %s", a,
			 (unsigned long long)b, dirs[rnd(3)], acts[rnd(6)]);
		add(rule);
	}
	if (msr_filter_compile(&F, &P, err, sizeof(err))) {
		ck_assert_msg(strstr(err, "more than 16"), "%s", err);
		return;
	}
	msr_filter_free(&F);
	compile_ok();
	/* as good as the best single-direction layouts, never worse than
	 * doing each direction on its own */
	unsigned int r = greedy(MSR_READ), w = greedy(MSR_WRITE);

	if (r + w == 0)
		return;
	ck_assert_uint_ge(F.nranges, r > w ? r : w);
	ck_assert_uint_le(F.nranges, r + w);
}
END_TEST

/* Watched accesses exit whatever the table says, the rest stays as the
 * table says; the table itself is untouched. */
START_TEST(watched_msrs_exit)
{
	const struct msr_watch w[] = {
		{ 0xc0000082, true, true }, { 0xc0000081, false, true },
		{ 0x10, true, false },
	};

	add("0xc0000080-0xc00000ff allow");
	add("0x10 deny");
	ck_assert_int_eq(msr_filter_compile_watch(&F, &P, w, 3, err,
						  sizeof(err)), 0);
	ck_assert(!msr_filter_allows(&F, 0xc0000082, MSR_READ));
	ck_assert(!msr_filter_allows(&F, 0xc0000082, MSR_WRITE));
	ck_assert(msr_filter_allows(&F, 0xc0000081, MSR_READ));
	ck_assert(!msr_filter_allows(&F, 0xc0000081, MSR_WRITE));
	ck_assert(!msr_filter_allows(&F, 0x10, MSR_READ));	/* deny */
	ck_assert(!msr_filter_allows(&F, 0x10, MSR_WRITE));
	for (uint32_t i = 0xc0000080; i <= 0xc0000084; i++)
		if (i != 0xc0000081 && i != 0xc0000082)
			for (int d = 0; d < 2; d++)
				ck_assert(msr_filter_allows(&F, i, d));
	ck_assert(msr_filter_allows(&F, 0x11, MSR_READ));
	ck_assert(in_kernel(0xc0000082, MSR_READ));	/* policy unchanged */
	msr_filter_free(&F);
	/* default deny: the watched MSR's neighbours keep their rule
	 * (architectural MSRs stay with KVM; 0xc0000104 is not one) */
	add("default deny");
	ck_assert_int_eq(msr_filter_compile_watch(&F, &P, w, 2, err,
						  sizeof(err)), 0);
	ck_assert(!msr_filter_allows(&F, 0xc0000082, MSR_WRITE));
	ck_assert(msr_filter_allows(&F, 0xc0000083, MSR_WRITE));
	ck_assert(!msr_filter_allows(&F, 0xc0000104, MSR_WRITE));
	msr_filter_free(&F);
	ck_assert_int_eq(msr_filter_compile_watch(&F, &P,
		&(struct msr_watch){ 0x830, true, true }, 1, err,
		sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "x2APIC"));
}
END_TEST

/* Silent denials need no exit; anything else the filter denies (log,
 * count, a value, emulation, a watch) makes the VM ask for filter exits. */
START_TEST(silent_denials_need_no_exit)
{
	const struct msr_watch w = { 0xc0000082, false, true };
	const char *const loud[] = { "0x19a deny,log", "0x19a deny,count",
		"0x19a ignore", "0x19a value=1", "0x19a emulate",
		"0x19a r allow,count", "default ignore" };

	add("preset:kvm");
	compile_ok();
	ck_assert(!F.silent && !F.exits);
	msr_filter_free(&F);
	add("0x19a deny");
	add("0x12340000-0x12340fff w deny");
	compile_ok();
	ck_assert(F.silent && !F.exits);
	msr_filter_free(&F);
	ck_assert_int_eq(msr_filter_compile_watch(&F, &P, &w, 1, err,
						  sizeof(err)), 0);
	ck_assert(F.silent && F.exits);
	for (size_t i = 0; i < sizeof(loud) / sizeof(loud[0]); i++) {
		msr_filter_free(&F);
		msr_policy_free(&P);
		msr_policy_init(&P);
		add("0x10 deny");
		add(loud[i]);
		compile_ok();
		ck_assert_msg(F.exits, "\"%s\" needs no exit?", loud[i]);
	}
	/* A deny default (the architectural MSRs stay KVM's) is silent. */
	msr_filter_free(&F);
	msr_policy_free(&P);
	msr_policy_init(&P);
	add("default deny");
	add("0x10 allow");
	compile_ok();
	ck_assert(F.silent && !F.exits);
}
END_TEST

START_TEST(print_and_free_twice)
{
	struct capture c;
	const char *out;

	add("default deny");
	no_arch();
	add("0x10-0x20 allow");
	compile_ok();
	capture_start(&c, 1);
	msr_filter_print(&F, stdout);
	out = capture_end(&c);
	ck_assert_ptr_nonnull(strstr(out, "# KVM MSR filter: default deny, "
				     "1 of 16 ranges\n"));
	ck_assert_ptr_nonnull(strstr(out, "#   read|write 0x00000010-0x00000020"
				     "    17 MSRs,    3 bitmap bytes\n"));
	ck_assert_ptr_nonnull(strstr(out, "# silent denials (deny without log "
				     "or count): #GP from KVM itself, no "
				     "exit\n"));
	ck_assert_int_eq(count_lines(out), 3);
	msr_filter_free(&F);
	msr_filter_free(&F);
	ck_assert_uint_eq(F.nranges, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("msr_filter");
	TCase *t = tcase_create("core");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 60);
	tcase_add_test(t, kvm_needs_no_filter);
	tcase_add_test(t, silent_denials_need_no_exit);
	tcase_add_test(t, empty_deny_gets_a_placeholder);
	tcase_add_test(t, one_rule_one_range);
	tcase_add_test(t, read_only_and_write_only_rules);
	tcase_add_test(t, different_actions_same_bits_share_a_range);
	tcase_add_test(t, differing_directions_need_two);
	tcase_add_test(t, log_and_count_force_exits);
	tcase_add_test(t, default_deny_with_allowed_islands);
	tcase_add_test(t, sixteen_ranges_fit_seventeen_do_not);
	tcase_add_test(t, sixteen_ranges_by_direction);
	tcase_add_test(t, bitmap_size_limit);
	tcase_add_test(t, biggest_expressible_range);
	tcase_add_test(t, straddling_12288_boundaries);
	tcase_add_test(t, the_last_msr);
	tcase_add_test(t, x2apic_refused);
	tcase_add_test(t, x2apic_around);
	tcase_add_test(t, allows_mirrors_kvm);
	tcase_add_loop_test(t, presets_compile, 0, 4);
	tcase_add_loop_test(t, random_tables, 0, 200);
	tcase_add_test(t, watched_msrs_exit);
	tcase_add_test(t, print_and_free_twice);
	suite_add_tcase(s, t);
	return unit_run(s);
}
