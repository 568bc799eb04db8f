// SPDX-License-Identifier: MIT
/*
 * The cases: what each one times and how it is set up.  A setup fills the
 * run (loop, operands, ring) and the BENCH line's extra words, or says why
 * the case cannot run on this machine.
 */
#include "bench.h"

/* ---- the cases ----------------------------------------------------------- */

struct ctx {
	const struct platform *p;
	const struct bench_opts *o;
	struct mtrr_state mtrr;
	uint64_t probe_ops;
	char extra[128];
};

/* Fills *r and c->extra; returns NULL, or why the case cannot run. */
typedef const char *(*setup_fn)(struct ctx *c, struct run *r);

static volatile uint32_t ram_word = 0x5a5a5a5a;

static uint32_t cfg_bdf(const struct platform *p)
{
	return p->xen_bdf != BENCH_NO_BDF ? p->xen_bdf : 0;
}

static const char *s_port_in(struct ctx *c, struct run *r)
{
	(void)c;
	r->loop = bench_loop_in;
	r->arg = NULL_PORT;
	return NULL;
}

static const char *s_port_out(struct ctx *c, struct run *r)
{
	(void)c;
	r->loop = bench_loop_out;
	r->arg = NULL_PORT;
	return NULL;
}

static const char *mmio(struct ctx *c, struct run *r, loop_fn fn)
{
	if (!c->p->null_mmio)
		return "no-unused-address";
	r->loop = fn;
	r->arg = c->p->null_mmio;
	gsnprintf(c->extra, sizeof(c->extra), "addr=%#llx",
		  (unsigned long long)r->arg);
	return NULL;
}

static const char *s_mmio_read(struct ctx *c, struct run *r)
{
	return mmio(c, r, bench_loop_load);
}

static const char *s_mmio_write(struct ctx *c, struct run *r)
{
	return mmio(c, r, bench_loop_store);
}

static void bdf_extra(struct ctx *c, uint32_t bdf, const char *more)
{
	gsnprintf(c->extra, sizeof(c->extra), "bdf=%02x:%02x.%x%s%s",
		  bdf >> 8, bdf >> 3 & 0x1f, bdf & 7, more ? " " : "",
		  more ? more : "");
}

static const char *s_cf8_read(struct ctx *c, struct run *r)
{
	if (!c->p->cf8)
		return "no-cf8";
	r->loop = bench_loop_pair_rd;
	r->arg = 0xcf8;
	r->value = pci_cf8_addr(cfg_bdf(c->p), 0);
	bdf_extra(c, cfg_bdf(c->p), "reg=0x00");
	return NULL;
}

/* Interrupt Line (0x3c) rewritten with its value: a real register write
 * with no effect on the device. */
static const char *s_cf8_write(struct ctx *c, struct run *r)
{
	if (!c->p->cf8)
		return "no-cf8";
	r->loop = bench_loop_pair_wr;
	r->arg = 0xcf8;
	r->value = pci_cf8_addr(cfg_bdf(c->p), 0x3c);
	r->value2 = pci_read32(c->p, cfg_bdf(c->p), 0x3c);
	bdf_extra(c, cfg_bdf(c->p), "reg=0x3c");
	return NULL;
}

static const char *ecam(struct ctx *c, struct run *r, loop_fn fn,
			uint32_t off)
{
	if (!c->p->ecam)
		return "no-ecam";
	r->loop = fn;
	r->arg = pci_ecam_addr(c->p, cfg_bdf(c->p), off);
	r->value = pci_read32(c->p, cfg_bdf(c->p), off);
	c->probe_ops = 1;
	bdf_extra(c, cfg_bdf(c->p), off ? "reg=0x3c" : "reg=0x00");
	return NULL;
}

static const char *s_ecam_read(struct ctx *c, struct run *r)
{
	return ecam(c, r, bench_loop_load, 0);
}

static const char *s_ecam_write(struct ctx *c, struct run *r)
{
	return ecam(c, r, bench_loop_store, 0x3c);
}

