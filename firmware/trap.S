/* SPDX-License-Identifier: MIT */
/*
 * Exception entry and ring-3 calls (see cpu.h; cpu.c builds the tables).
 *
 * user_call() runs a function at CPL 3 and returns when it returns: the
 * function's return lands on a ud2 at user_return_ud2, whose #UD comes
 * back to ring 0 through the IDT; the fast path below recognises it and
 * resumes user_call's caller.  (Neither `int n` nor `syscall`: the target
 * host's ring-3 `int n` raises #UD.)  Every other exception is fatal and
 * goes to trap_fatal() in C.
 */
#include "firmware/entry.h"

#define TRAP_STUB_SIZE	16
#define TSS_RSP0	(FW_TSS_ADDR + 4)
#define USER_RFLAGS	0x2		/* IF 0, IOPL 0 */

	.globl	fw_ap_end
	.set	fw_ap_end, FW_AP_END		/* checked by fw.lds */

	.text
	.code64

/* Exception stubs, TRAP_STUB_SIZE bytes apart (cpu.c computes the gates):
 * each pushes a zero error code if the CPU does not, then the vector. */
	.balign	TRAP_STUB_SIZE
	.globl	trap_stubs
trap_stubs:
	.set	vec, 0
	.rept	FW_IDT_VECTORS
	.balign	TRAP_STUB_SIZE
	.if !(vec == 8 || (vec >= 10 && vec <= 14) || vec == 17 || \
	      vec == 21 || vec == 29 || vec == 30)
	pushq	$0
	.endif
	pushq	$vec
	jmp	trap_common
	.set	vec, vec + 1
	.endr
trap_stubs_end:

/* Stack: vector, error, RIP, CS, RFLAGS, RSP, SS. */
trap_common:
	cmpq	$6, (%rsp)
	jne	trap_slow
	pushq	%rax
	leaq	user_return_ud2(%rip), %rax
	cmpq	%rax, 24(%rsp)			/* RIP (after the push) */
	popq	%rax
	jne	trap_slow
	/* Back from user_call: its frame is at user_ctx_rsp.  The ring
	 * change left SS null and DS/ES null: reload them. */
	movq	user_ctx_rsp(%rip), %rsp
	movl	$GDT_DATA, %eax
	movl	%eax, %ss
	movl	%eax, %ds
	movl	%eax, %es
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbp
	popq	%rbx
	ret

/* Complete struct trap_frame (cpu.h) and report; never returns. */
trap_slow:
	pushq	%rax
	pushq	%rbx
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%rbp
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movl	$GDT_DATA, %eax
	movl	%eax, %ss
	movq	%rsp, %rdi
	cld
	call	trap_fatal
	ud2

/* void user_call(void (*fn)(void *), void *arg) */
	.globl	user_call
user_call:
	pushq	%rbx
	pushq	%rbp
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, user_ctx_rsp(%rip)
	movq	%rsp, TSS_RSP0			/* exceptions from ring 3 */
	pushq	$GDT_USER_DATA
	leaq	fw_user_stack_top(%rip), %rax
	pushq	%rax
	pushq	$USER_RFLAGS
	pushq	$GDT_USER_CODE64
	leaq	user_entry(%rip), %rax
	pushq	%rax
	iretq

/* Ring 3: fn(arg), then back through #UD. */
user_entry:
	movq	%rdi, %rax
	movq	%rsi, %rdi
	call	*%rax
	.globl	user_return_ud2
user_return_ud2:
	ud2

/* void user_exit(uint32_t status): fw_exit() from ring 3; trap_fatal()
 * recognises the RIP and ends the VM from ring 0. */
	.globl	user_exit, user_exit_ud2
user_exit:
user_exit_ud2:
	ud2

	.bss
	.balign	8
user_ctx_rsp:
	.skip	8

	.section .note.GNU-stack, "", @progbits
