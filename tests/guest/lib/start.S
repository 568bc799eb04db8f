/* SPDX-License-Identifier: MIT */
/*
 * PVH entry: 32-bit flat protected mode, paging off, EBX = hvm_start_info.
 * Switches to 64-bit long mode on our own GDT and identity page tables,
 * then calls guest_crt_main(start_info).
 *
 * Ring-0 code is emulated instruction by instruction on some hosts, so the
 * page tables and GDT are built by the assembler, not by loops: the path
 * from entry to C is about 40 instructions.
 */
#include "firmware/lib/abi.h"

#define PTE_P		0x001
#define PTE_RW		0x002
#define PTE_US		0x004	/* ring 3 may touch everything */
#define PTE_PS		0x080
#define PTE_TABLE	(PTE_P | PTE_RW | PTE_US | 0x020)
#define PTE_LEAF	(PTE_P | PTE_RW | PTE_US | PTE_PS)
#define PTE_AD		0x060	/* accessed + dirty: the walk never writes */

#define CR0_PE		0x00000001
#define CR0_PG		0x80000000
#define CR4_PAE		0x00000020
#define MSR_EFER	0xc0000080
#define EFER_LME	0x00000100
#define CPUID_EDX_PDPE1GB (1 << 26)

#define KERNEL_CS	0x08
#define KERNEL_DS	0x10

/* PVH note: owner "Xen", type XEN_ELFNOTE_PHYS32_ENTRY (18).  The value is
 * 8 bytes, as in Linux's 64-bit vmlinux: QEMU reads a 64-bit value from
 * ELF64 notes, Xen and our loader take the descsz given. */
	.pushsection .note.Xen, "a", @note
	.p2align 2
	.long 4			/* namesz */
	.long 8			/* descsz */
	.long 18		/* XEN_ELFNOTE_PHYS32_ENTRY */
	.asciz "Xen"
	.p2align 2
	.quad pvh_entry
	.p2align 2
	.popsection

	.section .text.entry, "ax"
	.code32
	.globl pvh_entry
pvh_entry:
	movb $ABI_MS_PAYLOAD_ENTRY, %al
	outb %al, $ABI_PROGRESS_PORT
	movl %ebx, boot_start_info
	cld

	lgdt gdt_desc
	movl $KERNEL_DS, %eax
	movl %eax, %ds
	movl %eax, %es
	movl %eax, %ss
	movl %eax, %fs
	movl %eax, %gs

	/* 1 GiB pages map 512 GiB; without them 2 MiB pages map 4 GiB. */
	movl $0x80000001, %eax
	cpuid
	testl $CPUID_EDX_PDPE1GB, %edx
	jnz 1f
	movl $(pdpt_2m + PTE_TABLE), pml4
1:
	movl %cr4, %eax
	orl $CR4_PAE, %eax
	movl %eax, %cr4
	movl $pml4, %eax
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	orl $EFER_LME, %eax
	wrmsr
	movl %cr0, %eax
	orl $(CR0_PE | CR0_PG), %eax
	movl %eax, %cr0
	ljmp $KERNEL_CS, $entry64

	.code64
entry64:
	movl $boot_stack_top, %esp
	/* The ELF loader zero-fills .bss; do it again in case one does not
	 * (one emulated instruction however long). */
	movl $__bss_start, %edi
	movl $__bss_end, %ecx
	subl %edi, %ecx
	xorl %eax, %eax
	rep stosb
	movl boot_start_info, %edi
	call guest_crt_main
2:	hlt
	jmp 2b

	.data
	.p2align 3
boot_start_info:
	.quad 0

	.globl guest_gdt
	.p2align 4
guest_gdt:
	.quad 0				/* 0x00 null */
	.quad 0x00af9b000000ffff	/* 0x08 kernel code, 64-bit */
	.quad 0x00cf93000000ffff	/* 0x10 kernel data */
	.quad 0x00cff3000000ffff	/* 0x18 user data (0x1b) */
	.quad 0x00affb000000ffff	/* 0x20 user code, 64-bit (0x23) */
	.quad 0, 0			/* 0x28 TSS, filled by trap_init() */
guest_gdt_end:

	.p2align 3
	.word 0, 0, 0
gdt_desc:
	.word guest_gdt_end - guest_gdt - 1
	.quad guest_gdt

/* Page tables, all static (the fallback costs 20 KiB of image). */
	.p2align 12
pml4:
	.quad pdpt_1g + PTE_TABLE
	.fill 511, 8, 0

pdpt_1g:
	.set addr, 0
	.rept 512
	.quad addr + PTE_LEAF + PTE_AD
	.set addr, addr + (1 << 30)
	.endr

pdpt_2m:
	.quad pd_2m + 0x0000 + PTE_TABLE
	.quad pd_2m + 0x1000 + PTE_TABLE
	.quad pd_2m + 0x2000 + PTE_TABLE
	.quad pd_2m + 0x3000 + PTE_TABLE
	.fill 508, 8, 0

pd_2m:
	.set addr, 0
	.rept 2048
	.quad addr + PTE_LEAF + PTE_AD
	.set addr, addr + (1 << 21)
	.endr

	.section .bss.stack, "aw", @nobits
	.p2align 12
	.space 16384
boot_stack_top:

	.section .note.GNU-stack, "", @progbits
