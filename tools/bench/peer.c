// SPDX-License-Identifier: MIT
/*
 * `minivmm bench --peer qemu`: the same payload under QEMU's q35 machine
 * with KVM, where SeaBIOS assigns BARs, sets MTRRs and builds ACPI, and
 * ECAM and CF8 are both trapped.  With the Xen platform device when this
 * QEMU can emulate Xen on KVM, else without (the BAR1 cases then say so).
 */
#include "tools/bench/bench.h"
#include "tools/bench/counters.h"
#include "tools/bench/exec.h"
#include "tools/bench/net.h"
#include "tools/bench/plan.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define QEMU		"qemu-system-x86_64"
#define QEMU_TIMEOUT_S	900.0
#define APT_TIMEOUT_S	1800.0
#define LIST_MAX	2048

static bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	for (const char *p = path ? path : "/usr/bin:/bin"; p && *p;) {
		const char *end = strchr(p, ':');
		size_t l = end ? (size_t)(end - p) : strlen(p);

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)l, p, prog);
		if (access(buf, X_OK) == 0)
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

static bool apt(char *const argv[])
{
	struct bench_child c;
	bool ok = bench_exec(argv, APT_TIMEOUT_S, &c) == 0 && c.status == 0;

	bench_child_free(&c);
	return ok;
}

/* From Debian, as root only; why says what failed. */
static bool install_qemu(char *why, size_t len)
{
	char *install[] = { "apt-get", "install", "-y", "-q",
			    "qemu-system-x86", NULL };
	char *update[] = { "apt-get", "update", "-q", NULL };

	if (geteuid() != 0) {
		snprintf(why, len, QEMU " is not installed (as root, minivmm "
			 "bench would apt-get install qemu-system-x86)");
		return false;
	}
	fprintf(stderr, "\nminivmm: bench --peer qemu: installing "
		"qemu-system-x86 with apt-get (this can take minutes)\n");
	setenv("DEBIAN_FRONTEND", "noninteractive", 1);
	if (apt(install) || (apt(update) && apt(install))) {
		if (in_path(QEMU))
			return true;
	}
	snprintf(why, len, QEMU " is not installed and apt-get install "
		 "qemu-system-x86 failed");
	return false;
}

/* NAME:RING words of the selected cases but the blk ones, which run
 * paired with minivmm's (bench_peer_qemu's only). */
static void case_list(const char *sel, char *buf, size_t len)
{
	size_t pos = 0;

	buf[0] = 0;
	for (size_t i = 0; i < bench_ncases && pos < len; i++) {
		const struct bench_case *k = &bench_cases[i];

		if (bench_case_selected(sel, k) && !bench_is_blk(k->name) &&
		    !bench_is_net(k->name))
			pos += (size_t)snprintf(buf + pos, len - pos, "%s%s:%d",
						pos ? "," : "", k->name,
						k->ring);
	}
}

/* devs: the case names whose devices QEMU gets (cases, or the cases of
 * the rows an empty "none" boot is the baseline of). */
static int run_qemu(const struct bench_opts *o, const struct bench_host *h,
		    const char *payload, const char *disk, const char *cases,
		    const char *devs, bool xen, const char *msr,
		    struct bench_child *c)
{
	char append[LIST_MAX + 128], drive[PATH_MAX + 64];
	char *argv[44];
	int n = 0;

