// SPDX-License-Identifier: MIT
/* The emulation decoder: each instruction it accepts, with every memory
 * operand form, and the near misses it must refuse (register operand, no
 * REX.W, 66/f3 prefixes, truncated buffers, other opcodes); what is done
 * around Capstone 4 (prefixes in any order, REX placement, encodings it
 * lacks or misnames); the no-ops; vCPU threads decoding at once. */
#include "tests/unit/unit.h"
#include "vmm/pvm/insn_decode.h"

#include <pthread.h>

static struct insn in;

static enum insn_op dec(const uint8_t *b, size_t n)
{
	return insn_decode64(b, n, &in);
}

#define DEC(...) ({ static const uint8_t _b[] = { __VA_ARGS__ }; \
		    dec(_b, sizeof(_b)); })

START_TEST(int3_alone)
{
	ck_assert_int_eq(DEC(0xcc, 0x90, 0x90), INSN_INT3);
	ck_assert_uint_eq(in.len, 1);
	/* A prefixed cc is not the one-byte trap we step over. */
	ck_assert_int_eq(DEC(0x48, 0xcc), INSN_OTHER);
	ck_assert_int_eq(DEC(0x90), INSN_NOP);	/* not one emulate.c does */
}
END_TEST

START_TEST(clac_stac)
{
	ck_assert_int_eq(DEC(0x0f, 0x01, 0xca), INSN_CLAC);
	ck_assert_uint_eq(in.len, 3);
	ck_assert_int_eq(DEC(0x0f, 0x01, 0xcb), INSN_STAC);
	ck_assert_int_eq(DEC(0x0f, 0x01, 0xc9), INSN_OTHER);	/* mwait */
	ck_assert_int_eq(DEC(0x0f, 0x01), INSN_OTHER);
	ck_assert_int_eq(DEC(0x66, 0x0f, 0x01, 0xca), INSN_OTHER);
}
END_TEST

/* lock cmpxchg16b 0x20(%rbp), as Linux's SLUB emits it. */
START_TEST(cmpxchg16b_base_disp8)
{
	ck_assert_int_eq(DEC(0xf0, 0x48, 0x0f, 0xc7, 0x4d, 0x20, 0x74),
			 INSN_CMPXCHG16B);
	ck_assert_uint_eq(in.len, 6);
	ck_assert(in.lock);
	ck_assert_int_eq(in.base, GPR_RBP);
	ck_assert_int_eq(in.index, GPR_NONE);
	ck_assert_int_eq(in.disp, 0x20);
	ck_assert(!in.rip_relative);
	ck_assert_int_eq(in.seg, SEG_DEFAULT);
}
END_TEST

/* %gs:(%rsi) with REX.B: lock cmpxchg16b %gs:(%r14). */
START_TEST(cmpxchg16b_gs_rexb)
{
	ck_assert_int_eq(DEC(0x65, 0xf0, 0x49, 0x0f, 0xc7, 0x0e),
			 INSN_CMPXCHG16B);
	ck_assert_uint_eq(in.len, 6);
	ck_assert_int_eq(in.seg, SEG_GS);
	ck_assert_int_eq(in.base, GPR_R14);
	ck_assert_int_eq(in.disp, 0);
}
END_TEST

