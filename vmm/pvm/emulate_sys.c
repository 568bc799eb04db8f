// SPDX-License-Identifier: MIT
/* The second set of completed instructions; see emulate_sys.h. */
#include "vmm/pvm/emulate_sys.h"
#include "vmm/pvm/syscall_decode.h"
#include "vmm/memory.h"
#include "vmm/run/stats.h"
#include "vmm/vcpu.h"

#include <cjson/cJSON.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#define VEC_UD		6
#define VEC_NP		11
#define VEC_GP		13
#define VEC_PF		14
#define CR4_PGE		(1ull << 7)
#define CR4_OSXSAVE	(1ull << 18)
#define CR4_PCIDE	(1ull << 17)
#define CPUID_MAX	256

enum { N_INT, N_XGETBV, N_CACHE, N_MOVBE, N_INVPCID, N_FAULTS, N_COUNTERS };

static atomic_uint_least64_t counts[N_COUNTERS];
static atomic_bool reporter_added;

/* --- guest state --------------------------------------------------------- */

static __u64 *gpr(struct kvm_regs *r, int n)
{
	__u64 *const p[16] = {
		&r->rax, &r->rcx, &r->rdx, &r->rbx, &r->rsp, &r->rbp, &r->rsi,
		&r->rdi, &r->r8, &r->r9, &r->r10, &r->r11, &r->r12, &r->r13,
		&r->r14, &r->r15,
	};

	return p[n & 15];
}

static uint64_t linear(const struct sys_insn *c, const struct insn *in)
{
	uint64_t g[16];

	for (int i = 0; i < 16; i++)
		g[i] = *gpr(c->r, i);
	return insn_linear_address(in, g, c->r->rip, c->s->fs.base,
				   c->s->gs.base);
}

/* Queues exception vec (with error code err if has_err) or, for an int n,
 * interrupt vec, for delivery at the next entry. */
static bool deliver(const struct sys_insn *c, unsigned int vec, bool irq,
		    bool has_err, uint32_t err)
{
	struct kvm_vcpu_events ev;

	if (ioctl(c->v->fd, KVM_GET_VCPU_EVENTS, &ev) < 0 ||
	    ev.exception.injected || ev.exception.pending ||
	    ev.interrupt.injected)
		return false;	/* something else is in flight: not ours */
	if (irq) {
		ev.interrupt.injected = 1;
		ev.interrupt.nr = (uint8_t)vec;
		ev.interrupt.soft = 0;
	} else {
		ev.exception.injected = 1;
		ev.exception.nr = (uint8_t)vec;
		ev.exception.has_error_code = has_err;
		ev.exception.error_code = err;
		atomic_fetch_add(&counts[N_FAULTS], 1);
	}
	ev.flags = 0;
	return ioctl(c->v->fd, KVM_SET_VCPU_EVENTS, &ev) == 0;
}

static bool fault(const struct sys_insn *c, unsigned int vec)
{
	return deliver(c, vec, false, vec == VEC_GP, 0);
}

static bool page_fault(const struct sys_insn *c, uint64_t la, uint32_t err)
{
	c->s->cr2 = la;
	if (ioctl(c->v->fd, KVM_SET_SREGS, c->s) < 0)
		return false;
	return deliver(c, VEC_PF, false, true, err);
}

/* The instruction is done: RIP past it. */
static bool retire(const struct sys_insn *c, const struct insn *in, int what)
{
	c->r->rip += in->len;
	if (ioctl(c->v->fd, KVM_SET_REGS, c->r) < 0)
		return false;
	atomic_fetch_add(&counts[what], 1);
	return true;
}

/* Copies len bytes between buf and guest linear memory at la, page by
 * page through the guest's tables (RAM only).  PW_FAULT sets *la_fault
 * and *err. */
static enum pw_result copy(const struct sys_insn *c, uint64_t la, void *buf,
			   size_t len, bool write, uint64_t *la_fault,
			   uint32_t *err)
{
	for (size_t done = 0; done < len;) {
		uint64_t gpa, chunk = 4096 - ((la + done) & 4095);
		enum pw_result r;
		uint8_t *p;

		r = pagewalk(c->mem, &c->pw, la + done, write, &gpa, err);
		if (r == PW_FAULT)
			*la_fault = la + done;
		if (r != PW_OK)
			return r;
		if (chunk > len - done)
			chunk = len - done;
		p = gmem_ptr(c->mem, gpa, chunk);
		if (!p)
			return PW_UNSUPPORTED;
		if (write)
			memcpy(p, (uint8_t *)buf + done, chunk);
		else
			memcpy((uint8_t *)buf + done, p, chunk);
		done += chunk;
	}
	return PW_OK;
}

/* A memory access of the operand: true if it completed (*ok then says
 * whether the caller goes on), the #PF injected, or the failure left. */