	snprintf(append, sizeof(append), "cases=%s repeat=%u target-ms=%u "
		 "msr=%s", cases, o->repeat, o->target_ms, msr);
	argv[n++] = QEMU;
	argv[n++] = "-accel";
	argv[n++] = xen ? "kvm,xen-version=0x4000a,kernel-irqchip=split" :
			  "kvm";
	argv[n++] = "-M";
	argv[n++] = "q35";
	/* The host CPU, as the host's quirks have it (PVM hosts: without
	 * IA32_ARCH_CAPABILITIES, vmm/pvm/quirks.c). */
	argv[n++] = "-cpu";
	argv[n++] = (char *)h->qemu_cpu;
	argv[n++] = "-m";
	argv[n++] = "256";
	argv[n++] = "-display";
	argv[n++] = "none";
	argv[n++] = "-nodefaults";
	argv[n++] = "-serial";
	argv[n++] = "stdio";
	argv[n++] = "-monitor";
	argv[n++] = "none";
	argv[n++] = "-no-reboot";
	argv[n++] = "-kernel";
	argv[n++] = (char *)payload;
	argv[n++] = "-append";
	argv[n++] = append;
	/* One port only: 0xf5 is the payload's progress port. */
	argv[n++] = "-device";
	argv[n++] = "isa-debug-exit,iobase=0xf4,iosize=1";
	if (xen) {
		argv[n++] = "-device";
		argv[n++] = "xen-platform";
	}
	/* QEMU's defaults (writeback cache, thread-pool I/O, ioeventfd, no
	 * iothread); modern-only, like minivmm's function. */
	if (disk && disk[0] && strstr(devs, "blk_")) {
		snprintf(drive, sizeof(drive), "file=%s,if=none,id=d0,"
			 "format=raw", disk);
		argv[n++] = "-drive";
		argv[n++] = drive;
		argv[n++] = "-device";
		argv[n++] = "virtio-blk-pci,drive=d0,disable-legacy=on";
	}
	/* The bench's tap, QEMU's user-space backend (no vhost) and its
	 * default offloads; the MAC the host's neighbour entry names. */
	if (strstr(devs, "net_")) {
		argv[n++] = "-netdev";
		argv[n++] = "tap,id=n0,ifname=" BENCH_NET_TAP ",script=no,"
			    "downscript=no";
		argv[n++] = "-device";
		argv[n++] = "virtio-net-pci,netdev=n0,disable-legacy=on,"
			    "mac=52:54:00:12:34:56";
	}
	argv[n] = NULL;
	if (bench_exec(argv, QEMU_TIMEOUT_S, c) < 0)
		return -1;
	/* isa-debug-exit: status (code << 1) | 1; the payload returns 0. */
	return c->status == 1 && c->out && strstr(c->out, "BENCHDONE") ? 0 : -1;
}

bool bench_qemu_ready(char *why, size_t len)
{
	return in_path(QEMU) || install_qemu(why, len);
}

void bench_qemu_version(char *buf, size_t len)
{
	char *argv[] = { QEMU, "--version", NULL };
	struct bench_child c;
	const char *v;

	snprintf(buf, len, "unknown");
	if (bench_exec(argv, 30, &c) == 0 && c.out &&
	    (v = strstr(c.out, "version ")))
		snprintf(buf, len, "%.*s", (int)strcspn(v + 8, " \n"), v + 8);
	bench_child_free(&c);
}

static void add_rows(const char *out, const char *config,
		     struct bench_results *r)
{
	struct bench_sample s;
	char version[32], more[48];

	bench_qemu_version(version, sizeof(version));
	snprintf(more, sizeof(more), "qemu=%s", version);

	for (const char *l = out; l && *l;
	     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const struct bench_case *k;
		struct bench_result *x;

		if (bench_parse_line(l, &s) < 0)
			continue;
		k = bench_case_find(s.name, s.ring);
		x = bench_results_add(r);
		if (!x)
			return;
		snprintf(x->name, sizeof(x->name), "%s", s.name);
		x->ring = s.ring;
		snprintf(x->config, sizeof(x->config), "%s", config);
		x->vmm = "qemu";
		x->group = k ? k->group : "exits";
		if (s.skipped) {
			x->status = BENCH_SKIPPED;
			snprintf(x->note, sizeof(x->note), "%.150s", s.extra);
			continue;
		}
		bench_result_from_sample(x, &s);
		if (strlen(x->extra) + strlen(more) + 2 < sizeof(x->extra))
			strcat(strcat(x->extra, x->extra[0] ? " " : ""), more);
	}
}

static void cannot_run(struct bench_results *r, const char *why)
{
	struct bench_result *x = bench_results_add(r);

	if (!x)
		return;
	snprintf(x->name, sizeof(x->name), "qemu");
	snprintf(x->config, sizeof(x->config), "q35");
	x->vmm = "qemu";
	x->status = BENCH_SKIPPED;
	snprintf(x->note, sizeof(x->note), "%s", why);
}

/* A paired (blk or net) row just added from run c: its syscalls and
 * switches per op, less an empty boot's with the same devices (one per
 * kind, made the first time). */
