// SPDX-License-Identifier: MIT
/* The benchmark table on the terminal, and the issues' target figures as
 * measured (text or markdown).  Pure: writes to a FILE only. */
#include "tools/bench/bench.h"
#include "tools/bench/plan.h"

#include <stdlib.h>
#include <string.h>

#define FLOOR_TARGET	1.2
#define ECAM_RAM_TARGET	2.0
#define CF8_ECAM_TARGET	1000.0
/* A completed system call against one ring-3 exit (issue 12). */
#define SYSCALL_TARGET	1.5
#define LINUX_INIT_TARGET_S	30.0	/* issue 13, this host, 1 vCPU */
#define LINUX_VERDICT_TARGET_S	60.0
/* Process start to first guest instruction against kvm-floor's (issue 31) */
#define STARTUP_TARGET	1.5

/* QEMU's row beside minivmm's exit row x (same case and ring), or NULL.
 * MSR rows pair by what the MSR does: QEMU's plain run reads KVM's own
 * KERNEL_GS_BASE (minivmm's msr=allow), its "msr=0x19a" run the
 * THERM_CONTROL KVM refuses (minivmm's msr=deny); the other policies
 * have no QEMU counterpart. */
static const struct bench_result *peer_of(const struct bench_results *r,
					  const struct bench_result *x)
{
	bool msr = !strcmp(x->group, "msr"), denied;

	if (x->status != BENCH_OK || x->median_ns <= 0 ||
	    strcmp(x->vmm, "minivmm") || (strcmp(x->group, "pci") &&
	    strcmp(x->group, "exits") && strcmp(x->group, "fs") && !msr))
		return NULL;
	if (msr && strcmp(x->config, "msr=allow") &&
	    strcmp(x->config, "msr=deny"))
		return NULL;
	denied = msr && !strcmp(x->config, "msr=deny");
	for (size_t i = 0; i < r->n; i++) {
		const struct bench_result *q = &r->v[i];

		if (q->status == BENCH_OK && q->median_ns > 0 &&
		    !strcmp(q->vmm, "qemu") && !strcmp(q->name, x->name) &&
		    q->ring == x->ring &&
		    (strstr(q->config, "msr=") != NULL) == denied)
			return q;
	}
	return NULL;
}

void bench_fmt_ns(char *buf, size_t len, double ns)
{
	if (ns < 0)
		snprintf(buf, len, "-");
	else if (ns < 1e3)
		snprintf(buf, len, "%.3g ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.3g us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3g s", ns / 1e9);
}

static void fmt_ratio(char *buf, size_t len, double r)
{
	if (r < 0)
		snprintf(buf, len, "-");
	else if (r < 100)
		snprintf(buf, len, "%.2f", r);
	else
		snprintf(buf, len, "%.3g", r);
}

static void fmt_exits(char *buf, size_t len, double e)
{
	if (e < 0)
		snprintf(buf, len, "-");
	else if (e == 0 || e >= 0.01)
		snprintf(buf, len, "%.2f", e);
	else
		snprintf(buf, len, "%.1e", e);
}

static void row_text(FILE *out, const struct bench_results *r,
		     const struct bench_result *x)
{
	const struct bench_result *q = peer_of(r, x);
	char med[24], lo[24], hi[24], spread[56], ex[16], rf[16], rb[16];
	char kick[16];

	if (x->status != BENCH_OK) {
		fprintf(out, "%-7s %-18s %d  %-16s %-9s %s: %s\n", x->group,
			x->name, x->ring, x->config, x->vmm,
			x->status == BENCH_SKIPPED ? "skipped" : "FAILED",
			x->note);
		return;
	}
	bench_fmt_ns(med, sizeof(med), x->median_ns);
	bench_fmt_ns(lo, sizeof(lo), x->p10_ns);
	bench_fmt_ns(hi, sizeof(hi), x->p90_ns);
	snprintf(spread, sizeof(spread), "%s..%s", lo, hi);
	fmt_exits(ex, sizeof(ex), x->exits_per_op);
	fmt_ratio(rf, sizeof(rf), x->ratio_to_floor);
	fmt_ratio(rb, sizeof(rb), x->ratio_to_best);
	fprintf(out, "%-7s %-18s %d  %-16s %-9s %10s  %-21s %8s %7s %6s",
		x->group, x->name, x->ring, x->config, x->vmm, med, spread,
		ex, rf, rb);
	if (x->mbps >= 0)
		fprintf(out, "  %.0f MB/s", x->mbps);
	if (bench_word(x->extra, "kicks_per_op", kick, sizeof(kick)))
		fprintf(out, "  %s kicks/op", kick);
	if (bench_word(x->extra, "syscalls_per_op", kick, sizeof(kick)))
		fprintf(out, "  %s syscalls/op", kick);
	if (bench_word(x->extra, "switches_per_op", kick, sizeof(kick)))
		fprintf(out, "  %s switches/op", kick);
	if (!strcmp(x->group, "snapshot") && x->note[0])
		fprintf(out, "  %s", x->note);
	if (q)		/* > 1: QEMU takes longer */
		fprintf(out, "  x qemu %.2f", q->median_ns / x->median_ns);
	fputc('\n', out);
}

