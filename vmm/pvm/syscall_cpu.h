/* SPDX-License-Identifier: MIT */
/*
 * The system-call completion's per-vCPU machinery (syscall.h has the
 * whole picture): what each vCPU's guest wrote to LSTAR, CSTAR, STAR and
 * FMASK and what KVM holds instead, the breakpoints armed on its #PF and
 * #UD handlers, the guest register state of the current exit (from
 * KVM_CAP_SYNC_REGS when the host has it, else the register ioctls),
 * guest memory reached through the guest's page tables, and the counters.
 * Every function runs on the vCPU's own thread.
 */
#ifndef MINIVMM_SYSCALL_CPU_H
#define MINIVMM_SYSCALL_CPU_H

#include <linux/kvm.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "vmm/x86/pagewalk.h"

struct quirk_log;
struct vcpu;

#define SC_MSR_STAR	0xc0000081u
#define SC_MSR_LSTAR	0xc0000082u
#define SC_MSR_CSTAR	0xc0000083u
#define SC_MSR_FMASK	0xc0000084u

struct sc_counters {
	atomic_uint_least64_t syscalls;		/* SYSCALL from 64-bit code */
	atomic_uint_least64_t compat;		/* SYSCALL from 32-bit code */
	atomic_uint_least64_t int80;		/* int $0x80 entries */
	atomic_uint_least64_t int_other;	/* other int n entries */
	atomic_uint_least64_t passed;		/* genuine faults passed on */
	atomic_uint_least64_t nop_skips;	/* of which by skipping */
	atomic_uint_least64_t pushes;		/* of which by doing its push */
	atomic_uint_least64_t steps;		/* of which by single-step */
	atomic_uint_least64_t rearms;		/* breakpoints moved */
	atomic_uint_least64_t traps;		/* LSTAR/CSTAR given a trap */
};

struct sc_cpu {
	/* What the guest wrote, and reads back. */
	uint64_t lstar, cstar, star, fmask;
	/* What KVM holds: the guest's value, or a trap address when the
	 * guest's page is user-executable (0: not set). */
	uint64_t hw_lstar, hw_cstar;
	/* The armed breakpoints (0: none). */
	uint64_t pf_handler, ud_handler;
	bool stepping;		/* single-stepping past a handler's start */
	/* Where the gates were last found: reused while IDTR and CR3 hold. */
	uint64_t idt_base, cr3;
	uint16_t idt_limit;
	uint64_t gate_gpa[2];	/* #PF, #UD; 0: not cached */
	uint64_t idt_page_gpa[2];	/* the IDT's first and last page */
	/* The IDT has had a gate ring 3 may call (int n, n >= 32). */
	bool user_gates;
};

struct sc_fix {
	struct gmem *mem;
	struct vcpu *vcpus;
	unsigned int ncpus;
	struct sc_cpu *cpu;	/* one per vCPU */
	bool sync_regs;		/* KVM_CAP_SYNC_REGS: registers in kvm_run */
	uint32_t step_flags;	/* extra KVM_GUESTDBG_* for single steps */
	struct sc_counters n;
	struct quirk_log *log;	/* counts the completed system calls */
	void *snap;		/* syscall.c's snapshot contexts */
};

/* The guest state of the current exit. */
struct sc_state {
	struct kvm_regs *r;
	struct kvm_sregs *s;
	struct kvm_regs rbuf;	/* without sync regs */
	struct kvm_sregs sbuf;
};

int sc_state_load(const struct sc_fix *fx, struct vcpu *v,
		  struct sc_state *st);
/* Hands modified registers back (sregs too when sregs is set). */
int sc_state_commit(const struct sc_fix *fx, struct vcpu *v,
		    struct sc_state *st, bool sregs);

/* The walk context of the state: cpl as given; SMAP never blocks the
 * VMM's own reads of guest structures. */
struct pw_cpu sc_pw(const struct sc_state *st, unsigned int cpl);
/* Guest memory at linear address la, as CPL cpl: 0 or -1 (fault, or not
 * RAM). */
int sc_read(struct sc_fix *fx, const struct sc_state *st, unsigned int cpl,
	    uint64_t la, void *buf, size_t len);
int sc_write(struct sc_fix *fx, const struct sc_state *st, uint64_t la,
	     const void *buf, size_t len);

/* Re-reads the #PF and #UD gates (where they were found, while IDTR and
 * CR3 hold, unless fresh) and moves the breakpoints if the handlers
 * changed.  1 if they moved, 0 if not, -1 if KVM refused. */
int sc_update_arming(struct sc_fix *fx, struct vcpu *v,
		     const struct sc_state *st, bool fresh);
/* Sets the breakpoints of c in KVM (none when nothing is armed). */
int sc_arm(struct sc_fix *fx, struct vcpu *v);
/* Single-steps one instruction with the breakpoints off; the next debug
 * exit re-arms them. */
int sc_step(struct sc_fix *fx, struct vcpu *v);

#endif
