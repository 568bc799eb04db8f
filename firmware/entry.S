/* SPDX-License-Identifier: MIT */
/*
 * Reset to C: real mode -> 32-bit protected mode -> long mode -> fw_main.
 *
 * Ring-0 guest code is emulated one instruction at a time on the target
 * host (~0.5 us each), so every instruction here counts: reset to fw_main
 * is a straight line of about 60 instructions, with no loop (the VMM
 * wrote the page tables into RAM before the first one, abi.h).
 *
 * The .reset section is the last 4 KiB of the ROM (fw.lds), physical
 * 0xfffff000.  Its 16- and 32-bit code runs before paging, at physical
 * addresses it computes from that fixed place, so it needs no relocations
 * into the 64-bit link address space.  The 64-bit code (.text) runs at the
 * ROM alias 0xffffffff_fffxxxxx.
 */
#include "firmware/lib/abi.h"
#include "firmware/entry.h"

#define RESET_PHYS	0xfffff000
#define PHYS(x)		((x) - reset_start + RESET_PHYS)
#define OFF16(x)	((x) - reset_start + 0xf000)	/* from CS.base 0xffff0000 */

	.section .reset, "ax"
	.code16
reset_start:
entry16:
	lgdtl	%cs:OFF16(gdt_desc)
	movl	%cr0, %eax
	orl	$CR0_PE, %eax
	movl	%eax, %cr0
	ljmpl	$GDT_CODE32, $PHYS(entry32)

	.code32
entry32:
	movl	$GDT_DATA, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss
	movb	$ABI_MS_FW_PROTECTED, %al
	outb	%al, $ABI_PROGRESS_PORT

	/* Long mode is required. */
	movl	$0x80000000, %eax
	cpuid
	cmpl	$0x80000001, %eax
	jb	no_long_mode
	movl	$0x80000001, %eax
	cpuid
	btl	$29, %edx
	jnc	no_long_mode

	movl	$ABI_BOOT_PT_BASE, %eax
	movl	%eax, %cr3
	/* PAE for long mode; SSE enabled because libfdt is built for the
	 * x86-64 baseline, which includes SSE2. */
	movl	$(CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT), %eax
	movl	%eax, %cr4
	movl	$MSR_EFER, %ecx
	movl	$EFER_LME, %eax
	xorl	%edx, %edx
	wrmsr
	/* Caches on (CD, NW off), FPU present (EM off, MP on), paging on. */
	movl	%cr0, %eax
	andl	$~(CR0_CD | CR0_NW | CR0_EM), %eax
	orl	$(CR0_PG | CR0_NE | CR0_MP), %eax
	movl	%eax, %cr0
	ljmpl	$GDT_CODE64, $PHYS(entry64)

no_long_mode:
	movl	$FW_EXIT_INTERNAL, %eax
	outl	%eax, $ABI_TEST_EXIT_PORT
1:	hlt
	jmp	1b

	.code64
entry64:
	movabsq	$fw_start64, %rax
	jmp	*%rax

	/* Flat segments; the accessed bit is preset (types 0x9b, 0x93). */
	.balign 8
gdt:
	.quad	0
	.quad	0x00cf9b000000ffff		/* GDT_CODE32 */
	.quad	0x00af9b000000ffff		/* GDT_CODE64 */
	.quad	0x00cf93000000ffff		/* GDT_DATA */
gdt_end:
gdt_desc:
	.word	gdt_end - gdt - 1
	.long	PHYS(gdt)

	/* Architectural reset vector, 4 GiB - 16: CS.base 0xffff0000,
	 * IP 0xfff0.  The milestone is the very first thing done. */
	.org	0xff0
	.code16
	.globl	reset_vector
reset_vector:
	movb	$ABI_MS_FW_ENTRY, %al
	outb	%al, $ABI_PROGRESS_PORT
	jmp	entry16
	.org	0x1000

/* Long mode at the ROM alias: stack, .bss, %fs and canary, then C. */
	.text
	.code64
fw_start64:
	movl	$fw_stack_top, %esp
	leaq	__bss_start(%rip), %rdi
	leaq	__bss_end(%rip), %rcx
	subq	%rdi, %rcx
	shrq	$3, %rcx
	xorl	%eax, %eax
	rep stosq
	/* libfdt is built with -fstack-protector: canary at %fs:0x28. */
	leaq	fw_tls(%rip), %rax
	movq	%rax, %rdx
	shrq	$32, %rdx
	movl	$MSR_FS_BASE, %ecx
	wrmsr
	rdtsc
	shlq	$32, %rdx
	orq	%rdx, %rax
	movq	%rax, %fs:0x28
	call	fw_main
	ud2					/* not reached: fw_main ends the VM */

	.bss
	.balign	64
fw_tls:
	.skip	64

	.section .note.GNU-stack, "", @progbits
