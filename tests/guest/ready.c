// SPDX-License-Identifier: MIT
/*
 * ready: a payload test in the CI form (lib/ready.h), for minivmm test's
 * snapshots (tests/guest/unittests.cfg, entries ready-*).  Before its
 * ready point it does the expensive part once: it fills SETUP_MIB of RAM
 * with a pattern (in a restore those pages come from the snapshot).  Then
 * it takes its parameters, from the command line or, restored, from the
 * mailbox, and runs what they say:
 *	expect-ram=N	the firmware's memory map holds N-1..N MiB of RAM
 *	mix=N expect=X	N rounds of a hash end at X (hex)
 *	fail		fails on purpose (a restored test's verdict must be
 *			its own)
 * The pattern is checked every time.  Prints "ready: generation G, args
 * 'A'" first, so a log shows whether the test was restored and with what.
 */
#include "lib/guest.h"
#include "lib/ready.h"

#define MIB		(1024ull * 1024)
#define SETUP_BASE	(32 * MIB)
#define SETUP_MIB	16ull
#define MAX_MEMMAP	128

static uint64_t mix(uint64_t h, uint64_t i)
{
	h ^= i + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

struct pattern {
	bool fill, ok;
};

/* Ring 3, which runs natively here (ring 0 is emulated on PVM hosts). */
static void user_pattern(void *arg)
{
	struct pattern *pt = arg;
	volatile uint64_t *p = (volatile uint64_t *)(uintptr_t)SETUP_BASE;

	pt->ok = true;
	for (uint64_t i = 0; i < SETUP_MIB * MIB / 8; i += 64) {
		if (pt->fill)
			p[i] = mix(0x5e7, i);
		else
			pt->ok &= p[i] == mix(0x5e7, i);
	}
}

static bool pattern(bool fill)
{
	struct pattern pt = { fill, false };

	run_user(user_pattern, &pt);
	return pt.ok;
}

static uint64_t ram_in_map(const struct hvm_start_info *si)
{
	uint32_t n;
	const struct hvm_memmap_table_entry *e = start_info_memmap(si, &n);
	uint64_t ram = 0;

	for (uint32_t i = 0; e && i < n && i < MAX_MEMMAP; i++)
		if (e[i].type == HVM_MEMMAP_RAM)
			ram += e[i].size;
	return ram;
}

static uint64_t hex(const char *s)
{
	uint64_t v = 0;

	for (; *s && *s != ' '; s++)
		v = v << 4 | (uint64_t)(*s <= '9' ? *s - '0' : (*s | 0x20) -
					'a' + 10);
	return v;
}

struct mix_run {
	uint64_t n, h;
};

static void user_mix(void *arg)
{
	struct mix_run *m = arg;

	m->h = 1;
	for (uint64_t i = 0; i < m->n; i++)
		m->h = mix(m->h, i);
}

static void run_mix(const char *args)
{
	const char *e = args;
	struct mix_run m = { 0, 0 };
	uint64_t n, h;

	cmdline_u64(args, "mix", &m.n);
	n = m.n;
	run_user(user_mix, &m);
	h = m.h;
	gprintf("ready: mix=%llu gives %llx\n", (unsigned long long)n,
		(unsigned long long)h);
	while (*e && strncmp(e, "expect=", 7))
		e++;
	check(*e && hex(e + 7) == h, "mix=%llu gives %llx, expected %s",
	      (unsigned long long)n, (unsigned long long)h, *e ? e + 7 : "?");
}

int payload_main(const struct hvm_start_info *si)
{
	const char *args;
	uint32_t gen;
	uint64_t want;

	pattern(true);
	args = ready_args(start_info_cmdline(si), &gen);
	gprintf("ready: generation %u, args '%s'\n", gen, args);
	check(pattern(false), "set-up pattern lost");
	if (cmdline_u64(args, "expect-ram", &want)) {
		uint64_t ram = ram_in_map(si);

		check(ram >= (want - 1) * MIB && ram <= want * MIB,
		      "expect-ram=%llu, the map holds %llu KiB",
		      (unsigned long long)want,
		      (unsigned long long)(ram / 1024));
	}
	if (cmdline_has(args, "mix"))
		run_mix(args);
	check(!cmdline_has(args, "fail"), "failing on purpose");
	gprintf("ready: %u failures\n", check_failures());
	return check_failures() ? 1 : 0;
}
