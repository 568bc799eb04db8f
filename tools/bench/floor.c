// SPDX-License-Identifier: MIT
/* `minivmm bench` and kvm-floor: the floor's own rows, the floor case
 * timed right before each minivmm row, and every row's ratio to its
 * floor. */
#include "tools/bench/floor.h"
#include "tools/bench/plan.h"
#include "tools/bench/run.h"

#include "vmm/layout.h"

#include <stdlib.h>
#include <string.h>

/* --- start-up -------------------------------------------------------------- */

double bench_startup_floor(struct bench_run *b)
{
	char mib[16];
	char *argv[] = { b->floor, "--startup", mib, NULL };
	struct bench_child c;
	char v[32];
	double ns = -1;

	if (b->o.no_floor)
		return -1;
	snprintf(mib, sizeof(mib), "%llu",
		 (unsigned long long)(LAYOUT_RAM_DEFAULT >> 20));
	if (bench_exec(argv, BENCH_VMM_TIMEOUT_S, &c) == 0 && c.status == 0 &&
	    bench_word(c.out, "first_insn_ns", v, sizeof(v)))
		ns = strtod(v, NULL);
	bench_child_free(&c);
	return ns;
}

void bench_startup_floor_row(struct bench_run *b, uint64_t *ns, size_t n)
{
	struct bench_result *f, *m = NULL;

	if (b->o.no_floor)
		return;
	f = bench_new_row(b, "boot_first_insn", 0, "bare KVM", "kvm-floor",
			  "boot");
	if (bench_row_samples(b, f, ns, n, "kvm-floor --startup failed") < 0)
		return;
	snprintf(f->extra, sizeof(f->extra), "process start to first guest "
		 "instruction: same RAM, RAM and ROM slots, irqchip, CPUID");
	for (size_t i = 0; i < b->res.n; i++)
		if (!strcmp(b->res.v[i].name, "boot_first_insn") &&
		    !strcmp(b->res.v[i].vmm, "minivmm"))
			m = &b->res.v[i];
	if (!m || m->status != BENCH_OK || f->median_ns <= 0)
		return;
	snprintf(m->floor_case, sizeof(m->floor_case), "boot_first_insn:0");
	m->floor_ns = f->median_ns;
	m->ratio_to_floor = m->median_ns / f->median_ns;
}

/* --- kvm-floor ------------------------------------------------------------ */

void bench_run_floor(struct bench_run *b)
{
	char rep[16], ms[16];
	char *argv[] = { b->floor, "--repeat", rep, "--target-ms", ms, NULL };
	struct bench_child c;
	struct bench_sample s;
	char v[32];
	int ok;

	snprintf(rep, sizeof(rep), "%u", b->o.repeat);
	snprintf(ms, sizeof(ms), "%u", b->o.target_ms);
	bench_progress(b, "kvm-floor", "");
	ok = bench_exec(argv, BENCH_VMM_TIMEOUT_S, &c) == 0 && c.status == 0;
	for (const char *l = c.out; l && *l; l = strchr(l, '\n') ?
	     strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, "BENCHINFO ", 10)) {
			snprintf(b->host.floor_info, sizeof(b->host.floor_info),
				 "%.*s", (int)strcspn(l + 10, "\n"), l + 10);
			if (bench_word(l, "tsc_khz", v, sizeof(v)))
				b->floor_khz = (uint32_t)strtoul(v, NULL, 10);
		}
		if (bench_parse_line(l, &s) != 0 || b->nfloor == BENCH_MAX_FLOOR)
			continue;
		b->floor_s[b->nfloor++] = s;
	}
	for (size_t i = 0; i < b->nfloor; i++) {
		struct bench_sample *f = &b->floor_s[i];
		struct bench_result *x = bench_new_row(b, f->name, f->ring,
						 "bare KVM", "kvm-floor",
						 bench_floor_group(f->name));

		bench_result_from_sample(x, f);
		if (bench_word(f->extra, "exits", v, sizeof(v)) && f->ops_total)
			x->exits_per_op = strtod(v, NULL) / f->ops_total;
	}
	if (!ok || !b->nfloor) {
		bench_fail_row(bench_new_row(b, "kvm-floor", 0, "bare KVM", "kvm-floor",
				 "exits"), &c, "kvm-floor");
		b->failed = true;
	}
	bench_child_free(&c);
}

/* The median of one floor case, run now: paired with the row about to be
 * timed, so that both see the same load on the host.  -1 on failure. */
