/* SPDX-License-Identifier: MIT */
/*
 * The timed loops, as assembler macro text shared by the kvm-floor tool
 * and the guest payload, so both time the very same instruction sequences.
 * Emit BENCH_ASM_MACROS once per translation unit in a top-level __asm__,
 * then use the BENCH_STUB_* macros.
 *
 * Register contract of a stub: r8 = iterations (a multiple of
 * BENCH_UNROLL, > 0), rdi = address, port or MSR index, rsi = value,
 * rcx = second value; on exit rax = TSC cycles taken.  Clobbers rax, rcx,
 * rdx, r8, r9, r11.  Every stub runs BENCH_UNROLL copies of its body per
 * loop iteration, bracketed by LFENCE-ordered RDTSC as guest.h's
 * tsc_begin()/tsc_end().
 *
 * Bodies (one op each):
 *   IN        inl from port rdi
 *   OUT       outl esi to port rdi
 *   LOAD      32-bit load from [rdi]
 *   STORE     32-bit store of esi to [rdi]
 *   RDMSR     rdmsr of MSR rdi
 *   WRMSR     wrmsr of esi (high half 0) to MSR rdi
 *   PAIR_RD   outl esi to port rdi, inl from port rdi+4 (a CF8/CFC read)
 *   PAIR_WR   outl esi to port rdi, outl ecx to port rdi+4 (a CF8/CFC
 *             write)
 *   SYSCALL   syscall (the guest's LSTAR handler returns with sysretq;
 *             rcx and r11 are clobbered, as the contract allows)
 *   INT80     int $0x80 (the guest's gate returns with iretq)
 */
#ifndef MINIVMM_BENCH_LOOPS_H
#define MINIVMM_BENCH_LOOPS_H

#include "tools/bench/stats.h"	/* BENCH_UNROLL */

#define BENCH_STR_(x)	#x
#define BENCH_STR(x)	BENCH_STR_(x)

#define BENCH_ASM_MACROS						\
	".macro BENCH_TSC_START\n"					\
	" lfence; rdtsc; lfence; shl $32, %rdx; or %rax, %rdx;"	\
	" mov %rdx, %r9\n"						\
	".endm\n"							\
	".macro BENCH_TSC_STOP\n"					\
	" lfence; rdtsc; lfence; shl $32, %rdx; or %rdx, %rax;"	\
	" sub %r9, %rax\n"						\
	".endm\n"							\
	".macro BENCH_LOOP body\n"					\
	" 1: .rept " BENCH_STR(BENCH_UNROLL) "\n"			\
	" \\body\n"							\
	" .endr\n"							\
	" sub $" BENCH_STR(BENCH_UNROLL) ", %r8; jnz 1b\n"		\
	".endm\n"							\
	".macro BENCH_B_IN\n inl %dx, %eax\n.endm\n"			\
	".macro BENCH_B_OUT\n outl %eax, %dx\n.endm\n"			\
	".macro BENCH_B_LOAD\n movl (%rdi), %eax\n.endm\n"		\
	".macro BENCH_B_STORE\n movl %esi, (%rdi)\n.endm\n"		\
	".macro BENCH_B_RDMSR\n rdmsr\n.endm\n"				\
	".macro BENCH_B_WRMSR\n wrmsr\n.endm\n"				\
	".macro BENCH_B_SYSCALL\n syscall\n.endm\n"			\
	".macro BENCH_B_INT80\n int $0x80\n.endm\n"			\
	".macro BENCH_B_PAIR_RD\n"					\
	" mov %esi, %eax; mov %edi, %edx; outl %eax, %dx;"		\
	" add $4, %edx; inl %dx, %eax\n"				\
	".endm\n"							\
	".macro BENCH_B_PAIR_WR\n"					\
	" mov %esi, %eax; mov %edi, %edx; outl %eax, %dx;"		\
	" add $4, %edx; mov %ecx, %eax; outl %eax, %dx\n"		\
	".endm\n"							\
	".macro BENCH_STUB_IN\n BENCH_TSC_START; mov %edi, %edx;"	\
	" BENCH_LOOP BENCH_B_IN; BENCH_TSC_STOP\n.endm\n"		\
	".macro BENCH_STUB_OUT\n BENCH_TSC_START; mov %edi, %edx;"	\
	" mov %esi, %eax; BENCH_LOOP BENCH_B_OUT; BENCH_TSC_STOP\n"	\
	".endm\n"							\
	".macro BENCH_STUB_LOAD\n BENCH_TSC_START;"			\
	" BENCH_LOOP BENCH_B_LOAD; BENCH_TSC_STOP\n.endm\n"		\
	".macro BENCH_STUB_STORE\n BENCH_TSC_START;"			\
	" BENCH_LOOP BENCH_B_STORE; BENCH_TSC_STOP\n.endm\n"		\
	".macro BENCH_STUB_RDMSR\n BENCH_TSC_START; mov %edi, %ecx;"	\
	" BENCH_LOOP BENCH_B_RDMSR; BENCH_TSC_STOP\n.endm\n"		\
	".macro BENCH_STUB_WRMSR\n BENCH_TSC_START; mov %edi, %ecx;"	\
	" mov %esi, %eax; xor %edx, %edx; BENCH_LOOP BENCH_B_WRMSR;"	\
	" BENCH_TSC_STOP\n.endm\n"					\
	".macro BENCH_STUB_SYSCALL\n BENCH_TSC_START;"			\
	" BENCH_LOOP BENCH_B_SYSCALL; BENCH_TSC_STOP\n.endm\n"		\
	".macro BENCH_STUB_INT80\n BENCH_TSC_START;"			\
	" BENCH_LOOP BENCH_B_INT80; BENCH_TSC_STOP\n.endm\n"		\
	".macro BENCH_STUB_PAIR_RD\n BENCH_TSC_START;"			\
	" BENCH_LOOP BENCH_B_PAIR_RD; BENCH_TSC_STOP\n.endm\n"		\
	".macro BENCH_STUB_PAIR_WR\n BENCH_TSC_START;"			\
	" BENCH_LOOP BENCH_B_PAIR_WR; BENCH_TSC_STOP\n.endm\n"

#endif