static bool access_mem(const struct sys_insn *c, uint64_t la, void *buf,
		       size_t len, bool write, bool *ok)
{
	uint64_t la_fault = la;
	uint32_t err = 0;

	*ok = false;
	switch (copy(c, la, buf, len, write, &la_fault, &err)) {
	case PW_OK:
		*ok = true;
		return true;
	case PW_FAULT:
		return page_fault(c, la_fault, err);
	default:
		return false;
	}
}

/* The vCPU's CPUID bit (reg 0-3 = eax-edx). */
static bool cpuid_has(const struct sys_insn *c, uint32_t leaf,
		      uint32_t subleaf, int reg, unsigned int bit)
{
	struct kvm_cpuid2 *t = calloc(1, sizeof(*t) + CPUID_MAX *
				      sizeof(t->entries[0]));
	bool has = false;

	if (!t)
		return false;
	t->nent = CPUID_MAX;
	if (ioctl(c->v->fd, KVM_GET_CPUID2, t) == 0)
		for (uint32_t i = 0; i < t->nent; i++) {
			const struct kvm_cpuid_entry2 *e = &t->entries[i];
			uint32_t r[4] = { e->eax, e->ebx, e->ecx, e->edx };

			if (e->function == leaf && e->index == subleaf)
				has = r[reg] >> bit & 1;
		}
	free(t);
	return has;
}

/* --- the instructions ------------------------------------------------ */

/* The CPU's checks before it enters gate vec for int n from ring 0, which
 * the host's event injection skips: a vector beyond the IDT limit is
 * #GP(vec*8+2), a gate not present #NP(vec*8+2), a null code selector
 * #GP(0), one beyond the GDT #GP(sel), a code segment not present
 * #NP(sel).  The fault's vector (*err its error code), or 0 to deliver;
 * tables that cannot be read, and LDT selectors, are left to the host. */
static unsigned int int_n_fault(const struct sys_insn *c, unsigned int vec,
				uint32_t *err)
{
	uint8_t raw[SC_GATE_SIZE], desc[8];
	uint64_t la_fault;
	struct sc_gate g;

	*err = vec * 8 + 2;
	if (vec * SC_GATE_SIZE + SC_GATE_SIZE - 1 > c->s->idt.limit)
		return VEC_GP;
	if (copy(c, c->s->idt.base + vec * SC_GATE_SIZE, raw, sizeof(raw),
		 false, &la_fault, err) != PW_OK)
		return 0;
	sc_gate_decode(raw, &g);
	*err = vec * 8 + 2;
	if (!g.present)
		return VEC_NP;
	*err = g.selector & 0xfffc;
	if (!*err)
		return VEC_GP;
	if (g.selector & 4)
		return 0;
	if ((g.selector | 7u) > c->s->gdt.limit)
		return VEC_GP;
	if (copy(c, c->s->gdt.base + (g.selector & ~7u), desc, sizeof(desc),
		 false, &la_fault, err) != PW_OK)
		return 0;
	*err = g.selector & 0xfffc;
	return desc[5] & 0x80 ? 0 : VEC_NP;
}

static bool do_int_n(const struct sys_insn *c, const struct insn *in)
{
	unsigned int vec;
	uint32_t err;

	if (c->pw.cpl != 0)
		return false;
	vec = int_n_fault(c, in->imm, &err);
	if (vec)	/* a fault: RIP stays at the int */
		return deliver(c, vec, false, true, err);
	c->r->rip += in->len;
	if (ioctl(c->v->fd, KVM_SET_REGS, c->r) < 0)
		return false;
	if (!deliver(c, in->imm, true, false, 0)) {
		c->r->rip -= in->len;	/* leave the state as reported */
		ioctl(c->v->fd, KVM_SET_REGS, c->r);
		return false;
	}
	atomic_fetch_add(&counts[N_INT], 1);
	return true;
}

static bool do_xgetbv(const struct sys_insn *c, const struct insn *in)
{
	struct kvm_xcrs xcrs;
	uint32_t ecx = (uint32_t)c->r->rcx;
	uint64_t v = 0;

	if (!(c->s->cr4 & CR4_OSXSAVE))
		return fault(c, VEC_UD);
	if (ecx > 1 || (ecx == 1 && !cpuid_has(c, 0xd, 1, 0, 2)))
		return fault(c, VEC_GP);
	if (ioctl(c->v->fd, KVM_GET_XCRS, &xcrs) < 0)
		return false;
	for (uint32_t i = 0; i < xcrs.nr_xcrs && i < KVM_MAX_XCRS; i++)
		if (xcrs.xcrs[i].xcr == 0)
			v = xcrs.xcrs[i].value;
	c->r->rax = (uint32_t)v;
	c->r->rdx = v >> 32;
	return retire(c, in, N_XGETBV);
}

static bool do_cache(const struct sys_insn *c, const struct insn *in)
{
	uint8_t b;
	bool ok;

	if (!access_mem(c, linear(c, in), &b, 1, false, &ok))
		return false;
	return !ok || retire(c, in, N_CACHE);
}

