// SPDX-License-Identifier: MIT
/*
 * Running one case: the timed loops (the shared stubs of
 * tools/bench/loops.h, so kvm-floor times the very same instructions, and
 * the bandwidth loops), ring 0 or ring 3 (run_user), calibration of the
 * iteration count to the target time per repeat, the repeats, and the
 * BENCH line (or a BENCHSKIP line saying why a case cannot run here).
 */
#include "bench.h"
#include "tools/bench/loops.h"

#define NULL_PORT	0x1234		/* unclaimed here, in QEMU, in the floor */
#define LINE		64
#define MAX_ITERS	(1ull << 40)
#define VEC_GP		13

typedef uint64_t (*loop_fn)(uint64_t arg, uint64_t value, uint64_t n,
			    uint64_t value2);

uint64_t bench_loop_in(uint64_t, uint64_t, uint64_t, uint64_t);
uint64_t bench_loop_out(uint64_t, uint64_t, uint64_t, uint64_t);
uint64_t bench_loop_load(uint64_t, uint64_t, uint64_t, uint64_t);
uint64_t bench_loop_store(uint64_t, uint64_t, uint64_t, uint64_t);
uint64_t bench_loop_rdmsr(uint64_t, uint64_t, uint64_t, uint64_t);
uint64_t bench_loop_wrmsr(uint64_t, uint64_t, uint64_t, uint64_t);
uint64_t bench_loop_pair_rd(uint64_t, uint64_t, uint64_t, uint64_t);
uint64_t bench_loop_pair_wr(uint64_t, uint64_t, uint64_t, uint64_t);
uint64_t bench_loop_syscall(uint64_t, uint64_t, uint64_t, uint64_t);
uint64_t bench_loop_int80(uint64_t, uint64_t, uint64_t, uint64_t);
void bench_gp_skip(void);
volatile uint64_t bench_gp_count;

/* Stubs: SysV arguments (rdi, rsi, rdx = n, rcx) to the stub contract. */
__asm__(BENCH_ASM_MACROS
	".text\n"
	".macro PAYLOAD_STUB name, body\n"
	" .globl bench_loop_\\name\n"
	" bench_loop_\\name: mov %rdx, %r8; \\body; ret\n"
	".endm\n"
	"PAYLOAD_STUB in, BENCH_STUB_IN\n"
	"PAYLOAD_STUB out, BENCH_STUB_OUT\n"
	"PAYLOAD_STUB load, BENCH_STUB_LOAD\n"
	"PAYLOAD_STUB store, BENCH_STUB_STORE\n"
	"PAYLOAD_STUB rdmsr, BENCH_STUB_RDMSR\n"
	"PAYLOAD_STUB wrmsr, BENCH_STUB_WRMSR\n"
	"PAYLOAD_STUB pair_rd, BENCH_STUB_PAIR_RD\n"
	"PAYLOAD_STUB pair_wr, BENCH_STUB_PAIR_WR\n"
	"PAYLOAD_STUB syscall, BENCH_STUB_SYSCALL\n"
	"PAYLOAD_STUB int80, BENCH_STUB_INT80\n"
	/* #GP from rdmsr/wrmsr (2 bytes): count it and skip the insn. */
	".globl bench_gp_skip\n"
	"bench_gp_skip: add $8, %rsp; addq $2, (%rsp);"
	" incq bench_gp_count(%rip); iretq\n");

/* ---- bandwidth loops: one op = one 64-byte line ------------------------ */

static volatile uint64_t sink;

static uint64_t bw_read(uint64_t va, uint64_t bytes, uint64_t n, uint64_t x)
{
	uint64_t t0 = tsc_begin(), acc = 0, lines = bytes / LINE;

	(void)x;
	while (n) {
		uint64_t m = n < lines ? n : lines;
		const volatile uint64_t *p = (const volatile uint64_t *)va;

		for (uint64_t i = 0; i < m; i++, p += 8)
			acc += p[0] + p[1] + p[2] + p[3] + p[4] + p[5] +
			       p[6] + p[7];
		n -= m;
	}
	sink = acc;
	return tsc_end() - t0;
}