/* As Linux maps MMCONFIG (ioremap: UC-). */
static const char *s_ecam_read_uc(struct ctx *c, struct run *r)
{
	uint64_t a, base, va;
	const char *why = ecam(c, r, bench_loop_load, 0);

	if (why)
		return why;
	a = r->arg;
	base = a & ~0x1fffffull;
	va = map_with_type(base, 0x200000, MT_UC_MINUS);
	if (!va)
		return "no-mapping-room";
	r->arg = va + (a - base);
	gsnprintf(c->extra, sizeof(c->extra), "memtype=UC- reg=0x00");
	return NULL;
}

static const char *s_ram_read(struct ctx *c, struct run *r)
{
	(void)c;
	r->loop = bench_loop_load;
	r->arg = (uintptr_t)&ram_word;
	return NULL;
}

struct msr_probe {
	uint32_t msr;
	uint64_t value;
	bool write;
};

static void do_msr(void *arg)
{
	struct msr_probe *m = arg;

	if (m->write)
		wrmsr(m->msr, m->value);
	else
		m->value = rdmsr(m->msr);
}

/* One access under guest_try decides how the loop runs: a #GP there
 * means every access will fault, so the loop gets the skipping IDT. */
static const char *msr(struct ctx *c, struct run *r, bool write)
{
	struct msr_probe m = { c->o->msr, c->o->msr_value, write };
	struct fault f;
	int vec = guest_try(do_msr, &m, &f);

	c->probe_ops = 1;
	r->loop = write ? bench_loop_wrmsr : bench_loop_rdmsr;
	r->arg = c->o->msr;
	r->value = c->o->msr_value;
	if (vec == VEC_GP) {
		r->gp_idt = true;
		gsnprintf(c->extra, sizeof(c->extra), "msr=%#x fault=gp",
			  c->o->msr);
		return NULL;
	}
	if (vec >= 0)
		return "unexpected-exception";
	if (write)
		gsnprintf(c->extra, sizeof(c->extra), "msr=%#x fault=none "
			  "value=%#llx", c->o->msr, (unsigned long long)m.value);
	else
		gsnprintf(c->extra, sizeof(c->extra), "msr=%#x fault=none "
			  "read=%#llx", c->o->msr, (unsigned long long)m.value);
	return NULL;
}

static const char *s_msr_read(struct ctx *c, struct run *r)
{
	return msr(c, r, false);
}

static const char *s_msr_write(struct ctx *c, struct run *r)
{
	return msr(c, r, true);
}

/* ---- system calls: the kernel side returns at once ---------------------- */

#define MSR_EFER	0xc0000080u
#define MSR_STAR	0xc0000081u
#define MSR_LSTAR	0xc0000082u
#define MSR_FMASK	0xc0000084u

void bench_sys_entry(void);
void bench_int80_entry(void);
__asm__(".text\n"
	".globl bench_sys_entry, bench_int80_entry\n"
	"bench_sys_entry: sysretq\n"
	"bench_int80_entry: iretq\n");

/* SYSCALL enabled and aimed at bench_sys_entry through a mapping ring 3
 * cannot use, as an OS maps its entry code (FMASK as Linux's: TF, IF, DF,
 * IOPL, AC, NT); an OS with a user mode sets this up, and a VMM
 * completing system calls may wait for it. */
static const char *sys_setup(struct ctx *c)
{
	uint64_t pa = (uintptr_t)bench_sys_entry, base = pa & ~0x1fffffull;
	uint64_t va = map_supervisor(base, 0x200000);

	if (!va)
		return "no-mapping-room";
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | 1);
	wrmsr(MSR_STAR, (uint64_t)GUEST_KERNEL_DS << 48 |
			(uint64_t)GUEST_KERNEL_CS << 32);
	wrmsr(MSR_LSTAR, va + (pa - base));
	wrmsr(MSR_FMASK, 0x47700);
	gsnprintf(c->extra, sizeof(c->extra), "lstar=%#llx",
		  (unsigned long long)(va + (pa - base)));
	return NULL;
}