/* SIB: cmpxchg16b -0x10(%rax,%r9,8) and disp32 with no base. */
START_TEST(cmpxchg16b_sib)
{
	ck_assert_int_eq(DEC(0x4a, 0x0f, 0xc7, 0x4c, 0xc8, 0xf0),
			 INSN_CMPXCHG16B);
	ck_assert_uint_eq(in.len, 6);
	ck_assert(!in.lock);
	ck_assert_int_eq(in.base, GPR_RAX);
	ck_assert_int_eq(in.index, GPR_R9);
	ck_assert_uint_eq(in.scale, 8);
	ck_assert_int_eq(in.disp, -0x10);

	/* mod 0, SIB base 101: no base, disp32; index 100: none. */
	ck_assert_int_eq(DEC(0x48, 0x0f, 0xc7, 0x0c, 0x25,
			     0x00, 0x10, 0x00, 0x00), INSN_CMPXCHG16B);
	ck_assert_uint_eq(in.len, 9);
	ck_assert_int_eq(in.base, GPR_NONE);
	ck_assert_int_eq(in.index, GPR_NONE);
	ck_assert_int_eq(in.disp, 0x1000);

	/* SIB base 101 with mod 1 is %rbp (or %r13 with REX.B). */
	ck_assert_int_eq(DEC(0x49, 0x0f, 0xc7, 0x4c, 0x24, 0x08),
			 INSN_CMPXCHG16B);
	ck_assert_int_eq(in.base, GPR_R12);
	ck_assert_int_eq(DEC(0x49, 0x0f, 0xc7, 0x4c, 0x25, 0x08),
			 INSN_CMPXCHG16B);
	ck_assert_int_eq(in.base, GPR_R13);
}
END_TEST

START_TEST(cmpxchg16b_rip_relative)
{
	uint64_t g[16] = { 0 };

	ck_assert_int_eq(DEC(0x48, 0x0f, 0xc7, 0x0d, 0xf0, 0xff, 0xff, 0xff),
			 INSN_CMPXCHG16B);
	ck_assert(in.rip_relative);
	ck_assert_uint_eq(in.len, 8);
	ck_assert_int_eq(in.disp, -16);
	ck_assert_uint_eq(insn_linear_address(&in, g, 0x1000, 0, 0),
			  0x1000 + 8 - 16);
}
END_TEST

START_TEST(refusals)
{
	/* No REX.W: cmpxchg8b. */
	ck_assert_int_eq(DEC(0x0f, 0xc7, 0x0e), INSN_OTHER);
	/* Register operand (mod 3). */
	ck_assert_int_eq(DEC(0x48, 0x0f, 0xc7, 0xce), INSN_OTHER);
	/* ModRM.reg 6 (vmptrld). */
	ck_assert_int_eq(DEC(0x48, 0x0f, 0xc7, 0x36), INSN_OTHER);
	/* 66 / f3 prefixes. */
	ck_assert_int_eq(DEC(0x66, 0x48, 0x0f, 0xc7, 0x0e), INSN_OTHER);
	ck_assert_int_eq(DEC(0xf3, 0x48, 0x0f, 0xc7, 0x0e), INSN_OTHER);
	/* A REX before a legacy prefix does not count. */
	ck_assert_int_eq(DEC(0x48, 0xf0, 0x0f, 0xc7, 0x0e), INSN_OTHER);
	/* Truncated: displacement, SIB, ModRM missing. */
	ck_assert_int_eq(DEC(0x48, 0x0f, 0xc7, 0x8e, 0x00, 0x01), INSN_OTHER);
	ck_assert_int_eq(DEC(0x48, 0x0f, 0xc7, 0x0c), INSN_OTHER);
	ck_assert_int_eq(DEC(0x48, 0x0f, 0xc7), INSN_OTHER);
	ck_assert_int_eq(dec(NULL, 0), INSN_OTHER);
}
END_TEST

/* popcnt %rdi,%rax as Linux's hweight64 alternative emits it; the
 * operand sizes; a memory source; the near misses. */
