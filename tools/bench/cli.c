// SPDX-License-Identifier: MIT
/* `minivmm bench` options. */
#include "tools/bench/bench.h"
#include "tools/bench/pin.h"
#include "tools/bench/plan.h"
#include "vmm/cli/parse.h"

#include <getopt.h>
#include <string.h>

enum { OPT_REPEAT = 256, OPT_CASES, OPT_JSON, OPT_REPORT, OPT_PEER,
       OPT_PAYLOAD, OPT_FLOOR, OPT_NO_FLOOR, OPT_TARGET, OPT_LINUX_KERNEL,
       OPT_LINUX_INITRD, OPT_LINUX_APPEND, OPT_LINUX_REPEAT, OPT_VMM_CPU };

void bench_usage(FILE *out)
{
	fputs(
"usage: minivmm bench [--repeat N] [--cases LIST] [--json FILE]\n"
"                     [--report DIR] [--peer qemu] [--target-ms MS]\n"
"                     [--payload ELF] [--floor PROGRAM] [--no-floor]\n"
"                     [--linux-kernel FILE --linux-initrd FILE]\n"
"                     [--linux-append STRING] [--linux-repeat N]\n"
"                     [--vmm-cpu N]\n"
"\n"
"Boots the benchmark payload under each configuration its cases need,\n"
"runs the kvm-floor tool for the bare-KVM cost of the same instructions,\n"
"and prints one row per case and configuration: median time per op, the\n"
"p10..p90 spread, user-space exits per op, and ratios to the floor and to\n"
"the best configuration; then the issues' target figures as measured.\n"
"\n"
"  --repeat N       timed repeats per case (1..100, default 5)\n"
"  --cases LIST     comma list of groups (pci exits msr memory blk net\n"
"                   syscall boot snapshot fs), case names or NAME:RING\n"
"                   (default: all)\n"
"  --json FILE      write every row as JSON (schema: tools/bench/json.c)\n"
"  --report DIR     write DIR/report.md and one SVG chart per group\n"
"  --peer qemu      also run the payload under qemu-system-x86_64 -M q35\n"
"                   (installed from Debian first when missing and root)\n"
"  --target-ms MS   time per repeat (default 20)\n"
"  --payload ELF    benchmark payload (default: guests/bench.elf beside\n"
"                   this binary);  --floor PROGRAM  (default: kvm-floor\n"
"                   beside this binary);  --no-floor  skip the floor\n"
"  --linux-kernel FILE, --linux-initrd FILE\n"
"                   the boot group also boots this Linux kernel with this\n"
"                   initramfs (init: tests/boot/linux-init.sh), 1 vCPU:\n"
"                   kernel entry, first kernel line, Run /init, init's\n"
"                   first line and verdict; --linux-append adds kernel\n"
"                   parameters, --linux-repeat N boots (1..20, default 3).\n"
"                   The fs group (the kernel only, with virtio-fs) reads\n"
"                   and writes a tree over virtio-fs with Debian's\n"
"                   virtiofsd (--linux-repeat rounds; beside QEMU with\n"
"                   --peer qemu), then times `minivmm run` of the\n"
"                   command true, alone and with / shared read-only\n"
"  --vmm-cpu N      run every VMM (minivmm, QEMU, kvm-floor) on host CPU N\n"
"                   only and the net cases' traffic threads on the other\n"
"                   CPUs: the same placement for every VMM (default: the\n"
"                   host's scheduler places each thread)\n",
	      out);
}

static int bad(const char *opt, const char *v, const char *why)
{
	fprintf(stderr, "minivmm: error: bench %s '%s': %s\n", opt, v, why);
	return -1;
}

static int number(const char *opt, const char *v, unsigned int max,
		  unsigned int *out)
{
	uint64_t n;

	if (parse_u64(v, &n) < 0 || n < 1 || n > max) {
		char why[48];

		snprintf(why, sizeof(why), "expected 1..%u", max);
		return bad(opt, v, why);
	}
	*out = (unsigned int)n;
	return 0;
}

