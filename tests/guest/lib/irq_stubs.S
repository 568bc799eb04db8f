/* SPDX-License-Identifier: MIT */
/*
 * Interrupt stubs for vectors IRQ_VEC_FIRST..IRQ_VEC_LAST (irq.h): read
 * the vector's acknowledge register if one is set (a device's ISR, which
 * lowers a level-triggered line; a non-zero value claims the interrupt),
 * count the interrupt, EOI the local APIC, return.  Each stub is 64 bytes so irq.c finds stub v at
 * irq_stubs + (v - IRQ_VEC_FIRST) * 64.
 */
#define NVEC		32
#define LAPIC_EOI	0xfee000b0

	.text
	.p2align 6
	.globl irq_stubs
irq_stubs:
	.set i, 0
	.rept NVEC
	.p2align 6
	pushq %rax
	movq irq_ack + 8 * i(%rip), %rax
	testq %rax, %rax
	jz 1f
	movzbl (%rax), %eax
	movq %rax, irq_acked + 8 * i(%rip)
	testl %eax, %eax
	jz 1f
	lock incq irq_claimed + 8 * i(%rip)
1:	lock incq irq_counts + 8 * i(%rip)
	movl $LAPIC_EOI, %eax
	movl $0, (%rax)
	popq %rax
	iretq
	.set i, i + 1
	.endr

	.section .note.GNU-stack, "", @progbits
