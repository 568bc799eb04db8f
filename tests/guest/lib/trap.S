/* SPDX-License-Identifier: MIT */
/*
 * Low-level trap plumbing: the 32 exception stubs, the common entry that
 * hands a struct trap_frame to trap_handler(), the setjmp-like context
 * switch used to resume at a recovery point, and the ring-3 entry.
 */

/* Each stub is exactly TRAP_STUB_SIZE bytes so trap_init() can compute
 * its address as trap_stubs + vector * TRAP_STUB_SIZE. */
#define TRAP_STUB_SIZE	16
#define USER_DS		0x1b
#define USER_CS		0x23
#define USER_RFLAGS	0x3002	/* IOPL 3, IF 0, reserved bit 1 */

	.text
	.p2align 4
	.globl trap_stubs
trap_stubs:
	.set vec, 0
	.rept 32
	.p2align 4
	/* Vectors that push an error code: 8, 10-14, 17, 21, 29, 30. */
	.if !(vec == 8 || (vec >= 10 && vec <= 14) || vec == 17 || \
	      vec == 21 || vec == 29 || vec == 30)
	pushq $0
	.endif
	pushq $vec
	jmp trap_common
	.set vec, vec + 1
	.endr

/* Stack on entry: vector, error code, then the CPU's frame.  Pushes the
 * GPRs to complete struct trap_frame (see trap.c); rsp is 16-aligned. */
trap_common:
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, %rdi
	cld
	call trap_handler
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
	addq $16, %rsp
	iretq

/* int guest_ctx_save(struct guest_ctx *c): 0 now, v when resumed. */
	.globl guest_ctx_save
guest_ctx_save:
	movq (%rsp), %rax
	movq %rax, 0(%rdi)
	leaq 8(%rsp), %rax
	movq %rax, 8(%rdi)
	movq %rbx, 16(%rdi)
	movq %rbp, 24(%rdi)
	movq %r12, 32(%rdi)
	movq %r13, 40(%rdi)
	movq %r14, 48(%rdi)
	movq %r15, 56(%rdi)
	xorl %eax, %eax
	ret

/* void guest_ctx_resume(const struct guest_ctx *c, int v): returns v from
 * the guest_ctx_save that filled c, abandoning the current stack. */
	.globl guest_ctx_resume
guest_ctx_resume:
	movq 8(%rdi), %rsp
	movq 16(%rdi), %rbx
	movq 24(%rdi), %rbp
	movq 32(%rdi), %r12
	movq 40(%rdi), %r13
	movq 48(%rdi), %r14
	movq 56(%rdi), %r15
	movl %esi, %eax
	jmp *0(%rdi)

/* void guest_enter_user(fn, arg, stack_top): iretq to user_trampoline at
 * CPL 3.  Never returns; trap_handler resumes run_user when the trampoline's
 * ud2 (user_return_ud2) traps. */
	.globl guest_enter_user
guest_enter_user:
	pushq $USER_DS
	pushq %rdx
	pushq $USER_RFLAGS
	pushq $USER_CS
	leaq user_trampoline(%rip), %rax
	pushq %rax
	iretq

user_trampoline:
	movq %rdi, %rax
	movq %rsi, %rdi
	call *%rax
	.globl user_return_ud2
user_return_ud2:
	ud2

	.section .note.GNU-stack, "", @progbits