static uint64_t bswap(uint64_t v, unsigned int size)
{
	return size == 8 ? __builtin_bswap64(v) :
	       size == 4 ? __builtin_bswap32((uint32_t)v) :
	       __builtin_bswap16((uint16_t)v);
}

static bool do_movbe(const struct sys_insn *c, const struct insn *in)
{
	uint64_t la, v = 0;
	__u64 *reg;
	bool ok, store = in->op == INSN_MOVBE_STORE;

	if (in->rm_reg != GPR_NONE)
		return fault(c, VEC_UD);
	la = linear(c, in);
	reg = gpr(c->r, in->reg);
	if (store) {
		v = bswap(*reg, in->opsize);
		if (!access_mem(c, la, &v, in->opsize, true, &ok))
			return false;
		return !ok || retire(c, in, N_MOVBE);
	}
	if (!access_mem(c, la, &v, in->opsize, false, &ok))
		return false;
	if (!ok)
		return true;
	v = bswap(v, in->opsize);
	if (in->opsize == 2)
		*reg = (*reg & ~0xffffull) | v;
	else
		*reg = v;	/* a 32-bit destination is zero-extended */
	return retire(c, in, N_MOVBE);
}

static bool canonical(uint64_t a, const struct sys_insn *c)
{
	unsigned int bits = c->s->cr4 & (1ull << 12) ? 57 : 48;

	return (uint64_t)((int64_t)(a << (64 - bits)) >> (64 - bits)) == a;
}

/* A full flush: toggling CR4.PGE makes KVM reset the vCPU's MMU. */
static bool flush_all(const struct sys_insn *c)
{
	c->s->cr4 ^= CR4_PGE;
	if (ioctl(c->v->fd, KVM_SET_SREGS, c->s) < 0)
		return false;
	c->s->cr4 ^= CR4_PGE;
	return ioctl(c->v->fd, KVM_SET_SREGS, c->s) == 0;
}

static bool do_invpcid(const struct sys_insn *c, const struct insn *in)
{
	uint64_t type, d[2];
	bool ok;

	if (in->rm_reg != GPR_NONE || !cpuid_has(c, 7, 0, 1, 10))
		return fault(c, VEC_UD);
	if (c->pw.cpl != 0)
		return fault(c, VEC_GP);
	type = *gpr(c->r, in->reg);
	if (!c->long64)
		type = (uint32_t)type;
	if (!access_mem(c, linear(c, in), d, sizeof(d), false, &ok))
		return false;
	if (!ok)
		return true;
	if (type > 3 || (d[0] >> 12) || (type == 0 && !canonical(d[1], c)) ||
	    (type <= 1 && !(c->s->cr4 & CR4_PCIDE) && (d[0] & 0xfff)))
		return fault(c, VEC_GP);
	return flush_all(c) && retire(c, in, N_INVPCID);
}

static bool do_rdpru(const struct sys_insn *c)
{
	return !cpuid_has(c, 0x80000008u, 0, 1, 4) && fault(c, VEC_UD);
}

/* --- stats ------------------------------------------------------------- */

static const char *const names[N_COUNTERS] = {
	"int_n", "xgetbv", "clwb_clflushopt", "movbe", "invpcid", "faults",
};

static void print_stats(void *ctx, FILE *out)
{
	(void)ctx;
	fputs("instructions completed by minivmm (more):\n ", out);
	for (int i = 0; i < N_COUNTERS; i++)
		fprintf(out, " %s %llu", names[i],
			(unsigned long long)atomic_load(&counts[i]));
	fputc('\n', out);
}

static void json_stats(void *ctx, cJSON *root)
{
	cJSON *o = cJSON_AddObjectToObject(root, "emulated_more");

	(void)ctx;
	for (int i = 0; i < N_COUNTERS; i++)
		cJSON_AddNumberToObject(o, names[i],
					(double)atomic_load(&counts[i]));
}

bool emulate_sys(const struct sys_insn *c, const struct insn *in)
{
	bool no = false, ok = false;

	switch (in->op) {
	case INSN_INT_N:	ok = do_int_n(c, in); break;
	case INSN_XGETBV:	ok = do_xgetbv(c, in); break;
	case INSN_CLWB:
	case INSN_CLFLUSHOPT:	ok = c->long64 && do_cache(c, in); break;
	case INSN_MOVBE_LOAD:
	case INSN_MOVBE_STORE:	ok = c->long64 && do_movbe(c, in); break;
	case INSN_INVPCID:	ok = c->long64 && do_invpcid(c, in); break;
	case INSN_RDPRU:	ok = do_rdpru(c); break;
	default:		break;
	}
	if (ok && atomic_compare_exchange_strong(&reporter_added, &no, true))
		stats_add_reporter(c->stats, (struct stats_reporter){
			print_stats, json_stats, NULL });
	return ok;
}
