/* SPDX-License-Identifier: MIT */
/*
 * The Linux 64-bit boot protocol's entry state: long mode with our
 * identity map (0..4 GiB, which covers the kernel's init_size, boot_params
 * and the command line), CS = __BOOT_CS (0x10 = GDT_CODE64) and DS, ES,
 * SS = __BOOT_DS (0x18 = GDT_DATA), both flat, interrupts off, %rsi =
 * boot_params.
 *
 * void linux_jump64(uint64_t entry, uint64_t boot_params);  (never returns)
 */
#include "firmware/entry.h"

	.text
	.code64
	.globl	linux_jump64
linux_jump64:
	cli
	movl	$GDT_DATA, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss
	xorl	%eax, %eax
	movl	%eax, %fs
	movl	%eax, %gs
	xorl	%ebp, %ebp
	/* CS is GDT_CODE64 already: the firmware runs there. */
	jmp	*%rdi

	.section .note.GNU-stack, "", @progbits
