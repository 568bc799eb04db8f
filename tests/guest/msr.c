// SPDX-License-Identifier: MIT
/*
 * msr: drives RDMSR/WRMSR from the guest for the MSR policy boot tests
 * (tests/boot/msr.sh).  Every word of the command line that names a check
 * runs it, prints one line and counts a failure if the outcome differs:
 *
 *	rd:MSR=EXP[*N]		rdmsr; EXP is a value, "gp" or "any"
 *	wr:MSR:VAL=EXP[*N]	wrmsr; EXP is "ok" or "gp"
 *	smp:MSR:INIT:X:Y	per-vCPU emulate round trip: vCPU 0 writes X;
 *				vCPU 1 (started with INIT/SIPI/SIPI) must
 *				read INIT, write Y and read Y; vCPU 0 must
 *				then still read X (each smp: check needs its
 *				own MSR: vCPU 1's values survive INIT)
 *	fill:MSR:N:OK		wrmsr of N consecutive MSRs (value = index):
 *				exactly the first OK succeed, the rest #GP
 *	hammer=SEED [iters=N]	N random accesses (see hammer()); only #GP
 *				may result, anything else fails
 *
 * Numbers are decimal or 0x hex.  Each access runs under guest_try, so a #GP
 * is an outcome, not a crash.  Exit status 0 if every check held, else 1.
 */
#include "lib/ap.h"
#include "lib/guest.h"
#include "lib/msr_try.h"

#define VEC_GP		13
#define NO_FAULT	(-1)

/* ---- one access ----------------------------------------------------- */

/* Returns NO_FAULT or the vector; a read fills *value. */
static int msr_try(bool write, uint32_t index, uint64_t *value)
{
	uint64_t v = 0;
	int vec;

	if (write)
		return msr_try_wr(index, *value);
	vec = msr_try_rd(index, &v);
	if (vec == NO_FAULT)
		*value = v;
	return vec;
}

#define OUTCOME_LEN	24

/* "ok", "#GP" or "vector N" (in buf). */
static const char *outcome(int vec, char buf[OUTCOME_LEN])
{
	if (vec == NO_FAULT)
		return "ok";
	if (vec == VEC_GP)
		return "#GP";
	gsnprintf(buf, OUTCOME_LEN, "vector %d", vec);
	return buf;
}

/* ---- parsing -------------------------------------------------------- */

static bool parse_num(const char **s, uint64_t *v)
{
	const char *p = *s;
	unsigned int base = 10;
	uint64_t n = 0;
	int digits = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	for (;; p++, digits++) {
		unsigned int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (n > (UINT64_MAX - d) / base)
			return false;
		n = n * base + d;
	}
	if (!digits)
		return false;
	*s = p;
	*v = n;
	return true;
}

static bool parse_u32(const char **s, uint32_t *v)
{
	uint64_t n;

	if (!parse_num(s, &n) || n > UINT32_MAX)
		return false;
	*v = (uint32_t)n;
	return true;
}

static bool eat(const char **s, char c)
{
	if (**s != c)
		return false;
	(*s)++;
	return true;
}

static bool eat_word(const char **s, const char *w)
{
	size_t n = strlen(w);

	if (strncmp(*s, w, n))
		return false;
	*s += n;
	return true;
}

static bool at_end(const char *s)
{
	return !*s || *s == ' ';
}

/* "*N" or nothing (1), then the end of the word. */
static bool parse_repeat(const char **s, uint64_t *n)
{
	*n = 1;
	if (eat(s, '*') && (!parse_num(s, n) || !*n))
		return false;
	return at_end(*s);
}

/* ---- rd: and wr: ---------------------------------------------------- */

enum exp_kind { EXP_VALUE, EXP_GP, EXP_ANY, EXP_OK };

struct expect {
	enum exp_kind kind;
	uint64_t value;
};

static bool parse_expect(const char **s, bool write, struct expect *e)
{
	if (eat_word(s, "gp"))
		e->kind = EXP_GP;
	else if (write && eat_word(s, "ok"))
		e->kind = EXP_OK;
	else if (!write && eat_word(s, "any"))
		e->kind = EXP_ANY;
	else if (!write && parse_num(s, &e->value))
		e->kind = EXP_VALUE;
	else
		return false;
	return true;
}

