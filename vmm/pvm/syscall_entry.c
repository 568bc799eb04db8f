// SPDX-License-Identifier: MIT
/* Breakpoint exits: system-call landings, int $0x80, genuine faults (see
 * syscall_entry.h). */
#include "vmm/pvm/syscall_entry.h"
#include "vmm/pvm/syscall_cpu.h"
#include "vmm/pvm/syscall_decode.h"
#include "vmm/pvm/insn_decode.h"
#include "vmm/host/quirks.h"
#include "vmm/vcpu.h"

#include <stdatomic.h>
#include <string.h>

#define EFER_SCE	1ull
#define RFLAGS_AC	(1ull << 18)
#define TSS_RSP0	4
#define TSS_IST1	36

/* --- genuine faults ---------------------------------------------------- */

static __u64 *gpr(struct kvm_regs *r, int reg)
{
	__u64 *const by_encoding[16] = { &r->rax, &r->rcx, &r->rdx,
		&r->rbx, &r->rsp, &r->rbp, &r->rsi, &r->rdi, &r->r8, &r->r9,
		&r->r10, &r->r11, &r->r12, &r->r13, &r->r14, &r->r15 };

	return by_encoding[reg & 15];
}

/* A handler starting with a push (the test library's push $0 / push
 * $vector) has it done here as the CPU would: 8 bytes below RSP through
 * the guest's page tables with its own RFLAGS.AC (SMAP applies); a push
 * that would fault is left to a single step, so the CPU raises it.  Saves
 * the step's second exit and its two KVM_SET_GUEST_DEBUG calls. */
static bool do_push(struct sc_fix *fx, struct sc_state *st,
		    const uint8_t *buf, size_t n)
{
	struct pw_cpu pw = sc_pw(st, 0);
	uint64_t val, rsp = st->r->rsp - 8, la_fault;
	unsigned int len;
	uint32_t err;
	int reg;

	len = sc_push_insn(buf, n, &reg, &val);
	if (!len)
		return false;
	/* Across a page pw_copy could write the first part and then fault:
	 * the CPU writes nothing then, so leave such a push to it. */
	if ((rsp & 0xfff) > 0x1000 - 8)
		return false;
	if (reg >= 0)
		val = *gpr(st->r, reg);		/* push rsp: the old value */
	pw.rflags = st->r->rflags;
	if (pw_copy(fx->mem, &pw, rsp, &val, 8, true, &la_fault, &err) !=
	    PW_OK)
		return false;
	st->r->rsp = rsp;
	st->r->rip += len;
	atomic_fetch_add(&fx->n.pushes, 1);
	return true;
}

/* Lets the guest's handler run: skips its first instruction when that
 * can be done here (Linux's handlers start with a NOP slot) or does its
 * push, else steps it with the breakpoints off. */
static bool pass_on(struct sc_fix *fx, struct vcpu *v, struct sc_state *st)
{
	uint8_t buf[INSN_MAX_LEN];
	unsigned int len;
	enum sc_first_insn k = SC_STEP;
	size_t n = sizeof(buf), to_end = 4096 - (st->r->rip & 4095);

	atomic_fetch_add(&fx->n.passed, 1);
	/* All of it, or what the handler's page holds. */
	if (sc_read(fx, st, 0, st->r->rip, buf, n) < 0) {
		n = to_end < n ? to_end : 0;
		if (n && sc_read(fx, st, 0, st->r->rip, buf, n) < 0)
			n = 0;
	}
	if (n)
		k = sc_first_insn(buf, n, &len);
	if (k == SC_STEP && n && do_push(fx, st, buf, n))
		return sc_state_commit(fx, v, st, false) == 0;
	if (k == SC_STEP)
		return sc_step(fx, v) == 0;
	if (k == SC_SKIP_CLAC)
		st->r->rflags &= ~RFLAGS_AC;
	else if (k == SC_SKIP_STAC)
		st->r->rflags |= RFLAGS_AC;
	st->r->rip += len;
	atomic_fetch_add(&fx->n.nop_skips, 1);
	return sc_state_commit(fx, v, st, false) == 0;
}

/* --- delivering through a gate ---------------------------------------- */

/* The code segment a gate's selector names, from the GDT (64-bit, DPL 0
 * code only: the only kind the CPU enters from ring 3 in long mode). */
