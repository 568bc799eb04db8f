// SPDX-License-Identifier: MIT
/*
 * kvm-floor: the smallest KVM program that still exercises each exit path
 * minivmm's benchmarks time, so the difference is what minivmm adds.
 *
 * A tiny guest (kvm_floor_vm.c, no firmware, no devices) runs one stub per
 * case: BENCH_UNROLL-times-unrolled loops of the same instructions the
 * payload (tests/guest/bench.c) times, entered at CPL 0 or 3, timed with
 * RDTSC inside the guest.  The host side of each exit is the minimum.
 * Calibration, repeats and the output line come from tools/bench/stats.c;
 * no other minivmm code is used.
 *
 * By default the VM gets the in-kernel irqchip and PIT as minivmm's does,
 * so the kernel's device lookups before a user exit are the same.
 */
#include "tools/kvm_floor_vm.h"
#include "tools/bench/stats.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MSR_USER_DEF	0x19a		/* IA32_CLOCK_MODULATION */
#define MSR_KERNEL_DEF	0xc0000102u	/* KERNEL_GS_BASE: KVM's own */
#define MSR_PASSTHRU_DEF 0x174		/* SYSENTER_CS: KVM's own */
#define MAX_CASES	32

struct opts {
	unsigned int repeats;
	unsigned int target_ms;
	const char *cases;	/* comma list or NULL: all */
	uint32_t startup_mib;	/* --startup: RAM, MiB; 0: time exits */
	uint32_t msr_kernel;
	struct floor_config vm;
};

static const char *const usage_text =
"usage: kvm-floor [--repeat N] [--target-ms MS] [--cases A,B,...] [--list]\n"
"                 [--msr-user IDX] [--msr-kernel IDX] [--msr-passthru IDX]\n"
"                 [--no-irqchip] [--startup MIB]\n"
"Times bare KVM exits from a minimal guest; one BENCH line per case\n"
"(format: tools/bench/stats.h).  NAME:RING in --cases picks one ring.\n"
"--startup MIB: instead, one VM with MIB MiB of RAM, the ROM slot, the\n"
"irqchip, CPUID and MSR filter; prints BENCHBOOT first_insn_ns=N, the\n"
"time from process start to its first guest instruction's exit.\n";

/* Calibrates, then times o->repeats runs; prints the BENCH line. */
static int time_case(struct floor_vm *f, const struct floor_case *c,
		     const struct opts *o)
{
	uint64_t target = (uint64_t)o->target_ms * f->tsc_khz;
	uint64_t n = BENCH_UNROLL, total = 0, exits = 0, cycles;
	uint64_t samples[BENCH_MAX_REPEATS];
	struct bench_line line = { .name = c->name, .ring = c->ring,
		.repeats = o->repeats, .tsc_khz = f->tsc_khz };
	char buf[BENCH_LINE_MAX], extra[64];
	struct bench_calib cal;

	if (!target)
		target = (uint64_t)o->target_ms * 2000000;	/* guess 2 GHz */
	bench_calib_init(&cal, n, target, BENCH_UNROLL, 1ull << 40);
	do {
		n = cal.n;
		if (floor_run_stub(f, c, n, &cycles) < 0)
			return -1;
		total += n;
		exits += f->exits;
	} while (!bench_calib_step(&cal, cycles));
	n = cal.n;
	for (unsigned int i = 0; i < o->repeats; i++) {
		if (floor_run_stub(f, c, n, &cycles) < 0)
			return -1;
		samples[i] = bench_per_op_milli(cycles, n);
		total += n;
		exits += f->exits;
	}
	bench_summarize(samples, o->repeats, &line.cycles);
	line.iters = n;
	line.ops_total = total;
	snprintf(extra, sizeof(extra), "vmm=kvm-floor exits=%llu",
		 (unsigned long long)exits);
	line.extra = extra;
	bench_format_line(buf, sizeof(buf), &line);
	printf("%s\n", buf);
	fflush(stdout);
	return 0;
}

/* --- cases and options ---------------------------------------------------- */

/* The cases, in output order.  Names match the payload's where the
 * instructions are the same (see bench_floor_for() in tools/bench/plan.c). */
