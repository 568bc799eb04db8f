/* SPDX-License-Identifier: MIT */
/*
 * Leaving long mode for a 32-bit payload entry (PVH boot ABI): flat 32-bit
 * protected mode, paging off, interrupts off, CR4 and EFER clear, %ebx =
 * hvm_start_info.
 *
 * void pvh_jump(uint32_t entry, uint32_t start_info);	(never returns)
 */
#include "firmware/entry.h"

	.text
	.code64
	.globl	pvh_jump
pvh_jump:
	cli
	movl	%esi, %ebx
	/* Go on at the identity-mapped (physical) address of this code:
	 * the ROM alias disappears with paging. */
	leaq	1f(%rip), %rax
	movl	%eax, %eax
	jmp	*%rax
1:	leaq	2f(%rip), %rax
	pushq	$GDT_CODE32
	pushq	%rax
	lretq

	.code32
2:	movl	%cr0, %eax
	andl	$~CR0_PG, %eax			/* leaves long mode */
	movl	%eax, %cr0
	movl	$MSR_EFER, %ecx
	xorl	%eax, %eax
	xorl	%edx, %edx
	wrmsr
	movl	%eax, %cr4
	movl	$(CR0_PE | CR0_ET), %eax
	movl	%eax, %cr0
	movl	$GDT_DATA, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss
	movl	%eax, %fs
	movl	%eax, %gs
	jmp	*%edi

	.section .note.GNU-stack, "", @progbits