static int gate_cs(struct sc_fix *fx, const struct sc_state *st,
		   uint16_t sel, struct kvm_segment *cs)
{
	uint64_t desc;

	if (sel == st->s->cs.selector) {
		*cs = st->s->cs;
		return 0;
	}
	if ((sel & 4) || (sel | 7u) > st->s->gdt.limit ||
	    sc_read(fx, st, 0, st->s->gdt.base + (sel & ~7u), &desc, 8))
		return -1;
	sc_desc_segment(desc, sel & ~3u, cs);
	if (!cs->present || !cs->s || !(cs->type & 8) || !cs->l || cs->dpl)
		return -1;
	return 0;
}

/*
 * Enters gate vec from ring 3 as the CPU does: the frame (SS, RSP,
 * RFLAGS, CS, return RIP, and the error code if any) on the gate's stack
 * (the TSS's RSP0, or its IST entry), CS:RIP from the gate, RF, TF, NT
 * and VM cleared, IF too through an interrupt gate.  The frame's RFLAGS
 * has RF set for a fault, clear for int n.  SS is already the null
 * selector the exception that stopped here loaded.
 */
struct event {
	unsigned int vec;
	uint64_t rip;		/* the return RIP in the frame */
	bool fault;		/* else int n */
	bool has_err;
	uint32_t err;
};

static int deliver(struct sc_fix *fx, struct vcpu *v, struct sc_state *st,
		   const struct event *ev, const struct sc_frame *user)
{
	unsigned int vec = ev->vec;
	uint8_t raw[SC_GATE_SIZE];
	struct sc_gate g;
	struct kvm_segment cs;
	uint64_t stack, q[6];
	unsigned int n = 0, off;

	if (vec * SC_GATE_SIZE + SC_GATE_SIZE - 1 > st->s->idt.limit ||
	    sc_read(fx, st, 0, st->s->idt.base + vec * SC_GATE_SIZE, raw,
		    sizeof(raw)))
		return -1;
	sc_gate_decode(raw, &g);
	if (!sc_gate_usable(&g) || gate_cs(fx, st, g.selector, &cs))
		return -1;
	off = g.ist ? TSS_IST1 + 8 * (g.ist - 1) : TSS_RSP0;
	if (sc_read(fx, st, 0, st->s->tr.base + off, &stack, 8))
		return -1;
	if (ev->has_err)
		q[n++] = ev->err;
	q[n++] = ev->rip;
	q[n++] = user->cs;
	q[n++] = ev->fault ? user->rflags | SC_RFLAGS_RF :
			     user->rflags & ~SC_RFLAGS_RF;
	q[n++] = user->rsp;
	q[n++] = user->ss;
	stack = (stack & ~15ull) - n * 8;
	if (sc_write(fx, st, stack, q, n * 8))
		return -1;
	st->r->rip = g.offset;
	st->r->rsp = stack;
	st->r->rflags = (user->rflags & ~(SC_RFLAGS_TF | SC_RFLAGS_NT |
			 SC_RFLAGS_RF | SC_RFLAGS_VM)) | SC_RFLAGS_FIXED;
	if (g.type == 0xe)
		st->r->rflags &= ~SC_RFLAGS_IF;
	st->s->cs = cs;
	return sc_state_commit(fx, v, st, true);
}

/* --- the landings ------------------------------------------------------ */

static int read_frame(struct sc_fix *fx, const struct sc_state *st,
		      bool has_err, struct sc_frame *f)
{
	uint64_t q[6];

	if (sc_read(fx, st, 0, st->r->rsp, q, (has_err ? 6 : 5) * 8))
		return -1;
	sc_frame_parse(q, has_err, f);
	return 0;
}

/* SYSCALL as the CPU does it in long mode: RIP from LSTAR (CSTAR for
 * 32-bit callers), CS and SS from STAR, RFLAGS minus FMASK (the host
 * masked them already); RSP stays the caller's.  RCX and R11 the host
 * set. */
static bool enter_syscall(struct sc_fix *fx, struct vcpu *v,
			  struct sc_state *st, const struct sc_frame *f,
			  enum sc_landing kind)
{
	struct sc_cpu *c = &fx->cpu[v->id];

	st->r->rip = kind == SC_SYSCALL64 ? c->lstar : c->cstar;
	st->r->rsp = f->rsp;
	st->r->rflags = sc_syscall_rflags(f->rflags, c->fmask);
	sc_star_segments(c->star, &st->s->cs, &st->s->ss);
	atomic_fetch_add(kind == SC_SYSCALL64 ? &fx->n.syscalls :
			 &fx->n.compat, 1);
	quirk_acted(fx->log, QUIRK_SYSCALL_FIX, 1);
	return sc_state_commit(fx, v, st, true) == 0;
}