static bool is_floor(const struct bench_result *x)
{
	return !strcmp(x->vmm, "kvm-floor") || !strcmp(x->vmm, "host");
}

void bench_table_write(FILE *out, const struct bench_results *r)
{
	fprintf(out, "%-7s %-18s %-2s %-16s %-9s %10s  %-21s %8s %7s %6s\n",
		"group", "case", "r", "config", "vmm", "median", "p10..p90",
		"exits/op", "x floor", "x best");
	for (int g = 0; bench_groups[g]; g++) {
		/* Within a group: the VMM rows, then the floor's. */
		for (int floor = 0; floor < 2; floor++)
			for (size_t i = 0; i < r->n; i++) {
				const struct bench_result *x = &r->v[i];

				if (!strcmp(x->group, bench_groups[g]) &&
				    is_floor(x) == floor)
					row_text(out, r, x);
			}
	}
}

static const struct bench_result *find(const struct bench_results *r,
				       const char *vmm, const char *name,
				       int ring, const char *config)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct bench_result *x = &r->v[i];

		if (x->status == BENCH_OK && x->median_ns > 0 &&
		    !strcmp(x->vmm, vmm) && !strcmp(x->name, name) &&
		    x->ring == ring && (!config || !strcmp(x->config, config)))
			return x;
	}
	return NULL;
}

static void target_ratio(FILE *out, bool md, const char *what,
			 const struct bench_result *a,
			 const struct bench_result *b, double target, bool le)
{
	double ratio;
	bool met;

	if (!a || !b) {
		fprintf(out, "%s%s: not measured in this run\n", md ? "- " : "  ",
			what);
		return;
	}
	ratio = a->median_ns / b->median_ns;
	met = le ? ratio <= target : ratio >= target;
	fprintf(out, "%s%s: %.3g (target %s %.4g): %s\n", md ? "- " : "  ",
		what, ratio, le ? "<=" : ">=", target, met ? "met" : "MISSED");
}

/* Rows whose floor is an exit (not a plain memory read) made by the same
 * instructions (system calls have their own target). */
static bool is_exit_path(const struct bench_result *x)
{
	return x->ratio_to_floor >= 0 && strncmp(x->floor_case, "ram_", 4) &&
	       strncmp(x->floor_case, "romem_read", 10) &&
	       strcmp(x->group, "syscall") && strcmp(x->group, "boot");
}

/* System calls the VMM completes: one exit each, at most SYSCALL_TARGET
 * times one ring-3 exit. */
static void syscall_targets(FILE *out, const struct bench_results *r,
			    bool md)
{
	static const char *const names[] = { "syscall", "int80" };

	for (int i = 0; i < 2; i++) {
		const struct bench_result *x = find(r, "minivmm", names[i], 3,
						    NULL);
		char what[96], ref[32], p10[32];

		snprintf(what, sizeof(what), "%s round trip (ring 3) / one "
			 "ring-3 MMIO exit", names[i]);
		if (!x || x->ratio_to_floor < 0) {
			fprintf(out, "%s%s: not measured in this run\n",
				md ? "- " : "  ", what);
			continue;
		}
		fprintf(out, "%s%s: %.3g (target <= %.2g): %s; exits per "
			"call %.2f (target 1)\n", md ? "- " : "  ", what,
			x->ratio_to_floor, SYSCALL_TARGET,
			x->ratio_to_floor <= SYSCALL_TARGET ? "met" : "MISSED",
			x->exits_per_op);
		if (bench_word(x->extra, "ref_mmio3", ref, sizeof(ref)) &&
		    bench_word(x->extra, "ref_mmio3_p10", p10, sizeof(p10)))
			fprintf(out, "    side by side in the guest (each "
				"repeat, then as many ring-3 MMIO reads): "
				"median of the ratios %s, ratio of the p10s "
				"%s\n", ref, p10);
	}
}

/* Issue 13's Linux figures (1 vCPU): "Run /init" and the init's verdict
 * within LINUX_*_TARGET_S of minivmm's start. */
