// SPDX-License-Identifier: MIT
/*
 * bench: the benchmark payload that `minivmm bench` boots under each
 * configuration (and QEMU with --peer qemu).  It finds the machine the
 * way an OS would (bench/platform.c), then times the cases the command
 * line names and prints one machine-readable line per case:
 *
 *   BENCHINFO key=value ...          how the platform was found
 *   BENCH case=... (tools/bench/stats.h)   one per case
 *   BENCHSKIP case=N ring=R reason=W  a case that cannot run here
 *   BENCHDONE ran=N
 *
 * Command line (all optional):
 *   cases=all|none|NAME[:RING],...  default all
 *   repeat=R (1..100, default 5)  target-ms=MS per repeat (default 20)
 *   msr=IDX (default 0xc0000102, KERNEL_GS_BASE)  msr-value=V (default 0)
 *   bw-bytes=N bandwidth buffer (default 1 MiB)  bar1-at=ADDR fallback
 * The blk_* cases drive the first virtio-blk function (bench/blk.c), the
 * net_* cases the first virtio-net function (bench/net.c).
 *
 * One translation unit (guest.mk builds one object per payload): the
 * parts under bench/ and the shared statistics are included below.
 */
#include "bench/bench.h"

#include "tools/bench/stats.c"
#include "bench/platform.c"
#include "bench/memtype.c"
#include "bench/run.c"
#include "bench/blk.c"
#include "bench/net.c"
#include "bench/cases.c"

#define DEFAULT_MSR	0xc0000102u
#define MAX_TARGET_MS	10000

/* Points at the value of key= in cmdline (ends at a space), or def. */
static const char *cmdline_word(const char *cmdline, const char *key,
				const char *def)
{
	size_t kl = strlen(key);

	for (const char *p = cmdline; *p;) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, key, kl) && p[kl] == '=')
			return p + kl + 1;
		while (*p && *p != ' ')
			p++;
	}
	return def;
}

static void parse_opts(struct bench_opts *o, const char *cl, uint32_t khz)
{
	uint64_t v;
	uint64_t ms = 20;

	*o = (struct bench_opts){ .cases = "all", .repeats = 5,
		.msr = DEFAULT_MSR, .bw_bytes = 1 << 20, .tsc_khz = khz };
	o->cases = cmdline_word(cl, "cases", "all");
	if (cmdline_u64(cl, "repeat", &v) && v >= 1 && v <= BENCH_MAX_REPEATS)
		o->repeats = (unsigned int)v;
	if (cmdline_u64(cl, "target-ms", &v) && v >= 1 && v <= MAX_TARGET_MS)
		ms = v;
	if (cmdline_u64(cl, "msr", &v) && v <= UINT32_MAX)
		o->msr = (uint32_t)v;
	cmdline_u64(cl, "msr-value", &o->msr_value);
	if (cmdline_u64(cl, "bw-bytes", &v) && v >= 4096 && v <= (1u << 30))
		o->bw_bytes = v & ~0xfffull;
	/* Without a TSC rate, assume 2 GHz for the target only. */
	o->target_cycles = ms * (o->tsc_khz ? o->tsc_khz : 2000000);
}

static void print_info(const struct platform *p, const char *tsc_src,
		       uint32_t khz)
{
	struct mtrr_state m;
	uint32_t b = p->xen_bdf;

	mtrr_read(&m);
	gprintf("BENCHINFO tsc_khz=%u tsc_source=%s rsdp=%#llx rsdp_from=%s "
		"ecam=%#llx ecam_from=%s cf8=%d", khz, tsc_src[0] == 'c' ?
		"cpuid" : "none", (unsigned long long)p->rsdp, p->rsdp_from,
		(unsigned long long)p->ecam, p->ecam_from, p->cf8);
	if (b == BENCH_NO_BDF)
		gprintf(" xen=none");
	else
		gprintf(" xen=%02x:%02x.%x bar1=%#llx bar1_size=%#llx "
			"bar1_from=%s bar1_mtrr=%s", b >> 8, b >> 3 & 0x1f,
			b & 7, (unsigned long long)p->bar1,
			(unsigned long long)p->bar1_size, p->bar1_from,
			memtype_name(mtrr_range_type(&m, p->bar1,
						     p->bar1_size)));
	gprintf(" mtrr_def=%#llx mtrr_vcnt=%u null_mmio=%#llx ram_buf=%#llx\n",
		(unsigned long long)m.def_type, m.vcnt,
		(unsigned long long)p->null_mmio,
		(unsigned long long)p->ram_buf);
}

int payload_main(const struct hvm_start_info *si)
{
	const char *cl = start_info_cmdline(si), *src;
	uint32_t khz = tsc_khz(&src);
	struct bench_opts o;
	struct platform p;
	int ran;

	parse_opts(&o, cl, khz);
	platform_discover(&p, si, o.bw_bytes);
	print_info(&p, src, khz);
	/* Set up a virtio-blk now, if there is one, so its exits are part
	 * of every boot, the empty baseline boot too. */
	blk_open(&p);
	net_open(&p, o.tsc_khz);
	ran = bench_run_cases(&p, &o);
	gprintf("BENCHDONE ran=%d\n", ran);
	return 0;
}