static bool on_pf(struct sc_fix *fx, struct vcpu *v, struct sc_state *st)
{
	struct sc_cpu *c = &fx->cpu[v->id];
	enum sc_landing kind;
	struct sc_frame f;

	if (read_frame(fx, st, true, &f))
		return pass_on(fx, v, st);
	kind = sc_pf_landing(&f, st->s->cr2, st->r->r11, &(struct sc_targets){
		c->hw_lstar, c->hw_cstar, c->fmask, c->hw_lstar != c->lstar,
		c->hw_cstar != c->cstar });
	if (kind == SC_GENUINE)
		return pass_on(fx, v, st);
	if (!(st->s->efer & EFER_SCE)) {
		/* The CPU raises #UD at the SYSCALL itself (2 bytes before
		 * the return address in RCX). */
		struct event ev = { SC_VEC_UD, st->r->rcx - 2, true };

		f.rflags = st->r->r11;
		if (deliver(fx, v, st, &ev, &f))
			return pass_on(fx, v, st);
		atomic_fetch_add(&fx->n.passed, 1);
		return true;
	}
	return enter_syscall(fx, v, st, &f, kind);
}

/* `int n` from ring 3 (int $0x80 for system calls) raised #UD here.
 * Entered through gate n when the CPU would enter it (present, DPL 3);
 * otherwise the CPU's own fault: #NP for a gate not present, else #GP,
 * with the IDT error code. */
static bool on_ud(struct sc_fix *fx, struct vcpu *v, struct sc_state *st)
{
	uint8_t raw[SC_GATE_SIZE], bytes[2];
	uint16_t limit = st->s->idt.limit;
	struct sc_frame f;
	struct sc_gate g = { 0 };
	unsigned int fault = SC_VEC_GP;
	int n;

	if (read_frame(fx, st, false, &f) || (f.cs & 3) != 3 ||
	    sc_read(fx, st, 3, f.rip, bytes, 2))
		return pass_on(fx, v, st);
	n = sc_int_vector(bytes);
	if (n < 0)
		return pass_on(fx, v, st);
	if ((unsigned int)n * SC_GATE_SIZE + SC_GATE_SIZE - 1 <= limit &&
	    sc_read(fx, st, 0, st->s->idt.base + n * SC_GATE_SIZE, raw,
		    sizeof(raw)) == 0)
		sc_gate_decode(raw, &g);
	if (sc_gate_usable(&g) && g.dpl == 3) {
		struct event ev = { (unsigned int)n, f.rip + 2, false };

		if (deliver(fx, v, st, &ev, &f))
			return pass_on(fx, v, st);
		atomic_fetch_add(n == SC_VEC_INT80 ? &fx->n.int80 :
				 &fx->n.int_other, 1);
		quirk_acted(fx->log, QUIRK_SYSCALL_FIX, 1);
		return true;
	}
	if (!g.present && (g.type == 0xe || g.type == 0xf))
		fault = SC_VEC_NP;
	if (deliver(fx, v, st, &(struct event){ fault, f.rip, true, true,
						 sc_idt_error_code(n) }, &f))
		return pass_on(fx, v, st);
	atomic_fetch_add(&fx->n.passed, 1);
	return true;
}

bool sc_debug_exit(struct sc_fix *fx, struct vcpu *v)
{
	struct sc_cpu *c = &fx->cpu[v->id];
	bool stepped = c->stepping;
	struct sc_state st;
	int moved;

	if (sc_state_load(fx, v, &st))
		return false;
	if (stepped) {
		c->stepping = false;
		if (sc_arm(fx, v) < 0)
			return false;
	}
	/* The gates are re-read where they were found, without a walk,
	 * while IDTR and CR3 hold (a gate rewritten in place is seen); a
	 * breakpoint at neither handler walks the IDT afresh, in case its
	 * page was mapped elsewhere under the same CR3. */
	moved = sc_update_arming(fx, v, &st, false);
	if (moved == 0 && !stepped && st.r->rip != c->pf_handler &&
	    st.r->rip != c->ud_handler)
		moved = sc_update_arming(fx, v, &st, true);
	if (moved < 0)
		return false;
	if (c->pf_handler && st.r->rip == c->pf_handler)
		return on_pf(fx, v, &st);
	if (c->ud_handler && st.r->rip == c->ud_handler)
		return on_ud(fx, v, &st);
	/* The end of a step, or a breakpoint left where a handler was
	 * before the guest changed its IDT (moved now); anything else is
	 * not ours. */
	return stepped || moved;
}
