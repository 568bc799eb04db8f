// SPDX-License-Identifier: MIT
/* report.md for `minivmm bench --report DIR`: the host, the target
 * figures, one table (and chart) per group, and how to read them.  Pure:
 * writes to a FILE only. */
#include "tools/bench/bench.h"
#include "tools/bench/plan.h"

#include <string.h>

/* Markdown-safe copy: table cells must not contain '|' or newlines. */
static void cell(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			fputs("\\|", out);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', out);
		else
			fputc(*s, out);
	}
}

static void row_md(FILE *out, const struct bench_result *x)
{
	char med[24], lo[24], hi[24];

	fputs("| ", out);
	cell(out, x->name);
	fprintf(out, " | %d | ", x->ring);
	cell(out, x->config);
	fprintf(out, " | %s | ", x->vmm);
	if (x->status != BENCH_OK) {
		fputs(x->status == BENCH_SKIPPED ? "skipped: " : "FAILED: ",
		      out);
		cell(out, x->note);
		fputs(" | | | | |\n", out);
		return;
	}
	bench_fmt_ns(med, sizeof(med), x->median_ns);
	bench_fmt_ns(lo, sizeof(lo), x->p10_ns);
	bench_fmt_ns(hi, sizeof(hi), x->p90_ns);
	fprintf(out, "%s | %s – %s | ", med, lo, hi);
	if (x->exits_per_op >= 0)
		fprintf(out, "%.3g", x->exits_per_op);
	fputs(" | ", out);
	if (x->ratio_to_floor >= 0)
		fprintf(out, "%.2f (", x->ratio_to_floor);
	cell(out, x->floor_case);
	if (x->ratio_to_floor >= 0)
		fputc(')', out);
	fputs(" | ", out);
	if (x->ratio_to_best >= 0)
		fprintf(out, "%.2f", x->ratio_to_best);
	fputs(" | ", out);
	if (x->mbps >= 0)
		fprintf(out, "%.0f MB/s ", x->mbps);
	cell(out, x->extra);
	fputs(" |\n", out);
}

static bool group_present(const struct bench_results *r, const char *g)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].group, g))
			return true;
	return false;
}

static void group_md(FILE *out, const struct bench_results *r,
		     const char *g, const char *svg_dir)
{
	fprintf(out, "\n## %s\n\n", g);
	if (svg_dir)
		fprintf(out, "![%s](%s%s%s.svg)\n\n", g, svg_dir,
			*svg_dir ? "/" : "", g);
	fputs("| case | ring | config | vmm | median | p10 – p90 | exits/op "
	      "| × floor (floor case) | × best | notes |\n"
	      "|---|---|---|---|---|---|---|---|---|---|\n", out);
	for (int floor = 0; floor < 2; floor++)
		for (size_t i = 0; i < r->n; i++)
			if (!strcmp(r->v[i].group, g) &&
			    (!strcmp(r->v[i].vmm, "kvm-floor") ||
			     !strcmp(r->v[i].vmm, "host")) == floor)
				row_md(out, &r->v[i]);
}

static const char notes[] =
"\n## How to read this\n\n"
"- Every number is a median over the repeats (p10–p90 shows the spread); "
"each repeat times a calibrated loop (about 20 ms) with the guest's TSC, "
"converted with the TSC rate from CPUID 0x40000010.\n"
"- Ring-0 guest code is emulated on PVM hosts, so ring-0 loops include "
"about a microsecond per instruction; ring-3 loops run natively.\n"
"- *exits/op*: user-space exits in the case's run, minus those of an empty "
"run of the same configuration (console and boot markers excluded), over "
"every op the case executed (calibration included).\n"
"- *× floor*: median over the median of the kvm-floor case that runs the "
"same instructions against bare KVM (tools/kvm_floor.c), timed right "
"before the row so that both see the same host load. CF8/CFC compares "
"with an out+in (or out+out) pair to unclaimed ports; read-only ECAM with a "
"KVM_MEM_READONLY slot; msr=deny includes delivering the #GP. The blk "
"cases' floor is the host's own pread/pwrite loop on the same image "
"(vmm \"host\").\n"
"- blk cases: one op is one request of a polling guest driver in ring 3; "
"*kicks/op* are its doorbell writes per request (each an exit handled in "
"the kernel by an ioeventfd, not counted in exits/op).\n"
"- *× best*: median over the fastest configuration (any VMM but the floor) "
"of the same case.\n"
"- The null port exit is `inl`/`outl` of port 0x1234, which nothing "
"claims (minivmm answers all-ones and counts it); the null MMIO exit reads "
"or writes an address no memslot or device covers. MSRs: 0xc0000102 "
"(KERNEL_GS_BASE, KVM's own) for `allow`, 0x174 (SYSENTER_CS) for "
"`allow,count` (exit, then KVM_GET/SET_MSRS), 0x19a for the rest.\n"
"- Boot times come from `minivmm run --timing`; \"process start\" is read "
"from /proc/self/stat and has the kernel's clock-tick granularity "
"(10 ms at USER_HZ=100), so only the guest-side intervals are precise.\n";

int bench_markdown_write(FILE *out, const struct bench_results *r,
			 const struct bench_host *h, const char *svg_dir)
{
	fprintf(out, "# minivmm benchmarks\n\n");
	fprintf(out, "- Date: %s\n- CPU: %s\n- Kernel: %s\n- KVM: %s\n"
		"- Repeats per case: %u\n- Load average (1/5/15 min): %s at "
		"start, %s at end (other work on the host inflates and "
		"spreads every number)\n", h->date, h->cpu, h->kernel, h->kvm,
		h->repeats, h->load_start, h->load_end);
	if (h->pinned)
		fprintf(out, "- Placement: every VMM on CPU %d, the traffic "
			"threads on the others (`--vmm-cpu`)\n", h->vmm_cpu);
	if (h->payload_info[0])
		fprintf(out, "- Payload platform: `%s`\n", h->payload_info);
	if (h->floor_info[0])
		fprintf(out, "- kvm-floor: `%s`\n", h->floor_info);
	fputs("\n## Targets\n\n", out);
	bench_targets_write(out, r, true);
	for (int g = 0; bench_groups[g]; g++)
		if (group_present(r, bench_groups[g]))
			group_md(out, r, bench_groups[g], svg_dir);
	fputs(notes, out);
	return ferror(out) ? -1 : 0;
}