START_TEST(popcnt_forms)
{
	ck_assert_int_eq(DEC(0xf3, 0x48, 0x0f, 0xb8, 0xc7, 0x41), INSN_POPCNT);
	ck_assert_uint_eq(in.len, 5);
	ck_assert_uint_eq(in.opsize, 8);
	ck_assert_int_eq(in.reg, GPR_RAX);
	ck_assert_int_eq(in.rm_reg, GPR_RDI);
	/* popcnt %r9d,%r10d (REX.R, REX.B, 32-bit) */
	ck_assert_int_eq(DEC(0xf3, 0x45, 0x0f, 0xb8, 0xd1), INSN_POPCNT);
	ck_assert_uint_eq(in.opsize, 4);
	ck_assert_int_eq(in.reg, GPR_R10);
	ck_assert_int_eq(in.rm_reg, GPR_R9);
	/* popcnt 8(%rsi),%cx */
	ck_assert_int_eq(DEC(0x66, 0xf3, 0x0f, 0xb8, 0x4e, 0x08), INSN_POPCNT);
	ck_assert_uint_eq(in.opsize, 2);
	ck_assert_int_eq(in.reg, GPR_RCX);
	ck_assert_int_eq(in.rm_reg, GPR_NONE);
	ck_assert_int_eq(in.base, GPR_RSI);
	ck_assert_int_eq(in.disp, 8);
	ck_assert_uint_eq(in.len, 6);
	/* Without f3 it is jmpe / undefined; with f2 or lock, not popcnt. */
	ck_assert_int_eq(DEC(0x48, 0x0f, 0xb8, 0xc7), INSN_OTHER);
	ck_assert_int_eq(DEC(0xf2, 0xf3, 0x48, 0x0f, 0xb8, 0xc7), INSN_OTHER);
	ck_assert_int_eq(DEC(0xf0, 0xf3, 0x48, 0x0f, 0xb8, 0x07), INSN_OTHER);
	ck_assert_int_eq(DEC(0xf3, 0x48, 0x0f, 0xb8), INSN_OTHER);
}
END_TEST

START_TEST(only_prefixes)
{
	uint8_t b[32];

	memset(b, 0xf0, sizeof(b));
	ck_assert_int_eq(dec(b, sizeof(b)), INSN_OTHER);
	/* 14 prefixes + 0f c7 0e is 17 bytes: longer than the CPU allows. */
	memset(b, 0x65, 13);
	memcpy(b + 13, "\x48\x0f\xc7\x0e", 4);
	ck_assert_int_eq(dec(b, 17), INSN_OTHER);
	/* 10 prefixes is fine. */
	memmove(b + 10, b + 13, 4);
	ck_assert_int_eq(dec(b, 14), INSN_CMPXCHG16B);
	ck_assert_uint_eq(in.len, 14);
	ck_assert_int_eq(in.seg, SEG_GS);
}
END_TEST

START_TEST(linear_address)
{
	uint64_t g[16];

	for (int i = 0; i < 16; i++)
		g[i] = 0x1000ull * (i + 1);
	/* -0x10(%rax,%r9,8) + fs/gs untouched */
	DEC(0x4a, 0x0f, 0xc7, 0x4c, 0xc8, 0xf0);
	ck_assert_uint_eq(insn_linear_address(&in, g, 0, 0x5000, 0x7000),
			  0x1000 + 0xa000 * 8 - 0x10);
	/* %gs:(%r14) */
	DEC(0x65, 0xf0, 0x49, 0x0f, 0xc7, 0x0e);
	ck_assert_uint_eq(insn_linear_address(&in, g, 0, 0x5000,
					      0xffff888000000000ull),
			  0xffff888000000000ull + 0xf000);
	/* 0x67: the sum wraps at 32 bits before the segment base. */
	g[GPR_RSI] = 0xfffffff8;
	DEC(0x64, 0x67, 0x48, 0x0f, 0xc7, 0x4e, 0x10);
	ck_assert(in.addr32);
	ck_assert_uint_eq(insn_linear_address(&in, g, 0, 0x100000, 0),
			  0x100008);
}
END_TEST

/* emulate_sys.h's set: int n, xgetbv, rdpru, clwb, clflushopt, movbe,
 * invpcid, with the forms the kvm-unit-tests use, and the near misses. */