double bench_paired_floor(struct bench_run *b, const char *name_ring)
{
	char rep[16], ms[16], cases[BENCH_NAME_MAX];
	char *argv[] = { b->floor, "--repeat", rep, "--target-ms", ms,
			 "--cases", cases, NULL };
	struct bench_child c;
	struct bench_sample s;
	double ns = -1;

	if (b->o.no_floor)
		return -1;
	snprintf(rep, sizeof(rep), "%u", b->o.repeat);
	snprintf(ms, sizeof(ms), "%u", b->o.target_ms);
	snprintf(cases, sizeof(cases), "%s", name_ring);
	if (bench_exec(argv, BENCH_VMM_TIMEOUT_S, &c) == 0 && c.status == 0)
		for (const char *l = c.out; l && *l && ns < 0;
		     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
			if (bench_parse_line(l, &s) == 0)
				ns = s.median_ns;
	bench_child_free(&c);
	return ns;
}

static const struct bench_sample *floor_sample(const struct bench_run *b,
					       const char *name_ring)
{
	for (size_t i = 0; i < b->nfloor; i++) {
		const struct bench_sample *s = &b->floor_s[i];
		size_t l = strlen(s->name);

		if (!strncmp(name_ring, s->name, l) && name_ring[l] == ':' &&
		    name_ring[l + 1] == '0' + s->ring && !name_ring[l + 2])
			return s;
	}
	return NULL;
}

static void ns_from_cycles(struct bench_result *x, uint32_t khz)
{
	size_t l = strlen(x->extra);
	char v[32];

	x->median_ns = x->median_cycles * 1e6 / khz;
	x->p10_ns = x->p10_cycles * 1e6 / khz;
	x->p90_ns = x->p90_cycles * 1e6 / khz;
	if (x->median_ns > 0 && strstr(x->extra, "bytes="))
		x->mbps = 64e3 / x->median_ns;	/* 64 bytes per op */
	if (x->median_ns > 0 && bench_word(x->extra, "size", v, sizeof(v)))
		x->mbps = strtod(v, NULL) * 1e3 / x->median_ns;	/* blk */
	snprintf(x->extra + l, sizeof(x->extra) - l, "%sns-from=host-tsc-rate",
		 l ? " " : "");
}

/* blk rows: the doorbell writes the guest made per request (each one
 * exit, handled in the kernel with an ioeventfd). */
static void kicks_per_op(struct bench_result *x)
{
	size_t l = strlen(x->extra);
	char v[32];

	if (!x->ops_total || !bench_word(x->extra, "kicks", v, sizeof(v)))
		return;
	snprintf(x->extra + l, sizeof(x->extra) - l, " kicks_per_op=%.3f",
		 strtod(v, NULL) / (double)x->ops_total);
}

/* The host's TSC rate: kvm-floor's, or with --no-floor the one the
 * payload reported under minivmm (both come from KVM_GET_TSC_KHZ). */
static uint32_t host_khz(const struct bench_run *b)
{
	char v[32];

	if (b->floor_khz)
		return b->floor_khz;
	if (bench_word(b->host.payload_info, "tsc_khz", v, sizeof(v)))
		return (uint32_t)strtoul(v, NULL, 10);
	return 0;
}

/* ns from cycles where the guest knew no TSC rate (QEMU's payload runs);
 * then each row's floor and its ratio. */
void bench_apply_floor(struct bench_run *b)
{
	uint32_t khz = host_khz(b);

	for (size_t i = 0; i < b->res.n; i++) {
		struct bench_result *x = &b->res.v[i];
		bool trapped = strstr(x->config, "trap") ||
			       strcmp(x->vmm, "qemu") == 0;
		const struct bench_sample *f;

		if (x->status != BENCH_OK || !strcmp(x->vmm, "kvm-floor") ||
		    !strcmp(x->vmm, "host"))
			continue;
		kicks_per_op(x);
		if (x->median_ns < 0 && x->median_cycles >= 0 && khz)
			ns_from_cycles(x, khz);
		/* QEMU leaves the MSR the payload uses to KVM: its own
		 * (allow), or THERM_CONTROL, which it refuses (deny). */
		if (!bench_floor_for(x->name, x->ring, strcmp(x->vmm, "qemu") ?
				     x->config : strstr(x->config, "msr=") ?
				     "msr=deny" : "msr=allow", trapped,
				     x->floor_case, sizeof(x->floor_case)))
			continue;
		f = floor_sample(b, x->floor_case);
		if (x->floor_ns > 0 && x->median_ns >= 0)
			x->ratio_to_floor = x->median_ns / x->floor_ns;
		else if (f && f->median_ns > 0 && x->median_ns >= 0)
			x->ratio_to_floor = x->median_ns / f->median_ns;
	}
}