static bool outcome_matches(const struct expect *e, int vec, uint64_t v)
{
	switch (e->kind) {
	case EXP_GP:	return vec == VEC_GP;
	case EXP_VALUE:	return vec == NO_FAULT && v == e->value;
	default:	return vec == NO_FAULT;
	}
}

static void run_access(const char *word, bool write, uint32_t index,
		       uint64_t wval, const struct expect *e, uint64_t times)
{
	uint64_t i, v = 0;
	int vec = NO_FAULT;
	char buf[OUTCOME_LEN];

	for (i = 0; i < times; i++) {
		v = wval;
		vec = msr_try(write, index, &v);
		if (!outcome_matches(e, vec, v))
			break;
	}
	if (i == times) {
		if (write || vec != NO_FAULT)
			gprintf("ok: %s (%s)\n", word, outcome(vec, buf));
		else
			gprintf("ok: %s (%#llx)\n", word, (unsigned long long)v);
		return;
	}
	if (!write && vec == NO_FAULT)
		check(false, "%s: access %llu read %#llx", word,
		      (unsigned long long)i + 1, (unsigned long long)v);
	else
		check(false, "%s: access %llu gave %s", word,
		      (unsigned long long)i + 1, outcome(vec, buf));
}

/* "rd:MSR=EXP[*N]" or "wr:MSR:VAL=EXP[*N]" after the "rd:"/"wr:". */
static bool check_access(const char *word, const char *s, bool write)
{
	struct expect e;
	uint32_t index;
	uint64_t wval = 0, times;

	if (!parse_u32(&s, &index))
		return false;
	if (write && (!eat(&s, ':') || !parse_num(&s, &wval)))
		return false;
	if (!eat(&s, '=') || !parse_expect(&s, write, &e) ||
	    !parse_repeat(&s, &times))
		return false;
	run_access(word, write, index, wval, &e, times);
	return true;
}

/* ---- fill: ---------------------------------------------------------- */

static bool check_fill(const char *word, const char *s)
{
	uint32_t first, n, want, ok = 0, bad = 0;
	char buf[OUTCOME_LEN];

	if (!parse_u32(&s, &first) || !eat(&s, ':') || !parse_u32(&s, &n) ||
	    !eat(&s, ':') || !parse_u32(&s, &want) || !at_end(s) ||
	    want > n || !n || (uint64_t)first + n - 1 > UINT32_MAX)
		return false;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t v = first + i;
		int vec = msr_try(true, first + i, &v);

		/* The first OK must succeed, every later one must #GP. */
		if (vec != (i < want ? NO_FAULT : VEC_GP) && !bad++)
			check(false, "%s: write %u (%#x) gave %s", word, i + 1,
			      first + i, outcome(vec, buf));
		ok += vec == NO_FAULT;
	}
	gprintf("%s: %s (%u of %u writes succeeded)\n", word,
		bad ? "FAILED" : "ok", ok, n);
	return true;
}

/* ---- smp: a second vCPU --------------------------------------------- */

/*
 * vCPU 1 runs ap_main() (lib/ap.c starts it).  The BSP waits outside any
 * guest_try meanwhile, so the AP may use guest_try (its state is global).
 */
#define AP_SPIN_MAX	300000u	/* ~1 s: a safety net if the AP never runs */

/* Written by the AP; the BSP reads them once done is set. */
static struct {
	uint32_t index;
	uint64_t y, first, second;
	int vec_first, vec_wr, vec_second;
	volatile int done;
} ap;

static void ap_main(void *arg)
{
	uint64_t y = ap.y;

	(void)arg;
	ap.vec_first = msr_try(false, ap.index, &ap.first);
	ap.vec_wr = msr_try(true, ap.index, &y);
	ap.vec_second = msr_try(false, ap.index, &ap.second);
	__atomic_store_n(&ap.done, 1, __ATOMIC_RELEASE);
}