static uint64_t bw_write(uint64_t va, uint64_t bytes, uint64_t n, uint64_t v)
{
	uint64_t t0 = tsc_begin(), lines = bytes / LINE;

	while (n) {
		uint64_t m = n < lines ? n : lines;
		volatile uint64_t *p = (volatile uint64_t *)va;

		for (uint64_t i = 0; i < m; i++, p += 8) {
			p[0] = v; p[1] = v; p[2] = v; p[3] = v;
			p[4] = v; p[5] = v; p[6] = v; p[7] = v;
		}
		n -= m;
	}
	return tsc_end() - t0;
}

/* Copies the first half of the buffer to the second half. */
static uint64_t bw_copy(uint64_t va, uint64_t bytes, uint64_t n, uint64_t x)
{
	uint64_t t0 = tsc_begin(), lines = bytes / 2 / LINE;

	(void)x;
	while (n) {
		uint64_t m = n < lines ? n : lines;
		const volatile uint64_t *s = (const volatile uint64_t *)va;
		volatile uint64_t *d = (volatile uint64_t *)(va + bytes / 2);

		for (uint64_t i = 0; i < m; i++, s += 8, d += 8) {
			d[0] = s[0]; d[1] = s[1]; d[2] = s[2]; d[3] = s[3];
			d[4] = s[4]; d[5] = s[5]; d[6] = s[6]; d[7] = s[7];
		}
		n -= m;
	}
	return tsc_end() - t0;
}

/* ---- running one case ---------------------------------------------------- */

struct run {
	loop_fn loop;
	uint64_t arg, value, value2, n, cycles;
	int ring;
	bool gp_idt;		/* rdmsr/wrmsr #GP: use the skipping IDT */
	bool bw;		/* a bandwidth case: add mbps= */
	bool blk;		/* a virtio-blk case: blk_extra() words */
	bool net;		/* a virtio-net case: net_extra() words */
	uint64_t min_n;		/* 0, or the fewest ops per timed run (and
				 * as many untimed first, to warm up) */
	uint64_t ref_mmio;	/* 0, or an unclaimed MMIO address: each
				 * repeat is followed by as many ring-3 reads
				 * of it, the reference side by side */
};

struct idt_gate {
	uint64_t lo, hi;
};

struct __attribute__((packed)) idt_ptr {
	uint16_t limit;
	uint64_t base;
};

static struct idt_gate gp_idt[32] __attribute__((aligned(16)));

static void trampoline(void *p)
{
	struct run *r = p;

	r->cycles = r->loop(r->arg, r->value, r->n, r->value2);
}

/* The library's IDT with #GP pointing at bench_gp_skip, for the loop. */
static void run_with_gp_idt(struct run *r)
{
	struct idt_ptr old, mine = { sizeof(gp_idt) - 1, (uintptr_t)gp_idt };
	uint64_t h = (uintptr_t)bench_gp_skip;

	__asm__ volatile("sidt %0" : "=m"(old));
	memcpy(gp_idt, (const void *)(uintptr_t)old.base, sizeof(gp_idt));
	gp_idt[VEC_GP].lo = (h & 0xffff) | (uint64_t)GUEST_KERNEL_CS << 16 |
			    0x8eull << 40 | (h >> 16 & 0xffff) << 48;
	gp_idt[VEC_GP].hi = h >> 32;
	__asm__ volatile("lidt %0" : : "m"(mine) : "memory");
	trampoline(r);
	__asm__ volatile("lidt %0" : : "m"(old) : "memory");
}

static uint64_t run_once(struct run *r, uint64_t n)
{
	r->n = n;
	if (r->ring == 3)
		run_user(trampoline, r);
	else if (r->gp_idt)
		run_with_gp_idt(r);
	else
		trampoline(r);
	return r->cycles;
}

