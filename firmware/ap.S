/* SPDX-License-Identifier: MIT */
/*
 * The application processors' start-up code, copied by smp.c to
 * FW_AP_ADDR (SIPI vector FW_AP_ADDR >> 12) and entered there in real
 * mode.  An AP only has to make its MTRRs equal to the boot CPU's: it
 * applies the same MSR list (mtrr.h, struct mtrr_msr) from the AP page,
 * counts itself in FW_AP_COUNT and halts.  WRMSR works in real mode, so
 * there is no mode switch: every instruction here is emulated on the
 * target host, once per AP.  A parked AP keeps IF clear; the OS restarts
 * it with INIT/SIPI, which keeps the MTRRs.
 *
 * Position-independent: only relative jumps, and data at fixed addresses
 * below 64 KiB through DS = 0.
 */
#include "firmware/entry.h"

	.section .rodata.ap_trampoline, "a"
	.code16
	.globl	ap_trampoline, ap_trampoline_end
ap_trampoline:
	xorw	%ax, %ax
	movw	%ax, %ds
	movw	$FW_AP_MSRS, %si
1:	movl	(%si), %ecx
	testl	%ecx, %ecx
	jz	2f
	movl	4(%si), %eax
	movl	8(%si), %edx
	wrmsr
	addw	$12, %si
	jmp	1b
2:	lock incw FW_AP_COUNT
3:	cli
	hlt
	jmp	3b
ap_trampoline_end:
	.code64

	.section .note.GNU-stack, "", @progbits
