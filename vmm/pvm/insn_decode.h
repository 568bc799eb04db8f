/* SPDX-License-Identifier: MIT */
/*
 * Decoding the few guest instructions the VMM completes itself when the
 * host KVM's instruction emulator gives up on them (see emulate.h): int3,
 * cmpxchg16b, clac, stac, popcnt and fwait, and (emulate_sys.h) int n,
 * xgetbv, clwb, clflushopt, movbe, invpcid and rdpru, in 64-bit mode; and
 * the no-ops a fault handler may start with, which pvm/syscall steps over
 * (syscall_decode.h).  The decoder is Capstone's (one handle for the
 * process, shared by the vCPU threads); these are pure functions on byte
 * buffers, so they can be unit-tested and fuzzed.  Anything else decodes
 * as INSN_OTHER.
 */
#ifndef MINIVMM_INSN_DECODE_H
#define MINIVMM_INSN_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum insn_op {
	INSN_OTHER,		/* not one we emulate (or malformed) */
	INSN_INT3,		/* cc */
	INSN_CMPXCHG16B,	/* [lock] REX.W 0f c7 /1 m128 */
	INSN_CLAC,		/* 0f 01 ca */
	INSN_STAC,		/* 0f 01 cb */
	INSN_POPCNT,		/* f3 [REX] 0f b8 /r: reg = popcount(r/m) */
	INSN_FWAIT,		/* 9b */
	INSN_INT_N,		/* cd ib: imm = the vector */
	INSN_XGETBV,		/* 0f 01 d0 */
	INSN_RDPRU,		/* 0f 01 fd */
	INSN_CLWB,		/* 66 0f ae /6 m8 */
	INSN_CLFLUSHOPT,	/* 66 0f ae /7 m8 */
	INSN_MOVBE_LOAD,	/* [66|REX.W] 0f 38 f0 /r: reg = bswap(r/m) */
	INSN_MOVBE_STORE,	/* [66|REX.W] 0f 38 f1 /r: r/m = bswap(reg) */
	INSN_INVPCID,		/* 66 0f 38 82 /r: type reg, descriptor m128 */
	INSN_NOP,		/* 90 (not REX.B: xchg), 0f 1f /0 with any
				 * operand, endbr64, endbr32; not locked */
};

/* General registers in x86 encoding order (ModRM/SIB numbers). */
enum insn_reg {
	GPR_RAX, GPR_RCX, GPR_RDX, GPR_RBX, GPR_RSP, GPR_RBP, GPR_RSI, GPR_RDI,
	GPR_R8, GPR_R9, GPR_R10, GPR_R11, GPR_R12, GPR_R13, GPR_R14, GPR_R15,
	GPR_NONE = -1,
};

enum insn_seg { SEG_DEFAULT, SEG_FS, SEG_GS };

struct insn {
	enum insn_op op;
	unsigned int len;	/* bytes, prefixes included */
	unsigned int opsize;	/* operand bytes: 2, 4 or 8 (popcnt, movbe) */
	uint8_t imm;		/* INSN_INT_N */
	int reg;		/* ModRM.reg operand (enum insn_reg) */
	int rm_reg;		/* register r/m operand, GPR_NONE: memory */
	/* The memory operand: seg:[base + index*scale + disp], or
	 * [rip_next + disp] when rip_relative. */
	bool lock;
	bool addr32;		/* 0x67: the sum is truncated to 32 bits */
	bool rip_relative;
	enum insn_seg seg;	/* 64-bit mode: only fs and gs have a base */
	int base;		/* enum insn_reg */
	int index;		/* enum insn_reg */
	unsigned int scale;	/* 1, 2, 4, 8 */
	int64_t disp;
};

/* The longest x86 instruction. */
#define INSN_MAX_LEN	15

/* Decodes the instruction at the start of buf (n valid bytes), as 64-bit
 * code.  Returns the op (also in out->op). */
enum insn_op insn_decode64(const uint8_t *buf, size_t n, struct insn *out);

/* The operand's linear address: gpr[] indexed by enum insn_reg, rip the
 * instruction's own address, fs_base/gs_base the segment bases. */
uint64_t insn_linear_address(const struct insn *in, const uint64_t gpr[16],
			     uint64_t rip, uint64_t fs_base, uint64_t gs_base);

#endif