static void report(const char *name, const struct run *r, uint64_t iters,
		   uint64_t total, uint64_t *samples, const struct bench_opts *o,
		   const char *extra)
{
	struct bench_line l = { .name = name, .ring = r->ring, .iters = iters,
		.repeats = o->repeats, .ops_total = total,
		.tsc_khz = o->tsc_khz, .extra = extra };
	char buf[BENCH_LINE_MAX], more[160];
	uint64_t ns;

	bench_summarize(samples, o->repeats, &l.cycles);
	ns = bench_cycles_to_ns(l.cycles.median, o->tsc_khz);
	if (r->blk) {
		blk_extra(more, sizeof(more), ns);
		l.extra = more;
	} else if (r->net) {
		net_extra(more, sizeof(more), ns);
		l.extra = more;
	} else if (r->bw && ns) {	/* 64 bytes per op: MB/s = 64e6 / milli-ns */
		gsnprintf(more, sizeof(more), "%s mbps=%llu", extra,
			  (unsigned long long)(64000000ull / ns));
		l.extra = more;
	}
	bench_format_line(buf, sizeof(buf), &l);
	gprintf("%s\n", buf);
}

/* The reference right after a repeat of n ops that took cycles: n
 * ring-3 reads of an unclaimed MMIO address (one exit each), in the same
 * boot and a few milliseconds apart, so both see the same host load.
 * The case's cost per op over the read's, in thousandths. */
static uint64_t ref_ratio(const struct run *r, uint64_t n, uint64_t cycles,
			  uint64_t *ref_sample)
{
	struct run m = { .loop = bench_loop_load, .arg = r->ref_mmio,
			 .ring = 3 };
	uint64_t ref = run_once(&m, n);

	*ref_sample = bench_per_op_milli(ref, n);
	return ref ? cycles * 1000 / ref : 0;
}

/* extra plus the median of the ratios, the ratio of the p10s (samples
 * the host's other work left alone: the nearest to the costs without
 * load), and the reference's ops (their exits are not the case's: the
 * host takes them off). */
static const char *ref_extra(char *buf, size_t len, const char *extra,
			     uint64_t *ratios, uint64_t *samples,
			     uint64_t *refs, unsigned int repeats, uint64_t n)
{
	struct bench_summary s, a, b;
	uint64_t p10;

	bench_summarize(ratios, repeats, &s);
	bench_summarize(samples, repeats, &a);
	bench_summarize(refs, repeats, &b);
	p10 = b.p10 ? a.p10 * 1000 / b.p10 : 0;
	gsnprintf(buf, len, "%s%sref_mmio3=%llu.%03llu ref_mmio3_p10=%llu.%03llu"
		  " ref_ops=%llu", extra ? extra : "", extra && *extra ? " " : "",
		  (unsigned long long)(s.median / 1000),
		  (unsigned long long)(s.median % 1000),
		  (unsigned long long)(p10 / 1000),
		  (unsigned long long)(p10 % 1000),
		  (unsigned long long)(n * repeats));
	return buf;
}

/* Calibrates, repeats, prints.  probe_ops: accesses already made. */
static void time_case(const char *name, struct run *r,
		      const struct bench_opts *o, uint64_t probe_ops,
		      const char *extra)
{
	uint64_t samples[BENCH_MAX_REPEATS], n = BENCH_UNROLL;
	uint64_t ratios[BENCH_MAX_REPEATS], refs[BENCH_MAX_REPEATS];
	uint64_t total = probe_ops, cycles;
	struct bench_calib cal;
	char more[192];

	if (r->min_n) {
		run_once(r, r->min_n);
		total += r->min_n;
		n = r->min_n;
	}
	bench_calib_init(&cal, n, o->target_cycles, BENCH_UNROLL, MAX_ITERS);
	do {
		n = cal.n;
		cycles = run_once(r, n);
		total += n;
	} while (!bench_calib_step(&cal, cycles));
	n = cal.n;
	if (n < r->min_n)
		n = r->min_n;
	for (unsigned int i = 0; i < o->repeats; i++) {
		cycles = run_once(r, n);
		samples[i] = bench_per_op_milli(cycles, n);
		total += n;
		if (r->ref_mmio)
			ratios[i] = ref_ratio(r, n, cycles, &refs[i]);
	}
	if (r->ref_mmio)
		extra = ref_extra(more, sizeof(more), extra, ratios, samples,
				  refs, o->repeats, n);
	report(name, r, n, total, samples, o, extra);
}

static void skip(const char *name, int ring, const char *why)
{
	gprintf("BENCHSKIP case=%s ring=%d reason=%s\n", name, ring, why);
}