static size_t all_cases(struct floor_case *out, const struct opts *o)
{
	const uint32_t u = o->vm.msr_user, k = o->msr_kernel;
	const uint32_t p = o->vm.msr_passthru;
	const struct floor_case all[] = {
		{ "port_out", 0, floor_stub_out, FLOOR_PORT, 0, 0, 0,
		  "outl to an unclaimed port (user-space exit)" },
		{ "port_in", 0, floor_stub_in, FLOOR_PORT, 0, 0, 0,
		  "inl from an unclaimed port (user-space exit)" },
		{ "port_pair_rd", 0, floor_stub_pair_rd, FLOOR_PORT, 0, 0, 0,
		  "outl + inl to unclaimed ports, as a CF8/CFC read" },
		{ "port_pair_wr", 0, floor_stub_pair_wr, FLOOR_PORT, 0, 0, 0,
		  "outl + outl to unclaimed ports, as a CF8/CFC write" },
		{ "port_pair_rd_q", 0, floor_stub_pair_rd, FLOOR_QPORT, 0, 0,
		  0, "the same read, the outl queued (coalesced PIO)" },
		{ "port_pair_wr_q", 0, floor_stub_pair_wr, FLOOR_QPORT, 0, 0,
		  0, "the same write, the first outl queued" },
		{ "mmio_read", 0, floor_stub_load, FLOOR_MMIO_GPA, 0, 0, 0,
		  "read of an address with no memslot" },
		{ "mmio_read", 3, floor_stub_load, FLOOR_MMIO_GPA, 0, 0, 0,
		  "the same, ring 3" },
		{ "mmio_write", 0, floor_stub_store, FLOOR_MMIO_GPA, 0, 0, 0,
		  "write to an address with no memslot" },
		{ "mmio_write", 3, floor_stub_store, FLOOR_MMIO_GPA, 0, 0, 0,
		  "the same, ring 3" },
		{ "romem_write", 0, floor_stub_store, FLOOR_ROM_GPA, 0, 0, 0,
		  "write to a KVM_MEM_READONLY slot (MMIO exit)" },
		{ "romem_write", 3, floor_stub_store, FLOOR_ROM_GPA, 0, 0, 0,
		  "the same, ring 3" },
		{ "romem_read", 0, floor_stub_load, FLOOR_ROM_GPA, 0, 0, 0,
		  "read from a KVM_MEM_READONLY slot (no exit)" },
		{ "romem_read", 3, floor_stub_load, FLOOR_ROM_GPA, 0, 0, 0,
		  "the same, ring 3" },
		{ "ram_read", 0, floor_stub_load, FLOOR_DATA_GPA, 0, 0, 0,
		  "read from RAM" },
		{ "ram_read", 3, floor_stub_load, FLOOR_DATA_GPA, 0, 0, 0,
		  "the same, ring 3" },
		{ "msr_read_user", 0, floor_stub_rdmsr, u, 0, 0, 0,
		  "rdmsr of a filtered MSR, answered (user-space exit)" },
		{ "msr_write_user", 0, floor_stub_wrmsr, u, 0, 0, 0,
		  "wrmsr of a filtered MSR, accepted (user-space exit)" },
		{ "msr_read_gp", 0, floor_stub_rdmsr, u, 0, 0, FLOOR_MSR_GP,
		  "rdmsr of a filtered MSR refused: exit, then #GP" },
		{ "msr_write_gp", 0, floor_stub_wrmsr, u, 0, 0, FLOOR_MSR_GP,
		  "wrmsr of a filtered MSR refused: exit, then #GP" },
		{ "msr_read_passthru", 0, floor_stub_rdmsr, p, 0, 0,
		  FLOOR_MSR_PASSTHRU, "rdmsr exit answered via KVM_GET_MSRS" },
		{ "msr_write_passthru", 0, floor_stub_wrmsr, p, 0, 0,
		  FLOOR_MSR_PASSTHRU, "wrmsr exit done via KVM_SET_MSRS" },
		{ "msr_read_kernel", 0, floor_stub_rdmsr, k, 0, 0, 0,
		  "rdmsr that KVM handles in the kernel" },
		{ "msr_write_kernel", 0, floor_stub_wrmsr, k, 0, 0, 0,
		  "wrmsr that KVM handles in the kernel" },
	};
	size_t n = sizeof(all) / sizeof(all[0]);

	if (n > MAX_CASES)
		n = MAX_CASES;
	memcpy(out, all, n * sizeof(all[0]));
	return n;
}

/* NAME matches every ring, NAME:R one. */
static bool selected(const char *list, const struct floor_case *c)
{
	size_t kl = strlen(c->name);

	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ',');
		size_t l = end ? (size_t)(end - p) : strlen(p);

		if (!strncmp(p, c->name, kl) && (l == kl ||
		    (l == kl + 2 && p[kl] == ':' && p[kl + 1] == '0' + c->ring)))
			return true;
		p = end ? end + 1 : NULL;
	}
	return !list;
}

static int build_cases(struct floor_case *out, const struct opts *o)
{
	struct floor_case all[MAX_CASES];
	size_t n = all_cases(all, o);
	int k = 0;

	for (size_t i = 0; i < n; i++)
		if (selected(o->cases, &all[i]))
			out[k++] = all[i];
	return k;
}

static int parse_u32(const char *opt, const char *v, uint32_t *out,
		     uint32_t min, uint32_t max)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(v, &end, 0);
	if (errno || end == v || *end || x < min || x > max) {
		fprintf(stderr, "kvm-floor: error: %s '%s': expected %u..%u\n",
			opt, v, min, max);
		return -1;
	}
	*out = (uint32_t)x;
	return 0;
}