static void linux_targets(FILE *out, const struct bench_results *r, bool md)
{
	static const struct { const char *name, *what; double target_s; } t[] = {
		{ "linux_run_init", "Linux \"Run /init\" (1 vCPU)",
		  LINUX_INIT_TARGET_S },
		{ "linux_verdict", "Linux init's verdict (1 vCPU)",
		  LINUX_VERDICT_TARGET_S },
	};

	for (int i = 0; i < 2; i++) {
		const struct bench_result *x = find(r, "minivmm", t[i].name, 0,
						    NULL);

		if (!x) {
			fprintf(out, "%s%s: not measured in this run "
				"(--linux-kernel)\n", md ? "- " : "  ",
				t[i].what);
			continue;
		}
		fprintf(out, "%s%s: %.1f s (target <= %.0f s): %s\n",
			md ? "- " : "  ", t[i].what, x->median_ns / 1e9,
			t[i].target_s, x->median_ns / 1e9 <= t[i].target_s ?
			"met" : "MISSED");
	}
}

static void floor_targets(FILE *out, const struct bench_results *r, bool md)
{
	unsigned int n = 0, missed = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct bench_result *x = &r->v[i];

		if (strcmp(x->vmm, "minivmm") || !is_exit_path(x) ||
		    bench_is_blk(x->name))
			continue;
		n++;
		if (x->ratio_to_floor <= FLOOR_TARGET)
			continue;
		if (!missed++)
			fprintf(out, "%sexit paths over %.1fx the floor:\n",
				md ? "- " : "  ", FLOOR_TARGET);
		fprintf(out, "%s%s ring %d [%s] vs %s: %.2fx (%.0f%% over "
			"the target)\n", md ? "    - " : "    ", x->name,
			x->ring, x->config, x->floor_case, x->ratio_to_floor,
			(x->ratio_to_floor / FLOOR_TARGET - 1) * 100);
	}
	fprintf(out, "%sminivmm exit paths within %.1fx of the floor: %u of "
		"%u\n", md ? "- " : "  ", FLOOR_TARGET, n - missed, n);
}

static double kicks(const struct bench_result *x)
{
	char v[32];

	return bench_word(x->extra, "kicks_per_op", v, sizeof(v)) ?
	       strtod(v, NULL) : -1;
}

/* virtio-blk: at or above QEMU on every row, at most one kick (notify
 * exit) per request. */
static void blk_targets(FILE *out, const struct bench_results *r, bool md)
{
	unsigned int n = 0, ahead = 0, kick_ok = 0;
	char a[24], b[24];

	for (size_t i = 0; i < r->n; i++) {
		const struct bench_result *x = &r->v[i], *q;

		if (strcmp(x->vmm, "minivmm") || !bench_is_blk(x->name) ||
		    x->status != BENCH_OK)
			continue;
		q = find(r, "qemu", x->name, x->ring, NULL);
		n++;
		kick_ok += kicks(x) >= 0 && kicks(x) <= 1.0;
		bench_fmt_ns(a, sizeof(a), x->median_ns);
		if (!q) {
			fprintf(out, "%s%s: minivmm %s per request, %.3f kicks "
				"per request; QEMU not measured\n",
				md ? "- " : "  ", x->name, a, kicks(x));
			continue;
		}
		ahead += x->median_ns <= q->median_ns;
		bench_fmt_ns(b, sizeof(b), q->median_ns);
		fprintf(out, "%s%s: minivmm %s, QEMU %s per request (%.2fx "
			"QEMU's speed): %s; %.3f kicks per request\n",
			md ? "- " : "  ", x->name, a, b,
			q->median_ns / x->median_ns, x->median_ns <=
			q->median_ns ? "at or above QEMU" : "BELOW QEMU",
			kicks(x));
	}
	if (n)
		fprintf(out, "%svirtio-blk rows at or above QEMU: %u of %u; "
			"rows with at most one kick per request: %u of %u\n",
			md ? "- " : "  ", ahead, n, kick_ok, n);
}

static void memtype_verdict(FILE *out, const struct bench_results *r,
			    bool md)
{
	const struct bench_result *uc = find(r, "minivmm", "ramuc_read", 3,
					     NULL);
	const struct bench_result *wb = find(r, "minivmm", "ramwb_read", 3,
					     NULL);
	double ratio;

	if (!uc || !wb)
		return;
	ratio = uc->median_ns / wb->median_ns;
	fprintf(out, "%sRAM read through a UC mapping / through WB: %.2fx. ",
		md ? "- " : "  ", ratio);
	if (ratio < 1.5)
		fprintf(out, "UC is as fast as WB: this host does not honour "
			"guest memory types (PAT/MTRR), so the Xen BAR1 "
			"WB-vs-UC effect cannot show here.\n");
	else
		fprintf(out, "The host honours guest memory types.\n");
}

