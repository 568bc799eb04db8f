// SPDX-License-Identifier: MIT
/* Per-vCPU state, guest access and breakpoints of the system-call
 * completion (see syscall_cpu.h). */
#include "vmm/pvm/syscall_cpu.h"
#include "vmm/pvm/syscall_decode.h"
#include "vmm/memory.h"
#include "vmm/vcpu.h"

#include <string.h>
#include <sys/ioctl.h>

#define RFLAGS_AC	(1ull << 18)
#define DR7_FIXED	0x400ull	/* bit 10 reads as 1 */
#define DR7_ENABLE(n)	(3ull << (2 * (n)))	/* Ln and Gn; execute, 1 byte */

int sc_state_load(const struct sc_fix *fx, struct vcpu *v,
		  struct sc_state *st)
{
	if (fx->sync_regs) {
		st->r = &v->run->s.regs.regs;
		st->s = &v->run->s.regs.sregs;
		return 0;
	}
	st->r = &st->rbuf;
	st->s = &st->sbuf;
	if (ioctl(v->fd, KVM_GET_REGS, st->r) < 0 ||
	    ioctl(v->fd, KVM_GET_SREGS, st->s) < 0)
		return -1;
	return 0;
}

int sc_state_commit(const struct sc_fix *fx, struct vcpu *v,
		    struct sc_state *st, bool sregs)
{
	if (fx->sync_regs) {
		v->run->kvm_dirty_regs |= KVM_SYNC_X86_REGS |
					  (sregs ? KVM_SYNC_X86_SREGS : 0);
		return 0;
	}
	if (sregs && ioctl(v->fd, KVM_SET_SREGS, st->s) < 0)
		return -1;
	return ioctl(v->fd, KVM_SET_REGS, st->r) < 0 ? -1 : 0;
}

struct pw_cpu sc_pw(const struct sc_state *st, unsigned int cpl)
{
	return (struct pw_cpu){
		.cr0 = st->s->cr0, .cr3 = st->s->cr3, .cr4 = st->s->cr4,
		.efer = st->s->efer, .rflags = st->r->rflags | RFLAGS_AC,
		.cpl = cpl,
	};
}

int sc_read(struct sc_fix *fx, const struct sc_state *st, unsigned int cpl,
	    uint64_t la, void *buf, size_t len)
{
	struct pw_cpu pw = sc_pw(st, cpl);
	uint64_t la_fault;
	uint32_t err;

	return pw_copy(fx->mem, &pw, la, buf, len, false, &la_fault,
		       &err) == PW_OK ? 0 : -1;
}

int sc_write(struct sc_fix *fx, const struct sc_state *st, uint64_t la,
	     const void *buf, size_t len)
{
	struct pw_cpu pw = sc_pw(st, 0);
	uint64_t la_fault;
	uint32_t err;

	return pw_copy(fx->mem, &pw, la, (void *)buf, len, true, &la_fault,
		       &err) == PW_OK ? 0 : -1;
}

/* --- breakpoints ----------------------------------------------------- */

static int set_debug(struct vcpu *v, uint32_t control, const uint64_t bp[2])
{
	struct kvm_guest_debug dbg;

	memset(&dbg, 0, sizeof(dbg));
	dbg.control = control;
	dbg.arch.debugreg[7] = DR7_FIXED;
	for (int i = 0; i < 2; i++) {
		if (!bp[i])
			continue;
		dbg.arch.debugreg[i] = bp[i];
		dbg.arch.debugreg[7] |= DR7_ENABLE(i);
	}
	return ioctl(v->fd, KVM_SET_GUEST_DEBUG, &dbg);
}

int sc_arm(struct sc_fix *fx, struct vcpu *v)
{
	struct sc_cpu *c = &fx->cpu[v->id];
	uint64_t bp[2] = { c->pf_handler, c->ud_handler };
	uint32_t control = 0;

	/* KVM's hardware breakpoints work here although
	 * KVM_CAP_GUEST_DEBUG_HW_BPS reads 0 (shared/reference/). */
	if (bp[0] || bp[1])
		control = KVM_GUESTDBG_ENABLE | KVM_GUESTDBG_USE_HW_BP;
	return set_debug(v, control, bp);
}

int sc_step(struct sc_fix *fx, struct vcpu *v)
{
	struct sc_cpu *c = &fx->cpu[v->id];
	const uint64_t none[2] = { 0, 0 };

	if (set_debug(v, KVM_GUESTDBG_ENABLE | KVM_GUESTDBG_SINGLESTEP |
		      fx->step_flags, none) < 0)
		return -1;
	c->stepping = true;
	atomic_fetch_add(&fx->n.steps, 1);
	return 0;
}

/* --- the gates --------------------------------------------------------- */