/* 0: go on, 1: exit 0, -1: usage error. */
static int parse_opts(struct opts *o, int argc, char **argv, bool *list)
{
	static const struct option lo[] = {
		{ "repeat", required_argument, NULL, 'r' },
		{ "target-ms", required_argument, NULL, 't' },
		{ "cases", required_argument, NULL, 'c' },
		{ "msr-user", required_argument, NULL, 'u' },
		{ "msr-kernel", required_argument, NULL, 'k' },
		{ "msr-passthru", required_argument, NULL, 'p' },
		{ "no-irqchip", no_argument, NULL, 'n' },
		{ "startup", required_argument, NULL, 's' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct opts){ .repeats = 5, .target_ms = 20,
		.msr_kernel = MSR_KERNEL_DEF, .vm = { MSR_USER_DEF,
		MSR_PASSTHRU_DEF, 1 } };
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		int err = 0;

		switch (c) {
		case 'r': err = parse_u32("--repeat", optarg, &o->repeats, 1,
					  BENCH_MAX_REPEATS); break;
		case 't': err = parse_u32("--target-ms", optarg, &o->target_ms,
					  1, 10000); break;
		case 'c': o->cases = optarg; break;
		case 'u': err = parse_u32("--msr-user", optarg,
					  &o->vm.msr_user, 0, UINT32_MAX);
			  break;
		case 'p': err = parse_u32("--msr-passthru", optarg,
					  &o->vm.msr_passthru, 0, UINT32_MAX);
			  break;
		case 'k': err = parse_u32("--msr-kernel", optarg,
					  &o->msr_kernel, 0, UINT32_MAX); break;
		case 'n': o->vm.irqchip = 0; break;
		case 's': err = parse_u32("--startup", optarg,
					  &o->startup_mib, 1, 1u << 20); break;
		case 'l': *list = true; break;
		case 'h': fputs(usage_text, stdout); return 1;
		default: fputs(usage_text, stderr); return -1;
		}
		if (err)
			return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "kvm-floor: error: unexpected '%s'\n",
			argv[optind]);
		return -1;
	}
	if (o->vm.msr_user == o->msr_kernel ||
	    o->vm.msr_passthru == o->msr_kernel ||
	    o->vm.msr_user == o->vm.msr_passthru) {
		fprintf(stderr, "kvm-floor: error: the user, kernel and "
			"passthru MSRs must differ\n");
		return -1;
	}
	return 0;
}

/* How long ago the process started (/proc/self/stat field 22, clock
 * ticks since boot, as minivmm's --timing counts), so exec and dynamic
 * linking are included.  0 if /proc cannot say. */
static uint64_t process_age_ns(void)
{
	char buf[1024], *p;
	unsigned long long ticks;
	struct timespec ts;
	uint64_t start, now;
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	for (int field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &ticks) != 1)
		return 0;
	start = ticks * (1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK));
	clock_gettime(CLOCK_BOOTTIME, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return now > start ? now - start : 0;
}

/* Start-up's floor: what any KVM program pays before its guest runs. */
static int startup(const struct opts *o)
{
	struct floor_config c = o->vm;
	struct floor_vm f;
	uint64_t age;
	int r;

	c.ram_size = (uint64_t)o->startup_mib << 20;
	r = floor_vm_create(&f, &c) < 0 ? -1 : floor_first_exit(&f);
	age = process_age_ns();
	floor_vm_destroy(&f);
	if (r < 0 || !age)
		return 1;
	printf("BENCHBOOT first_insn_ns=%llu ram_mib=%u irqchip=%d\n",
	       (unsigned long long)age, o->startup_mib, c.irqchip);
	return 0;
}

int main(int argc, char **argv)
{
	struct floor_case cases[MAX_CASES];
	struct floor_vm f;
	struct opts o;
	bool list = false;
	int n, r, failed = 0;

	r = parse_opts(&o, argc, argv, &list);
	if (r)
		return r > 0 ? 0 : 2;
	if (o.startup_mib)
		return startup(&o);
	n = build_cases(cases, &o);
	if (list || n == 0) {
		for (int i = 0; i < n; i++)
			printf("%-18s ring %d  %s\n", cases[i].name,
			       cases[i].ring, cases[i].what);
		if (!n)
			fprintf(stderr, "kvm-floor: error: --cases matches "
				"nothing (see --list)\n");
		return n ? 0 : 2;
	}
	if (floor_vm_create(&f, &o.vm) < 0) {
		floor_vm_destroy(&f);
		return 1;
	}
	printf("BENCHINFO vmm=kvm-floor tsc_khz=%u irqchip=%d msr_user=%#x "
	       "msr_kernel=%#x msr_passthru=%#x port=%#x mmio=%#llx\n",
	       f.tsc_khz, o.vm.irqchip, o.vm.msr_user, o.msr_kernel,
	       o.vm.msr_passthru, FLOOR_PORT,
	       (unsigned long long)FLOOR_MMIO_GPA);
	for (int i = 0; i < n; i++) {
		if (time_case(&f, &cases[i], &o) == 0)
			continue;
		/* A faulting stub leaves a dead vCPU: start afresh. */
		printf("BENCHERR case=%s ring=%d\n", cases[i].name,
		       cases[i].ring);
		failed++;
		floor_vm_destroy(&f);
		if (floor_vm_create(&f, &o.vm) < 0)
			break;
	}
	floor_vm_destroy(&f);
	return failed ? 1 : 0;
}