static void per_op(const struct bench_opts *o, const struct bench_host *h,
		   const char *payload, const char *disk, const char *only,
		   bool xen, const struct bench_child *c,
		   struct bench_results *r, size_t from)
{
	static long long base[2][2] = { { -2, -2 }, { -2, -2 } };
	struct bench_child e;
	long long *b;

	if (!only || from >= r->n ||
	    (!bench_is_blk(only) && !bench_is_net(only)))
		return;
	b = base[bench_is_net(only)];
	if (b[0] == -2) {
		b[0] = b[1] = -1;
		if (run_qemu(o, h, payload, disk, "none", only, xen,
			     BENCH_MSR_KERNEL, &e) == 0) {
			b[0] = e.syscalls;
			b[1] = e.switches;
		}
		bench_child_free(&e);
	}
	for (size_t i = from; i < r->n; i++)
		if (r->v[i].status == BENCH_OK)
			bench_counters_per_op(&r->v[i], c->syscalls,
					      c->switches, b[0], b[1]);
}

/* The MSR cases again on THERM_CONTROL, which QEMU leaves to KVM (an
 * unknown MSR: #GP), beside minivmm's msr=deny rows; the first run read
 * KERNEL_GS_BASE, KVM's own, beside msr=allow. */
static void denied_msr(const struct bench_opts *o, const struct bench_host *h,
		       const char *payload, const char *cases, bool xen,
		       struct bench_results *r)
{
	char msr[LIST_MAX], config[BENCH_CONFIG_MAX];
	size_t pos = 0;
	struct bench_child c;

	msr[0] = 0;
	for (const char *p = cases; p && *p;) {
		size_t l = strcspn(p, ",");

		if (!strncmp(p, "msr_", 4) && pos + l + 2 < sizeof(msr))
			pos += (size_t)snprintf(msr + pos, sizeof(msr) - pos,
						"%s%.*s", pos ? "," : "",
						(int)l, p);
		p = p[l] ? p + l + 1 : NULL;
	}
	if (!msr[0])
		return;
	snprintf(config, sizeof(config), "%s msr=" BENCH_MSR_USER,
		 xen ? "q35+xen-platform" : "q35");
	if (run_qemu(o, h, payload, NULL, msr, msr, xen, BENCH_MSR_USER,
		     &c) == 0)
		add_rows(c.out, config, r);
	bench_child_free(&c);
}

void bench_peer_qemu(const struct bench_opts *o, const struct bench_host *h,
		     const char *payload, const char *disk, const char *only,
		     struct bench_results *r)
{
	char cases[LIST_MAX], why[BENCH_NOTE_MAX], last[100];
	static bool no_xen;	/* this QEMU cannot emulate Xen: stop trying */
	struct bench_child c;
	size_t from = r->n;

	if (only)
		snprintf(cases, sizeof(cases), "%s", only);
	else
		case_list(o->cases, cases, sizeof(cases));
	if (!cases[0])
		return;
	if (!bench_qemu_ready(why, sizeof(why))) {
		cannot_run(r, why);
		return;
	}
	if (!no_xen &&
	    run_qemu(o, h, payload, disk, cases, cases, true,
		     BENCH_MSR_KERNEL, &c) == 0) {
		add_rows(c.out, "q35+xen-platform", r);
		per_op(o, h, payload, disk, only, true, &c, r, from);
		bench_child_free(&c);
		denied_msr(o, h, payload, cases, true, r);
		return;
	}
	if (!no_xen)
		bench_child_free(&c);
	no_xen = true;
	if (run_qemu(o, h, payload, disk, cases, cases, false,
		     BENCH_MSR_KERNEL, &c) == 0) {
		add_rows(c.out, "q35", r);
		per_op(o, h, payload, disk, only, false, &c, r, from);
		denied_msr(o, h, payload, cases, false, r);
	} else {
		snprintf(why, sizeof(why), QEMU " could not run the payload "
			 "here (status %d%s): %s", c.status,
			 c.timed_out ? ", timed out" : "",
			 bench_last_line(c.err, last, sizeof(last)));
		cannot_run(r, why);
	}
	bench_child_free(&c);
}
