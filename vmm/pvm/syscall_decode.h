/* SPDX-License-Identifier: MIT */
/*
 * The pure half of the system-call completion (syscall.h): reading the
 * guest structures the CPU reads when it enters the kernel, and deciding
 * what an exception frame means.  Owns the formats (long-mode IDT gates,
 * code and data descriptors, STAR, the exception frame) and the decisions
 * made on them; no KVM, no guest memory access.
 */
#ifndef MINIVMM_SYSCALL_DECODE_H
#define MINIVMM_SYSCALL_DECODE_H

#include <linux/kvm.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SC_VEC_UD	6
#define SC_VEC_NP	11
#define SC_VEC_GP	13
#define SC_VEC_PF	14
#define SC_VEC_INT80	0x80

#define SC_GATE_SIZE	16	/* a long-mode IDT entry */

#define SC_RFLAGS_FIXED	(1ull << 1)
#define SC_RFLAGS_TF	(1ull << 8)
#define SC_RFLAGS_IF	(1ull << 9)
#define SC_RFLAGS_NT	(1ull << 14)
#define SC_RFLAGS_RF	(1ull << 16)
#define SC_RFLAGS_VM	(1ull << 17)

/* A long-mode IDT gate. */
struct sc_gate {
	uint64_t offset;	/* the handler's linear address */
	uint16_t selector;
	uint8_t ist;		/* 0: the TSS's RSP0, else IST1..7 */
	uint8_t type;		/* 0xe interrupt gate, 0xf trap gate */
	uint8_t dpl;
	bool present;
};

/* Decodes gate n of an IDT whose 16-byte entries start at raw. */
void sc_gate_decode(const uint8_t raw[SC_GATE_SIZE], struct sc_gate *g);
/* True if the gate can be taken at all: present, interrupt or trap. */
bool sc_gate_usable(const struct sc_gate *g);
/* The handler address the CPU would run for vector vec of an IDT of
 * limit bytes (IDTR.limit), given the gate's bytes; 0 if the vector lies
 * beyond the limit or the gate is not usable. */
uint64_t sc_gate_handler(const uint8_t raw[SC_GATE_SIZE], unsigned int vec,
			 uint16_t idt_limit);

/* CS and SS as SYSCALL loads them from STAR (bits 47:32): flat, DPL 0,
 * CS 64-bit code, SS the next selector, writable, 32-bit (B set).  The
 * same for callers in 64-bit and compatibility mode. */
void sc_star_segments(uint64_t star, struct kvm_segment *cs,
		      struct kvm_segment *ss);

/* A segment register as loading the 8-byte descriptor desc with selector
 * sel leaves it (the hidden part KVM keeps). */
void sc_desc_segment(uint64_t desc, uint16_t sel, struct kvm_segment *s);

/* The frame an exception from ring 3 leaves at the handler's RSP (error
 * code only for vectors that have one). */
struct sc_frame {
	uint64_t err, rip, cs, rflags, rsp, ss;
};

/* Fills f from the qwords at the handler's RSP (5, or 6 with an error
 * code first). */
void sc_frame_parse(const uint64_t *q, bool has_err, struct sc_frame *f);

enum sc_landing {
	SC_GENUINE,		/* a fault to pass on to the guest */
	SC_SYSCALL64,		/* SYSCALL from 64-bit code: enter at LSTAR */
	SC_SYSCALL_COMPAT,	/* SYSCALL from compatibility mode: CSTAR */
};

/* What KVM holds for the SYSCALL targets (0: not set) and FMASK. */
struct sc_targets {
	uint64_t lstar, cstar, fmask;	/* what KVM holds; the guest's FMASK */
	bool lstar_trap, cstar_trap;	/* KVM holds a trap address */
};

/*
 * What a #PF that reached the handler is.  This host runs a ring-3
 * SYSCALL on at the hardware's LSTAR (CSTAR from 32-bit code) still in
 * ring 3, with RCX and R11 set and RFLAGS masked, where the fetch faults:
 * a user-mode read (the host may add the reserved-bit flag for a page
 * the guest does not map) from CPL 3 whose RIP and CR2 are the target.
 * A program that jumps to the target itself faults alike, so RFLAGS must
 * tell: every FMASK bit clear and the rest equal to R11's.  Otherwise a
 * jump could hand the kernel a forged R11 (IOPL, IF) to return with; on
 * this host ring 3 always runs with IF set, so with IF in FMASK (as
 * Linux has it) no jump passes.  Where KVM holds a trap address, a
 * SYSCALL from ring 0 (which the host completes itself) lands there too,
 * as a supervisor fetch fault from CPL 0: that is a landing as well.
 */
enum sc_landing sc_pf_landing(const struct sc_frame *f, uint64_t cr2,
			      uint64_t r11, const struct sc_targets *t);

/* The RFLAGS SYSCALL leaves: the caller's minus FMASK and RF. */
uint64_t sc_syscall_rflags(uint64_t user_rflags, uint64_t fmask);

/* The vector of `int n` (cd nn) if the two bytes at a #UD from ring 3 are
 * one, else -1. */
int sc_int_vector(const uint8_t bytes[2]);

/* The error code of a fault raised by delivering through IDT entry vec
 * (IDT bit set, not external). */
static inline uint32_t sc_idt_error_code(unsigned int vec)
{
	return (vec << 3) | 2;
}

/*
 * What the first instruction of a handler is, for stepping over it when
 * a fault goes on to the guest: a no-op (nop, the multi-byte 0f 1f
 * forms, endbr64) that can be skipped, clac or stac (skipped with RFLAGS.AC
 * set accordingly), or something that must be single-stepped.
 */
enum sc_first_insn { SC_STEP, SC_SKIP, SC_SKIP_CLAC, SC_SKIP_STAC };

/* Decodes buf (n valid bytes; INSN_NOP, INSN_CLAC, INSN_STAC of
 * insn_decode.h); *len is the length to skip. */
enum sc_first_insn sc_first_insn(const uint8_t *buf, size_t n,
				 unsigned int *len);

/*
 * A push a handler often starts with (an error-code slot, a vector
 * number: push imm8 6a, push imm32 68, push r64 50+r with REX.B for
 * r8-r15), which the VMM can do in place of a single step.  The length,
 * or 0 if buf starts with none of these; *reg is the register (encoding
 * order: rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8...) or -1 for the
 * sign-extended *imm.
 */
unsigned int sc_push_insn(const uint8_t *buf, size_t n, int *reg,
			  uint64_t *imm);

#endif