/* Ahead: minivmm's whole p10..p90 spread below QEMU's; behind: above
 * it; otherwise the spreads overlap: parity. */
static const char *verdict(const struct bench_result *m,
			   const struct bench_result *q)
{
	if (m->p90_ns < q->p10_ns)
		return "ahead";
	if (m->p10_ns > q->p90_ns)
		return "behind";
	return "parity";
}

static void peer_verdicts(FILE *out, const struct bench_results *r, bool md)
{
	unsigned int n[3] = { 0 };
	bool head = false;

	for (size_t i = 0; i < r->n; i++) {
		const struct bench_result *x = &r->v[i], *q = peer_of(r, x);
		const char *v;

		/* The fs rows are fs_targets' (they are no exits). */
		if (!q || !strcmp(x->group, "fs"))
			continue;
		if (!head)
			fprintf(out, "%sminivmm against QEMU on each exit row "
				"(QEMU's median / minivmm's; ahead or behind: "
				"the p10..p90 spreads do not overlap):\n",
				md ? "- " : "  ");
		head = true;
		v = verdict(x, q);
		n[v[0] == 'a' ? 0 : v[0] == 'p' ? 1 : 2]++;
		fprintf(out, "%s%s ring %d [%s]: %.2fx, %s\n",
			md ? "    - " : "    ", x->name, x->ring, x->config,
			q->median_ns / x->median_ns, v);
	}
	if (head)
		fprintf(out, "%sagainst QEMU: %u ahead, %u at parity, %u "
			"behind\n", md ? "- " : "  ", n[0], n[1], n[2]);
}

/* Issue 28's target: minivmm at least as fast as QEMU on every fs row
 * (same kernel, initramfs, daemon); and the --cmd true times. */
static void fs_targets(FILE *out, const struct bench_results *r, bool md)
{
	unsigned int n = 0, ahead = 0;
	char a[24], b[24];

	for (size_t i = 0; i < r->n; i++) {
		const struct bench_result *x = &r->v[i], *q;

		if (strcmp(x->vmm, "minivmm") || strcmp(x->group, "fs") ||
		    x->status != BENCH_OK)
			continue;
		bench_fmt_ns(a, sizeof(a), x->median_ns);
		if (strncmp(x->name, "fs_", 3)) {
			fprintf(out, "%s%s: %s (%s)\n", md ? "- " : "  ",
				x->name, a, x->note);
			continue;
		}
		q = peer_of(r, x);
		if (!q)
			continue;
		n++;
		ahead += x->median_ns <= q->median_ns;
		bench_fmt_ns(b, sizeof(b), q->median_ns);
		fprintf(out, "%s%s: minivmm %s, QEMU %s (%.2fx QEMU's speed, "
			"%s): %s\n", md ? "- " : "  ", x->name, a, b,
			q->median_ns / x->median_ns, verdict(x, q),
			x->median_ns <= q->median_ns ? "at or above QEMU" :
			"BELOW QEMU");
	}
	if (n)
		fprintf(out, "%svirtio-fs rows at or above QEMU: %u of %u "
			"(target: all)\n", md ? "- " : "  ", ahead, n);
}

static void startup_target(FILE *out, const struct bench_results *r, bool md)
{
	const struct bench_result *m = find(r, "minivmm", "boot_first_insn", 0,
					    NULL);
	const struct bench_result *f = find(r, "kvm-floor", "boot_first_insn",
					    0, NULL);

	if (!m)
		return;
	target_ratio(out, md, "process start to first guest instruction / "
		     "kvm-floor's (same RAM)", m, f, STARTUP_TARGET, true);
}

void bench_targets_write(FILE *out, const struct bench_results *r, bool md)
{
	const struct bench_result *ecam = find(r, "minivmm", "pci_ecam_read",
					       3, "ecam=ro");
	const struct bench_result *ram = find(r, "minivmm", "ram_read", 3,
					      NULL);
	const struct bench_result *cf8 = find(r, "minivmm", "pci_cf8_read", 0,
					      NULL);

	target_ratio(out, md, "ECAM-ro read / RAM read (ring 3, same loop)",
		     ecam, ram, ECAM_RAM_TARGET, true);
	target_ratio(out, md, "CF8/CFC read / ECAM-ro read", cf8, ecam,
		     CF8_ECAM_TARGET, false);
	floor_targets(out, r, md);
	startup_target(out, r, md);
	peer_verdicts(out, r, md);
	blk_targets(out, r, md);
	syscall_targets(out, r, md);
	linux_targets(out, r, md);
	fs_targets(out, r, md);
	memtype_verdict(out, r, md);
}