static bool check_smp(const char *word, const char *s)
{
	uint64_t init, x, y, v = 0;
	uint32_t index, spins = 0;
	char b1[OUTCOME_LEN], b2[OUTCOME_LEN], b3[OUTCOME_LEN];
	int vec;

	if (!parse_u32(&s, &index) || !eat(&s, ':') || !parse_num(&s, &init) ||
	    !eat(&s, ':') || !parse_num(&s, &x) || !eat(&s, ':') ||
	    !parse_num(&s, &y) || !at_end(s))
		return false;
	ap.index = index;
	ap.y = y;
	ap.done = 0;	/* INIT restarts an AP a previous smp: check parked */
	v = x;
	vec = msr_try(true, index, &v);
	check(vec == NO_FAULT, "%s: vcpu0 write gave %s", word,
	      outcome(vec, b1));
	ap_start(1, ap_main, NULL);
	while (!__atomic_load_n(&ap.done, __ATOMIC_ACQUIRE) &&
	       ++spins < AP_SPIN_MAX)
		__asm__ volatile("pause");
	if (!check(ap.done, "%s: vcpu1 never ran (INIT/SIPI)", word))
		return true;
	gprintf("%s: vcpu1 read %s %#llx, write %s, read %s %#llx\n", word,
		outcome(ap.vec_first, b1), (unsigned long long)ap.first,
		outcome(ap.vec_wr, b2), outcome(ap.vec_second, b3),
		(unsigned long long)ap.second);
	check(ap.vec_first == NO_FAULT && ap.first == init,
	      "%s: vcpu1 first read is not the initial value", word);
	check(ap.vec_wr == NO_FAULT && ap.vec_second == NO_FAULT &&
	      ap.second == y, "%s: vcpu1 does not read back its write", word);
	vec = msr_try(false, index, &v);
	check(vec == NO_FAULT && v == x, "%s: vcpu0 reads %s %#llx after "
	      "vcpu1's write", word, outcome(vec, b1),
	      (unsigned long long)v);
	gprintf("%s: vcpu0 read %s %#llx\n", word, outcome(vec, b1),
		(unsigned long long)v);
	return true;
}

/* ---- hammer --------------------------------------------------------- */

/*
 * Writes the hammer never makes (it reads these instead), because KVM
 * would act on them in ways that break this payload rather than the VMM:
 *	0x10 TSC, 0x3b TSC_ADJUST	time jumps (kept out for determinism)
 *	0x11-0x12, 0x4b564d00-ff	KVM PV MSRs (and PVM's): KVM writes
 *					guest memory at the given address
 *	0x1b APIC_BASE			relocate/disable the APIC, x2APIC
 *	0x174-0x176, 0xc0000081-84	SYSENTER/SYSCALL entry points
 *	0x277 PAT, 0x2ff MTRR_DEF_TYPE	memory types of the payload itself
 *	0x40000001, 0x40000021,		Hyper-V hypercall, reference TSC and
 *	0x40000073			VP assist pages: written by KVM
 *	0xc0000080 EFER			long mode, NX
 *	0xc0000100-0xc0000102		FS/GS bases
 */
static const struct { uint32_t first, last; } no_write[] = {
	{ 0x10, 0x12 }, { 0x1b, 0x1b }, { 0x3b, 0x3b }, { 0x174, 0x176 },
	{ 0x277, 0x277 }, { 0x2ff, 0x2ff }, { 0x40000001, 0x40000001 },
	{ 0x40000021, 0x40000021 }, { 0x40000073, 0x40000073 },
	{ 0x4b564d00, 0x4b564dff }, { 0xc0000080, 0xc0000084 },
	{ 0xc0000100, 0xc0000102 },
};

static uint64_t rng_state;

static uint64_t rng(void)
{
	uint64_t x = rng_state;	/* xorshift64* */

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dull;
}

static uint32_t random_index(void)
{
	static const uint32_t named[] = { 0x19a, 0x1b0, 0x198, 0x199, 0x19c,
		0x35, 0x34, 0xce, 0x1a0, 0x3a, 0x48, 0x8b, 0xc0010015 };
	uint64_t r = rng();

	switch (r % 8) {
	case 0:	return (r >> 8) & 0x1fff;
	case 1:	return 0x800 + ((r >> 8) & 0xff);	/* x2APIC */
	case 2:	return 0xc0000000 + ((r >> 8) & 0x1fff);
	case 3:	return 0xc0010000 + ((r >> 8) & 0x1fff);
	case 4:	return 0x40000000 + ((r >> 8) & 0x1ff);
	case 5:	return 0x4b564d00 + ((r >> 8) & 0xff);
	case 6:	return named[(r >> 8) % (sizeof(named) / sizeof(named[0]))];
	default: return (uint32_t)(r >> 32);
	}
}