static int one(struct bench_opts *o, int c, const char *v)
{
	char err[160];

	switch (c) {
	case OPT_REPEAT: return number("--repeat", v, 100, &o->repeat);
	case OPT_TARGET: return number("--target-ms", v, 10000, &o->target_ms);
	case OPT_CASES:
		if (bench_cases_check(v, err, sizeof(err)) < 0) {
			fprintf(stderr, "minivmm: error: bench %s\n", err);
			return -1;
		}
		o->cases = strcmp(v, "all") ? v : NULL;
		return 0;
	case OPT_JSON: o->json = v; return 0;
	case OPT_REPORT: o->report = v; return 0;
	case OPT_PEER:
		if (strcmp(v, "qemu"))
			return bad("--peer", v, "only 'qemu' is supported");
		o->peer_qemu = true;
		return 0;
	case OPT_PAYLOAD: o->payload = v; return 0;
	case OPT_FLOOR: o->floor = v; return 0;
	case OPT_NO_FLOOR: o->no_floor = true; return 0;
	case OPT_LINUX_KERNEL: o->linux_kernel = v; return 0;
	case OPT_LINUX_INITRD: o->linux_initrd = v; return 0;
	case OPT_LINUX_APPEND: o->linux_append = v; return 0;
	case OPT_LINUX_REPEAT:
		return number("--linux-repeat", v, 20, &o->linux_repeat);
	case OPT_VMM_CPU:
		if (bench_pin_set(v, err, sizeof(err)) < 0)
			return bad("--vmm-cpu", v, err);
		return 0;
	}
	return -1;
}

int bench_opts_parse(struct bench_opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "repeat", required_argument, NULL, OPT_REPEAT },
		{ "target-ms", required_argument, NULL, OPT_TARGET },
		{ "cases", required_argument, NULL, OPT_CASES },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "report", required_argument, NULL, OPT_REPORT },
		{ "peer", required_argument, NULL, OPT_PEER },
		{ "payload", required_argument, NULL, OPT_PAYLOAD },
		{ "floor", required_argument, NULL, OPT_FLOOR },
		{ "no-floor", no_argument, NULL, OPT_NO_FLOOR },
		{ "linux-kernel", required_argument, NULL, OPT_LINUX_KERNEL },
		{ "linux-initrd", required_argument, NULL, OPT_LINUX_INITRD },
		{ "linux-append", required_argument, NULL, OPT_LINUX_APPEND },
		{ "linux-repeat", required_argument, NULL, OPT_LINUX_REPEAT },
		{ "vmm-cpu", required_argument, NULL, OPT_VMM_CPU },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->repeat = 5;
	o->target_ms = 20;
	o->linux_repeat = 3;
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		if (c == 'h') {
			bench_usage(stdout);
			return 1;
		}
		if (c == '?' || c == ':') {
			fprintf(stderr, "minivmm: error: bench: %s option "
				"'%s' (see minivmm bench --help)\n",
				c == '?' ? "unknown" : "missing value for",
				argv[optind - 1]);
			return -1;
		}
		if (one(o, c, optarg) < 0)
			return -1;
	}
	/* The boot group's Linux boots need both; the fs group brings its
	 * own initramfs. */
	if (o->linux_initrd && !o->linux_kernel) {
		fprintf(stderr, "minivmm: error: bench: --linux-initrd needs "
			"--linux-kernel\n");
		return -1;
	}
	if (!o->linux_kernel && o->cases && strcmp(o->cases, "all") &&
	    bench_fs_selected(o->cases)) {
		fprintf(stderr, "minivmm: error: bench: --cases fs needs "
			"--linux-kernel (a kernel with virtio-fs, e.g. the one "
			"tools/build-kernel.sh builds)\n");
		return -1;
	}
	if (o->linux_kernel && !o->linux_initrd &&
	    bench_boot_selected(o->cases)) {
		fprintf(stderr, "minivmm: error: bench: --linux-kernel and "
			"--linux-initrd go together for the boot group (the "
			"fs group needs only the kernel)\n");
		return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "minivmm: error: bench: unexpected argument "
			"'%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}