START_TEST(sys_forms)
{
	ck_assert_int_eq(DEC(0xcd, 0x21), INSN_INT_N);
	ck_assert_uint_eq(in.imm, 0x21);
	ck_assert_uint_eq(in.len, 2);
	ck_assert_int_eq(DEC(0xcd), INSN_OTHER);		/* truncated */
	ck_assert_int_eq(DEC(0x66, 0xcd, 0x21), INSN_OTHER);
	ck_assert_int_eq(DEC(0x0f, 0x01, 0xd0), INSN_XGETBV);
	ck_assert_int_eq(DEC(0x0f, 0x01, 0xd1), INSN_OTHER);	/* xsetbv */
	ck_assert_int_eq(DEC(0x0f, 0x01, 0xfd), INSN_RDPRU);
	/* clwb (%rbx), clflushopt (%rbx); without 66: xsaveopt, clflush */
	ck_assert_int_eq(DEC(0x66, 0x0f, 0xae, 0x33), INSN_CLWB);
	ck_assert_int_eq(in.base, GPR_RBX);
	ck_assert_uint_eq(in.len, 4);
	ck_assert_int_eq(DEC(0x66, 0x0f, 0xae, 0x3b), INSN_CLFLUSHOPT);
	ck_assert_int_eq(DEC(0x0f, 0xae, 0x3b), INSN_OTHER);
	ck_assert_int_eq(DEC(0x66, 0x0f, 0xae, 0xf8), INSN_OTHER);/* pcommit */
	ck_assert_int_eq(DEC(0x66, 0x0f, 0xae, 0x2b), INSN_OTHER);/* /5 */
	/* movbe (%rdi),%eax; movbe %rax,8(%rsi); the register form */
	ck_assert_int_eq(DEC(0x0f, 0x38, 0xf0, 0x07), INSN_MOVBE_LOAD);
	ck_assert_uint_eq(in.opsize, 4);
	ck_assert_int_eq(DEC(0x48, 0x0f, 0x38, 0xf1, 0x46, 0x08),
			 INSN_MOVBE_STORE);
	ck_assert_uint_eq(in.opsize, 8);
	ck_assert_int_eq(in.disp, 8);
	ck_assert_int_eq(DEC(0x66, 0x0f, 0x38, 0xf0, 0x07), INSN_MOVBE_LOAD);
	ck_assert_uint_eq(in.opsize, 2);
	ck_assert_int_eq(DEC(0x0f, 0x38, 0xf0, 0xc0), INSN_MOVBE_LOAD);
	ck_assert_int_eq(in.rm_reg, GPR_RAX);
	ck_assert_int_eq(DEC(0xf2, 0x0f, 0x38, 0xf0, 0x07), INSN_OTHER);
	/* invpcid (%rax),%rbx */
	ck_assert_int_eq(DEC(0x66, 0x0f, 0x38, 0x82, 0x18), INSN_INVPCID);
	ck_assert_int_eq(in.reg, GPR_RBX);
	ck_assert_int_eq(in.base, GPR_RAX);
	ck_assert_int_eq(DEC(0x0f, 0x38, 0x82, 0x18), INSN_OTHER);
	ck_assert_int_eq(DEC(0x66, 0x0f, 0x38), INSN_OTHER);
}
END_TEST

/* The CPU does not mind the order of legacy prefixes; Capstone 4 sees a
 * mandatory 66/f3 only next to the opcode, so the decoder reorders. */
