/* SPDX-License-Identifier: MIT */
/*
 * Leaving long mode for a 32-bit payload entry: flat 32-bit protected
 * mode, paging off, interrupts off, CR4 and EFER clear.
 *
 * void pvh_jump(uint32_t entry, uint32_t start_info);	(never returns)
 *	PVH boot ABI: %ebx = hvm_start_info.
 * void multiboot_jump(uint32_t entry, uint32_t mbi, uint32_t copies);
 *	Multiboot v1: first copies the staged segments below 1 MiB (the
 *	list at copies: u32 dst, src, filesz, memsz, zero-filled up to
 *	memsz, ended by memsz 0); nothing after that uses memory below
 *	1 MiB but the list, so the segments may cover the firmware's RAM
 *	and stacks.  Then %eax = 0x2badb002, %ebx = mbi.
 */
#include "firmware/entry.h"

#define MB_BOOT_MAGIC	0x2badb002

/* From 64-bit code anywhere to 32-bit code at the identity-mapped
 * (physical) address of 2f: the ROM alias disappears with paging. */
.macro to_protected_mode
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
.endm

	.text
	.code64
	.globl	pvh_jump
pvh_jump:
	cli
	movl	%esi, %ebx
	to_protected_mode
	jmp	*%edi

	.code64
	.globl	multiboot_jump
multiboot_jump:
	cli
	movl	%esi, %ebx
	movl	%edx, %ebp
	to_protected_mode
	movl	%edi, %edx			/* the entry */
	cld
3:	movl	12(%ebp), %eax
	testl	%eax, %eax
	jz	4f
	movl	0(%ebp), %edi
	movl	4(%ebp), %esi
	movl	8(%ebp), %ecx
	rep movsb
	movl	12(%ebp), %ecx
	subl	8(%ebp), %ecx
	xorl	%eax, %eax
	rep stosb
	addl	$16, %ebp
	jmp	3b
4:	movl	$MB_BOOT_MAGIC, %eax
	jmp	*%edx

	.section .note.GNU-stack, "", @progbits