static const char *s_syscall(struct ctx *c, struct run *r)
{
	r->loop = bench_loop_syscall;
	r->ref_mmio = c->p->null_mmio;
	return sys_setup(c);
}

static const char *s_int80(struct ctx *c, struct run *r)
{
	trap_set_gate(0x80, bench_int80_entry, 3, false);
	r->loop = bench_loop_int80;
	r->ref_mmio = c->p->null_mmio;
	return sys_setup(c);
}

static loop_fn bw_loop(const char *name)
{
	const char *kind = name + strlen(name) - 4;

	if (!strncmp(kind, "read", 4))
		return bw_read;
	return !strncmp(kind, "copy", 4) ? bw_copy : bw_write;
}

static const char *bw_setup(struct ctx *c, struct run *r, uint64_t pa,
			    uint64_t bytes, unsigned int mtrr, unsigned int t)
{
	uint64_t va = map_with_type(pa, (bytes + 0x1fffff) & ~0x1fffffull, t);

	if (!va)
		return "no-mapping-room";
	r->arg = va;
	r->value = bytes;
	r->bw = true;
	if (mtrr == 0xff)
		gsnprintf(c->extra, sizeof(c->extra), "memtype=%s bytes=%llu",
			  memtype_name(t), (unsigned long long)bytes);
	else
		gsnprintf(c->extra, sizeof(c->extra), "mtrr=%s memtype=%s "
			  "bytes=%llu bar1=%#llx", memtype_name(mtrr),
			  memtype_name(t), (unsigned long long)bytes,
			  (unsigned long long)c->p->bar1);
	return NULL;
}

/* BAR1 as memremap(MEMREMAP_WB) would map it: WB only over WB MTRRs. */
static const char *s_bar1(struct ctx *c, struct run *r)
{
	const struct platform *p = c->p;
	uint64_t bytes = c->o->bw_bytes;
	unsigned int mt;

	if (p->xen_bdf == BENCH_NO_BDF)
		return "no-xen-platform-device";
	if (!p->bar1 || p->bar1_size < 0x200000 || (p->bar1 & 0x1fffff))
		return "bar1-unusable";
	if (bytes > p->bar1_size)
		bytes = p->bar1_size;
	mtrr_read(&c->mtrr);
	mt = mtrr_range_type(&c->mtrr, p->bar1, p->bar1_size);
	return bw_setup(c, r, p->bar1, bytes, mt,
			mt == MT_WB ? MT_WB : MT_UC_MINUS);
}

static const char *s_ram_bw(struct ctx *c, struct run *r, unsigned int t)
{
	if (!c->p->ram_buf)
		return "not-enough-ram";
	return bw_setup(c, r, c->p->ram_buf, c->p->ram_buf_size, 0xff, t);
}

static const char *s_ramwb(struct ctx *c, struct run *r)
{
	return s_ram_bw(c, r, MT_WB);
}

static const char *s_ramuc(struct ctx *c, struct run *r)
{
	return s_ram_bw(c, r, MT_UC);
}

static const char *s_blk_rr(struct ctx *c, struct run *r)
{
	return blk_setup(c->p, r, true, 4096, VIRTIO_BLK_T_IN, 1);
}

static const char *s_blk_rr32(struct ctx *c, struct run *r)
{
	return blk_setup(c->p, r, true, 4096, VIRTIO_BLK_T_IN, 32);
}

static const char *s_blk_sr(struct ctx *c, struct run *r)
{
	return blk_setup(c->p, r, false, 1u << 20, VIRTIO_BLK_T_IN, 4);
}

static const char *s_blk_sw(struct ctx *c, struct run *r)
{
	return blk_setup(c->p, r, false, 1u << 20, VIRTIO_BLK_T_OUT, 4);
}

static const char *s_net(struct ctx *c, struct run *r, bool send,
			 uint32_t size)
{
	return net_setup(c->p, c->o->tsc_khz, r, send, size);
}

static const char *s_net_tx64(struct ctx *c, struct run *r)
{
	return s_net(c, r, true, 64);
}