START_TEST(prefix_order)
{
	/* popcnt %gs:3(%rdi),%ecx, segment after the f3 */
	ck_assert_int_eq(DEC(0xf3, 0x65, 0x0f, 0xb8, 0x4f, 0x03), INSN_POPCNT);
	ck_assert_int_eq(in.seg, SEG_GS);
	ck_assert_int_eq(in.base, GPR_RDI);
	ck_assert_int_eq(in.disp, 3);
	ck_assert_uint_eq(in.len, 6);
	/* popcnt (%rsi),%bx with f3 before 66 */
	ck_assert_int_eq(DEC(0xf3, 0x66, 0x0f, 0xb8, 0x1e), INSN_POPCNT);
	ck_assert_uint_eq(in.opsize, 2);
	ck_assert_int_eq(in.reg, GPR_RBX);
	/* clwb %fs:(%rdx) with 66 first: not xsaveopt */
	ck_assert_int_eq(DEC(0x66, 0x64, 0x0f, 0xae, 0x32), INSN_CLWB);
	ck_assert_int_eq(in.seg, SEG_FS);
	ck_assert_int_eq(in.base, GPR_RDX);
	/* invpcid %gs:(%rdi),%rsi, 66 before the segment */
	ck_assert_int_eq(DEC(0x66, 0x65, 0x0f, 0x38, 0x82, 0x37),
			 INSN_INVPCID);
	ck_assert_int_eq(in.reg, GPR_RSI);
	ck_assert_int_eq(in.seg, SEG_GS);
	/* clflushopt -0x6b(%ecx), 66 then 67 */
	ck_assert_int_eq(DEC(0x66, 0x67, 0x0f, 0xae, 0x79, 0x95),
			 INSN_CLFLUSHOPT);
	ck_assert(in.addr32);
	ck_assert_int_eq(in.base, GPR_RCX);
	ck_assert_int_eq(in.disp, -0x6b);
}
END_TEST

/* A REX counts only right before the opcode (the last of several); one
 * followed by a legacy prefix is ignored, as the CPU ignores it. */
START_TEST(rex_placement)
{
	/* 48 ignored, 4c counts: invpcid (%rax),%r11 */
	ck_assert_int_eq(DEC(0x48, 0x66, 0x4c, 0x0f, 0x38, 0x82, 0x18),
			 INSN_INVPCID);
	ck_assert_int_eq(in.reg, GPR_R11);
	ck_assert_int_eq(in.base, GPR_RAX);
	ck_assert_uint_eq(in.len, 7);
	/* 41 41 4c: movbe's register form, reg r15, rm rbp (no REX.B) */
	ck_assert_int_eq(DEC(0x41, 0x41, 0x4c, 0x0f, 0x38, 0xf0, 0xfd),
			 INSN_MOVBE_LOAD);
	ck_assert_int_eq(in.reg, GPR_R15);
	ck_assert_int_eq(in.rm_reg, GPR_RBP);
	ck_assert_uint_eq(in.opsize, 8);
	ck_assert_uint_eq(in.len, 7);
}
END_TEST

/* What Capstone 4 gets wrong or lacks, answered as the CPU would. */
START_TEST(capstone_gaps)
{
	/* 66 REX.W 0f ae /6 is clwb (xsaveopt64 takes no 66) */
	ck_assert_int_eq(DEC(0x66, 0x48, 0x0f, 0xae, 0x37), INSN_CLWB);
	ck_assert_int_eq(in.base, GPR_RDI);
	ck_assert_int_eq(DEC(0x48, 0x0f, 0xae, 0x37), INSN_OTHER);
	/* 0f 38 82 without 66 is no invpcid (Capstone 4 takes it) */
	ck_assert_int_eq(DEC(0x67, 0x48, 0x0f, 0x38, 0x82, 0x4e, 0xc6),
			 INSN_OTHER);
	/* rdpru and the register forms it does not know */
	ck_assert_int_eq(DEC(0x0f, 0x01, 0xfd), INSN_RDPRU);
	ck_assert_uint_eq(in.len, 3);
	ck_assert_int_eq(DEC(0x66, 0x0f, 0x01, 0xfd), INSN_OTHER);
	ck_assert_int_eq(DEC(0x66, 0x0f, 0x38, 0x82, 0xc0), INSN_INVPCID);
	ck_assert_int_eq(in.rm_reg, GPR_RAX);
	ck_assert_int_eq(DEC(0x49, 0x0f, 0x38, 0xf1, 0xc1), INSN_MOVBE_STORE);
	ck_assert_int_eq(in.rm_reg, GPR_R9);
	ck_assert_int_eq(DEC(0xf0, 0x0f, 0x38, 0xf1, 0xc1), INSN_OTHER);
	ck_assert_int_eq(DEC(0x0f, 0x38, 0xf2, 0xc1), INSN_OTHER);
	/* fwait alone, whatever follows (Capstone may join 9b d9 /6) */
	ck_assert_int_eq(DEC(0x9b, 0xd9, 0x30), INSN_FWAIT);
	ck_assert_uint_eq(in.len, 1);
}
END_TEST

