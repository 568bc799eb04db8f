// SPDX-License-Identifier: MIT
/*
 * AP start-up (ap.h).  The trampoline is copied to AP_TRAMP (SIPI vector
 * AP_TRAMP >> 12), loads the payload's GDT and CR3, enables long mode
 * (EFER.LME: an MSR policy must leave EFER to KVM) and jumps to
 * ap_entry64 in the payload.
 */
#include "guest.h"
#include "ap.h"

#define LAPIC_SVR	0xfee000f0u
#define LAPIC_ICR_LO	0xfee00300u
#define LAPIC_ICR_HI	0xfee00310u
#define ICR_INIT	0x00004500u	/* INIT, level assert */
#define ICR_SIPI	0x00004600u	/* start-up, vector in bits 7:0 */

__asm__(
	"	.pushsection .text\n"
	"	.code16\n"
	"	.globl ap_tramp_start, ap_tramp_gdt, ap_tramp_cr3, ap_tramp_end\n"
	"ap_tramp_start:\n"
	"	cli\n"
	"	movw %cs, %ax\n"
	"	movw %ax, %ds\n"
	"	lgdtl ap_tramp_gdt - ap_tramp_start\n"
	"	movl ap_tramp_cr3 - ap_tramp_start, %eax\n"
	"	movl %eax, %cr3\n"
	"	movl %cr4, %eax\n"
	"	orl $0x20, %eax\n"		/* PAE */
	"	movl %eax, %cr4\n"
	"	movl $0xc0000080, %ecx\n"	/* EFER.LME */
	"	rdmsr\n"
	"	orl $0x100, %eax\n"
	"	wrmsr\n"
	"	movl %cr0, %eax\n"
	"	andl $0x9fffffff, %eax\n"	/* caches on */
	"	orl $0x80000001, %eax\n"	/* PG, PE */
	"	movl %eax, %cr0\n"
	"	ljmpl $0x08, $ap_entry64\n"
	"	.p2align 2\n"
	"ap_tramp_gdt: .word 0\n"
	"	.long 0\n"
	"ap_tramp_cr3: .long 0\n"
	"ap_tramp_end:\n"
	"	.code64\n"
	"ap_entry64:\n"
	"	movl $0x10, %eax\n"
	"	movl %eax, %ds\n"
	"	movl %eax, %es\n"
	"	movl %eax, %ss\n"
	"	movq ap_stack_top(%rip), %rsp\n"
	"	call ap_entry_c\n"
	"1:	cli\n"
	"	hlt\n"
	"	jmp 1b\n"
	"	.popsection\n");

extern const char ap_tramp_start[], ap_tramp_gdt[], ap_tramp_cr3[],
	ap_tramp_end[];
void ap_entry_c(void);

struct __attribute__((packed)) ap_desc_ptr {
	uint16_t limit;
	uint64_t base;
};

static uint8_t ap_stack[16384] __attribute__((aligned(16),
					      section(".bss.stack")));
uint64_t ap_stack_top;
static struct ap_desc_ptr ap_idt;
static void (*ap_fn)(void *);
static void *ap_arg;

void ap_entry_c(void)
{
	__asm__ volatile("lidt %0" : : "m"(ap_idt));
	ap_fn(ap_arg);
}

void ap_start(uint32_t apic_id, void (*fn)(void *), void *arg)
{
	uint8_t *t = (uint8_t *)(uintptr_t)AP_TRAMP;
	struct ap_desc_ptr gdt;
	uint32_t cr3 = (uint32_t)read_cr3();

	ap_fn = fn;
	ap_arg = arg;
	memcpy(t, ap_tramp_start, ap_tramp_end - ap_tramp_start);
	__asm__ volatile("sgdt %0; sidt %1" : "=m"(gdt), "=m"(ap_idt));
	memcpy(t + (ap_tramp_gdt - ap_tramp_start), &gdt, 6);
	memcpy(t + (ap_tramp_cr3 - ap_tramp_start), &cr3, 4);
	ap_stack_top = (uintptr_t)ap_stack + sizeof(ap_stack);

	mmio_write32(LAPIC_SVR, mmio_read32(LAPIC_SVR) | 0x100);
	mmio_write32(LAPIC_ICR_HI, apic_id << 24);
	mmio_write32(LAPIC_ICR_LO, ICR_INIT);
	for (int i = 0; i < 2; i++) {
		mmio_write32(LAPIC_ICR_HI, apic_id << 24);
		mmio_write32(LAPIC_ICR_LO, ICR_SIPI | AP_TRAMP >> 12);
	}
}