static const char *s_net_tx1472(struct ctx *c, struct run *r)
{
	return s_net(c, r, true, 1472);
}

static const char *s_net_rx64(struct ctx *c, struct run *r)
{
	return s_net(c, r, false, 64);
}

static const char *s_net_rx1472(struct ctx *c, struct run *r)
{
	return s_net(c, r, false, 1472);
}

static const struct bcase {
	const char *name;
	int ring;
	setup_fn setup;
} all_cases[] = {
	{ "port_in", 0, s_port_in },
	{ "port_out", 0, s_port_out },
	{ "mmio_read", 0, s_mmio_read },
	{ "mmio_read", 3, s_mmio_read },
	{ "mmio_write", 0, s_mmio_write },
	{ "mmio_write", 3, s_mmio_write },
	{ "pci_cf8_read", 0, s_cf8_read },
	{ "pci_cf8_write", 0, s_cf8_write },
	{ "pci_ecam_read", 3, s_ecam_read },
	{ "pci_ecam_read", 0, s_ecam_read },
	{ "pci_ecam_read_uc", 3, s_ecam_read_uc },
	{ "pci_ecam_write", 3, s_ecam_write },
	{ "pci_ecam_write", 0, s_ecam_write },
	{ "ram_read", 3, s_ram_read },
	{ "ram_read", 0, s_ram_read },
	{ "msr_read", 0, s_msr_read },
	{ "msr_write", 0, s_msr_write },
	{ "bar1_read", 3, s_bar1 },
	{ "bar1_write", 3, s_bar1 },
	{ "bar1_copy", 3, s_bar1 },
	{ "ramwb_read", 3, s_ramwb },
	{ "ramwb_write", 3, s_ramwb },
	{ "ramwb_copy", 3, s_ramwb },
	{ "ramuc_read", 3, s_ramuc },
	{ "ramuc_write", 3, s_ramuc },
	{ "ramuc_copy", 3, s_ramuc },
	{ "blk_rand4k_qd1", 3, s_blk_rr },
	{ "blk_rand4k_qd32", 3, s_blk_rr32 },
	{ "blk_seqrd1m", 3, s_blk_sr },
	{ "blk_seqwr1m", 3, s_blk_sw },
	{ "net_tx_64", 3, s_net_tx64 },
	{ "net_tx_1472", 3, s_net_tx1472 },
	{ "net_rx_64", 3, s_net_rx64 },
	{ "net_rx_1472", 3, s_net_rx1472 },
	{ "syscall", 3, s_syscall },
	{ "int80", 3, s_int80 },
};

/* "all", or a comma list of NAME (every ring) and NAME:RING words. */
static bool selected(const char *list, const struct bcase *b)
{
	size_t kl = strlen(b->name);

	if (!strncmp(list, "all", 3) && (list[3] == 0 || list[3] == ' '))
		return true;
	for (const char *p = list; *p && *p != ' ';) {
		size_t l = 0;

		while (p[l] && p[l] != ',' && p[l] != ' ')
			l++;
		if (l >= kl && !strncmp(p, b->name, kl) &&
		    (l == kl || (l == kl + 2 && p[kl] == ':' &&
				 p[kl + 1] == '0' + b->ring)))
			return true;
		p += l;
		if (*p == ',')
			p++;
	}
	return false;
}

static int bench_run_cases(const struct platform *p,
			   const struct bench_opts *o)
{
	int ran = 0;

	for (size_t i = 0; i < sizeof(all_cases) / sizeof(all_cases[0]); i++) {
		const struct bcase *b = &all_cases[i];
		struct ctx c = { .p = p, .o = o };
		struct run r = { .ring = b->ring };
		const char *why;

		if (!selected(o->cases, b))
			continue;
		why = b->setup(&c, &r);
		if (why) {
			skip(b->name, b->ring, why);
			continue;
		}
		if (r.bw)
			r.loop = bw_loop(b->name);
		bench_gp_count = 0;
		time_case(b->name, &r, o, c.probe_ops, c.extra);
		ran++;
	}
	return ran;
}
