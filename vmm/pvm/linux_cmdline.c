// SPDX-License-Identifier: MIT
/* The words a Linux command line gets where ring 0 is emulated
 * (linux_cmdline.h). */
#include "vmm/pvm/linux_cmdline.h"

#include <stdio.h>
#include <string.h>

/* True if word appears in s as a whole blank-separated word. */
static bool has_word(const char *s, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = s; (p = strstr(p, word)); p += len) {
		bool start = p == s || p[-1] == ' ' || p[-1] == '\t';
		bool end = !p[len] || p[len] == ' ' || p[len] == '\t';

		if (start && end)
			return true;
	}
	return false;
}

/* True if param is "key=value" and s has a word "key=...". */
static bool has_key(const char *s, const char *param)
{
	const char *eq = strchr(param, '=');
	size_t klen = eq ? (size_t)(eq - param) + 1 : 0;

	if (!klen)
		return false;
	for (const char *p = s; *p; p++)
		if ((p == s || p[-1] == ' ' || p[-1] == '\t') &&
		    !strncmp(p, param, klen))
			return true;
	return false;
}

static const struct {
	const char *param;
	const char *why;
	bool snapshot_only;	/* only for a boot that may be snapshotted */
} host_params[] = {
	{ "noxsave", "this host's KVM cannot emulate XSAVE/XRSTOR in guest "
		     "ring 0, and its ring 0 sees XSAVE whatever CPUID says" },
	{ "clearcpuid=smap,popcnt,ssse3,erms,fsrm", "SMAP, POPCNT and SSSE3 "
		    "cannot be hidden in CPUID here: clac, stac and popcnt "
		    "would each exit to minivmm, and the emulator has no SIMD "
		    "for Linux's SSSE3 BLAKE2s; the emulator runs rep movs/stos "
		    "one element per step, so without ERMS/FSRM Linux's memcpy, "
		    "memset, clear_page and user copies move 8 bytes a step, "
		    "not 1 (clearcpuid taints the kernel: 'S')" },
	{ "noreplace-smp", "with one CPU Linux rewrites each of its LOCK "
		    "prefixes (thousands) through a temporary page table and a "
		    "TLB flush, which this host's shadow paging makes costly; "
		    "the prefixes cost nothing here (no effect with -c 2 or "
		    "more)" },
	{ "lapic=notscdeadline", "on a one-shot-only (TSC-deadline) timer "
		    "Linux's boot-time periodic tick catches up on missed "
		    "ticks inside the timer interrupt, and in emulated ring 0 "
		    "one tick's work can outlast the 4 ms it catches up "
		    "(vCPUs stuck in the interrupt for good); the LAPIC's "
		    "periodic mode drops missed ticks instead" },
	{ "clocksource=kvm-clock", "this host's KVM cannot offset the "
		    "guest's TSC (guest code reads the host's), so in a "
		    "restored snapshot the TSC has moved on by the time the "
		    "file sat on disk, and Linux's tsc clocksource would "
		    "catch up on all of it (work that grows with that time) "
		    "before the guest goes on; kvmclock is restored by value",
	  true },
	{ "no-kvmapf", "setting a restored guest's async-page-fault MSR "
		    "makes KVM send it a wake-up for every task that could "
		    "be waiting on a page (Linux walks all 256 wait queues, "
		    "some 5000 emulated instructions before anything else "
		    "runs); without async page faults nothing waits",
	  true },
};

#define N_PARAMS	(sizeof(host_params) / sizeof(host_params[0]))

/* The parameters this host needs that append lacks: calls fn for each. */
static void for_each_missing(const char *append, bool snapshot,
			     void (*fn)(void *ctx, unsigned int i), void *ctx)
{
	for (unsigned int i = 0; i < N_PARAMS; i++)
		if ((snapshot || !host_params[i].snapshot_only) &&
		    !has_word(append, host_params[i].param) &&
		    !has_key(append, host_params[i].param))
			fn(ctx, i);
}

struct cmdline_buf {
	char *buf;
	size_t size, len;
	bool full;
};

static void add_param(void *ctx, unsigned int i)
{
	struct cmdline_buf *b = ctx;
	size_t plen = strlen(host_params[i].param);

	if (b->len + plen + 1 >= b->size) {
		b->full = true;
		return;
	}
	memcpy(b->buf + b->len, host_params[i].param, plen);
	b->buf[b->len + plen] = ' ';
	b->len += plen + 1;
}

/* The host's parameters go first: anything after a "--" in append is
 * for init, not the kernel. */
int pvm_linux_cmdline(const char *append, bool snapshot, char *buf,
		      size_t size)
{
	struct cmdline_buf b = { buf, size, 0, false };
	size_t alen;

	if (!append)
		append = "";
	alen = strlen(append);
	for_each_missing(append, snapshot, add_param, &b);
	if (b.full || b.len + alen >= size)
		return -1;
	memcpy(buf + b.len, append, alen + 1);
	b.len += alen;
	while (b.len && buf[b.len - 1] == ' ')	/* append was empty */
		buf[--b.len] = 0;
	return 0;
}

static void announce(void *ctx, unsigned int i)
{
	unsigned int *n = ctx;

	(*n)++;
	fprintf(stderr, "minivmm: adding '%s' to the kernel command line: "
		"%s\n", host_params[i].param, host_params[i].why);
}

static void warn_kept(const char *append, bool snapshot)
{
	for (unsigned int i = 0; i < N_PARAMS; i++) {
		const char *p = host_params[i].param;

		if ((snapshot || !host_params[i].snapshot_only) &&
		    !has_word(append, p) && has_key(append, p))
			fprintf(stderr, "minivmm: warning: keeping your "
				"%.*s...; this host needs '%s': %s\n",
				(int)(strchr(p, '=') - p + 1), p, p,
				host_params[i].why);
	}
}

unsigned int pvm_linux_cmdline_notes(const char *append, bool snapshot)
{
	unsigned int n = 0;

	if (!append)
		append = "";
	for_each_missing(append, snapshot, announce, &n);
	warn_kept(append, snapshot);
	return n;
}