/* The no-ops a fault handler starts with; a locked one is #UD. */
START_TEST(nops)
{
	ck_assert_int_eq(DEC(0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0),
			 INSN_NOP);
	ck_assert_uint_eq(in.len, 10);
	ck_assert_int_eq(DEC(0xf3, 0x0f, 0x1e, 0xfa), INSN_NOP);
	ck_assert_int_eq(DEC(0xf3, 0x0f, 0x1e, 0xfb), INSN_NOP);
	ck_assert_int_eq(DEC(0x48, 0x90), INSN_NOP);
	ck_assert_int_eq(DEC(0x41, 0x90), INSN_OTHER);	/* xchg */
	ck_assert_int_eq(DEC(0xf3, 0x90), INSN_OTHER);	/* pause */
	ck_assert_int_eq(DEC(0xf0, 0x0f, 0x1f, 0x00), INSN_OTHER);
	ck_assert_int_eq(DEC(0x0f, 0x1f, 0x48, 0x00), INSN_OTHER);	/* /1 */
	ck_assert_int_eq(DEC(0x0f, 0x1e, 0x00), INSN_OTHER);	/* hint */
	/* the register form, unknown to Capstone 4 */
	ck_assert_int_eq(DEC(0x26, 0x41, 0x0f, 0x1f, 0xc0), INSN_NOP);
	ck_assert_uint_eq(in.len, 5);
	ck_assert_int_eq(DEC(0x0f, 0x1f, 0xc8), INSN_OTHER);	/* /1 */
	ck_assert_int_eq(DEC(0xf0, 0x0f, 0x1f, 0xc0), INSN_OTHER);
}
END_TEST

/* vCPU threads share the one Capstone handle. */
static void *decode_many(void *arg)
{
	static const uint8_t b[] = { 0x65, 0xf0, 0x49, 0x0f, 0xc7, 0x0e };
	static const uint8_t c[] = { 0x66, 0xf3, 0x0f, 0xb8, 0x4e, 0x08 };
	long bad = 0;

	(void)arg;
	for (int i = 0; i < 2000; i++) {
		struct insn x;

		if (insn_decode64(b, sizeof(b), &x) != INSN_CMPXCHG16B ||
		    x.base != GPR_R14 || x.seg != SEG_GS || x.len != 6)
			bad++;
		if (insn_decode64(c, sizeof(c), &x) != INSN_POPCNT ||
		    x.base != GPR_RSI || x.disp != 8 || x.opsize != 2)
			bad++;
	}
	return (void *)bad;
}

START_TEST(threads)
{
	pthread_t t[4];
	void *bad;

	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, decode_many, NULL),
				 0);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(pthread_join(t[i], &bad), 0);
		ck_assert_ptr_null(bad);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("insn_decode");
	TCase *t = tcase_create("decode");

	tcase_add_test(t, int3_alone);
	tcase_add_test(t, clac_stac);
	tcase_add_test(t, cmpxchg16b_base_disp8);
	tcase_add_test(t, cmpxchg16b_gs_rexb);
	tcase_add_test(t, cmpxchg16b_sib);
	tcase_add_test(t, cmpxchg16b_rip_relative);
	tcase_add_test(t, refusals);
	tcase_add_test(t, popcnt_forms);
	tcase_add_test(t, only_prefixes);
	tcase_add_test(t, linear_address);
	tcase_add_test(t, sys_forms);
	tcase_add_test(t, prefix_order);
	tcase_add_test(t, rex_placement);
	tcase_add_test(t, capstone_gaps);
	tcase_add_test(t, nops);
	tcase_add_test(t, threads);
	suite_add_tcase(s, t);
	return unit_run(s);
}