static uint64_t random_value(void)
{
	uint64_t r = rng();

	switch (r % 5) {
	case 0:	return 0;
	case 1:	return ~0ull;
	case 2:	return 1ull << (r >> 8 & 63);
	case 3:	return (r >> 8) & 0xff;
	default: return rng();
	}
}

static bool may_write(uint32_t index)
{
	for (size_t i = 0; i < sizeof(no_write) / sizeof(no_write[0]); i++)
		if (index >= no_write[i].first && index <= no_write[i].last)
			return false;
	return true;
}

/* Random accesses; only #GP may come back.  Prints the totals for the boot
 * test to compare with --stats: every #GP outside the x2APIC range must be
 * the VMM's answer to an exit (KVM may answer x2APIC MSRs itself). */
static void hammer(uint64_t seed, uint64_t iters)
{
	uint64_t n[2] = { 0, 0 }, gp[2] = { 0, 0 }, gp_x2apic = 0, other = 0;

	rng_state = seed ? seed : 1;
	for (uint64_t i = 0; i < iters; i++) {
		uint32_t index = random_index();
		bool write = (rng() & 1) && may_write(index);
		uint64_t v = random_value();
		int vec = msr_try(write, index, &v);

		n[write]++;
		if (vec == VEC_GP) {
			gp[write]++;
			gp_x2apic += index >= 0x800 && index <= 0x8ff;
		} else if (vec != NO_FAULT && !other++) {
			check(false, "hammer: %s %#x gave vector %d",
			      write ? "wrmsr" : "rdmsr", index, vec);
		}
	}
	gprintf("hammer: seed %llu: %llu reads (%llu #GP), %llu writes "
		"(%llu #GP); gp=%llu gp-x2apic=%llu other=%llu\n",
		(unsigned long long)seed, (unsigned long long)n[0],
		(unsigned long long)gp[0], (unsigned long long)n[1],
		(unsigned long long)gp[1], (unsigned long long)(gp[0] + gp[1]),
		(unsigned long long)gp_x2apic,
		(unsigned long long)other);
}

/* ---- main ----------------------------------------------------------- */

/* Runs the check a word names; false if the word is a malformed check. */
static bool run_word(const char *word)
{
	const char *s = word;

	if (eat_word(&s, "rd:"))
		return check_access(word, s, false);
	if (eat_word(&s, "wr:"))
		return check_access(word, s, true);
	if (eat_word(&s, "fill:"))
		return check_fill(word, s);
	if (eat_word(&s, "smp:"))
		return check_smp(word, s);
	/* hammer=, iters=, ...; a word with ':' is a mistyped check. */
	while (*s && *s != ':')
		s++;
	return !*s;
}

int payload_main(const struct hvm_start_info *si)
{
	const char *cmd = start_info_cmdline(si);
	uint64_t seed, iters = 1000;
	unsigned int words = 0;
	char word[96];

	for (const char *s = cmd; *s;) {
		size_t len = 0;

		while (*s == ' ')
			s++;
		while (s[len] && s[len] != ' ')
			len++;
		if (!len)
			break;
		memcpy(word, s, len < sizeof(word) ? len : sizeof(word) - 1);
		word[len < sizeof(word) ? len : sizeof(word) - 1] = 0;
		words++;
		check(len < sizeof(word) && run_word(word),
		      "malformed check '%s'", word);
		s += len;
	}
	if (cmdline_has(cmd, "hammer")) {
		if (!check(cmdline_u64(cmd, "hammer", &seed) &&
			   (!cmdline_has(cmd, "iters") ||
			    cmdline_u64(cmd, "iters", &iters)),
			   "malformed hammer=SEED or iters=N"))
			return 1;
		hammer(seed, iters);
	}
	check(words > 0, "no checks on the command line");
	gprintf("msr: %u failure(s)\n", check_failures());
	return check_failures() ? 1 : 0;
}