static const unsigned int gate_vec[2] = { SC_VEC_PF, SC_VEC_UD };

/* Finds where gate i lives (a 16-byte gate never crosses a page). */
static uint64_t gate_gpa(struct sc_fix *fx, const struct sc_state *st,
			 unsigned int i)
{
	struct pw_cpu pw = sc_pw(st, 0);
	uint64_t gpa;
	uint32_t err;

	if ((uint32_t)gate_vec[i] * SC_GATE_SIZE + SC_GATE_SIZE - 1 >
	    st->s->idt.limit)
		return 0;
	if (pagewalk(fx->mem, &pw, st->s->idt.base +
		     gate_vec[i] * SC_GATE_SIZE, false, &gpa, &err) != PW_OK)
		return 0;
	return gpa;
}

static uint64_t handler(struct sc_fix *fx, uint64_t gpa, unsigned int vec,
			uint16_t limit)
{
	const uint8_t *raw;

	if (!gpa)
		return 0;
	raw = gmem_ptr(fx->mem, gpa, SC_GATE_SIZE);
	return raw ? sc_gate_handler(raw, vec, limit) : 0;
}

static uint64_t page_gpa(struct sc_fix *fx, const struct sc_state *st,
			 uint64_t la)
{
	struct pw_cpu pw = sc_pw(st, 0);
	uint64_t gpa;
	uint32_t err;

	if (pagewalk(fx->mem, &pw, la & ~0xfffull, false, &gpa, &err) != PW_OK)
		return 0;
	return gpa;
}

/* True if the IDT has a gate ring 3 may take with `int n` above the
 * exceptions (int $0x80, a test's int $0x20): present, DPL 3, interrupt
 * or trap.  Looks at the type byte of each gate only: this runs at every
 * exit of a vCPU not yet armed. */
static bool scan_user_gates(struct sc_fix *fx, const struct sc_cpu *c)
{
	unsigned int n = (c->idt_limit + 1u) / SC_GATE_SIZE;

	for (unsigned int v = 32; v < n && v < 256; v++) {
		uint64_t la = c->idt_base + v * SC_GATE_SIZE;
		uint64_t pg = c->idt_page_gpa[(la >> 12) != (c->idt_base >> 12)];
		const uint8_t *attr;

		if (!pg || (la & 0xfff) > 0x1000 - SC_GATE_SIZE)
			continue;
		attr = gmem_ptr(fx->mem, pg + (la & 0xfff) + 5, 1);
		if (attr && (*attr & 0xee) == 0xee)	/* P, DPL 3, 0xe/0xf */
			return true;
	}
	return false;
}

/* The handlers the breakpoints belong on: none before the guest has
 * given SYSCALL a target or opened a gate to ring 3 (a guest without
 * user mode pays nothing), and #UD only where it differs from #PF
 * (frames cannot tell them apart). */
static void wanted(struct sc_fix *fx, struct sc_cpu *c,
		   const struct sc_state *st, bool fresh, uint64_t out[2])
{
	uint64_t cr3 = st->s->cr3 & 0x000ffffffffff000ull;

	out[0] = out[1] = 0;
	if (fresh || c->idt_base != st->s->idt.base ||
	    c->idt_limit != st->s->idt.limit || c->cr3 != cr3) {
		c->idt_base = st->s->idt.base;
		c->idt_limit = st->s->idt.limit;
		c->cr3 = cr3;
		for (unsigned int i = 0; i < 2; i++)
			c->gate_gpa[i] = gate_gpa(fx, st, i);
		c->idt_page_gpa[0] = page_gpa(fx, st, c->idt_base);
		c->idt_page_gpa[1] = page_gpa(fx, st, c->idt_base +
					      c->idt_limit);
	}
	if (!c->hw_lstar && !c->hw_cstar && !c->user_gates &&
	    !(c->user_gates = scan_user_gates(fx, c)))
		return;
	for (unsigned int i = 0; i < 2; i++)
		out[i] = handler(fx, c->gate_gpa[i], gate_vec[i], c->idt_limit);
	if (out[1] == out[0])
		out[1] = 0;
}

int sc_update_arming(struct sc_fix *fx, struct vcpu *v,
		     const struct sc_state *st, bool fresh)
{
	struct sc_cpu *c = &fx->cpu[v->id];
	uint64_t want[2];

	wanted(fx, c, st, fresh, want);
	if (want[0] == c->pf_handler && want[1] == c->ud_handler)
		return 0;
	c->pf_handler = want[0];
	c->ud_handler = want[1];
	atomic_fetch_add(&fx->n.rearms, 1);
	if (c->stepping)	/* armed when the step ends */
		return 1;
	return sc_arm(fx, v) < 0 ? -1 : 1;
}
