// SPDX-License-Identifier: MIT
/*
 * Descriptor tables in RAM and fatal exceptions (see cpu.h).  The tables
 * are copied from ROM templates or computed in a short loop: each
 * instruction here is emulated.
 */
#include <stdint.h>

#include "firmware/cpu.h"
#include "firmware/entry.h"
#include "firmware/exit.h"
#include "firmware/io.h"
#include "firmware/lib/abi.h"
#include "firmware/print.h"
#include "firmware/ring.h"

#define TSS_LEN		104
#define TSS_IOPB	102	/* I/O bitmap offset: past the limit, none */
#define GATE_INTR64	0x8eull	/* present, DPL 0, 64-bit interrupt gate */
#define TRAP_STUB_SIZE	16

/* TSS descriptor for FW_TSS_ADDR (< 16 MiB): limit, base 23:0, type 9. */
#define TSS_DESC_LO	((TSS_LEN - 1) | (uint64_t)FW_TSS_ADDR << 16 | \
			 0x89ull << 40)

static const uint64_t gdt_template[] = {
	0,
	0x00cf9b000000ffff,		/* GDT_CODE32 */
	0x00af9b000000ffff,		/* GDT_CODE64 */
	0x00cf93000000ffff,		/* GDT_DATA */
	0x00cff3000000ffff,		/* GDT_USER_DATA, DPL 3 */
	0x00affb000000ffff,		/* GDT_USER_CODE64, DPL 3 */
	TSS_DESC_LO, 0,			/* GDT_TSS */
};

_Static_assert(FW_TSS_ADDR < (1 << 24), "TSS base must fit 24 bits");
_Static_assert(GDT_TSS == 6 * 8, "GDT_TSS index");
_Static_assert(FW_GDT_ADDR + sizeof(gdt_template) <= FW_TSS_ADDR &&
	       FW_TSS_ADDR + TSS_LEN <= FW_IDT_ADDR &&
	       FW_IDT_ADDR + 16 * FW_IDT_VECTORS <= FW_AP_ADDR,
	       "CPU tables overlap");

extern const char trap_stubs[];


struct __attribute__((packed)) table_desc {
	uint16_t limit;
	uint64_t base;
};

static void copy_qwords(void *dst, const void *src, uint64_t n)
{
	__asm__ volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(n)
			 : : "memory");
}

static void zero_qwords(void *dst, uint64_t n)
{
	__asm__ volatile("rep stosq" : "+D"(dst), "+c"(n) : "a"(0ull)
			 : "memory");
}

static void gdt_init(void)
{
	struct table_desc d = { sizeof(gdt_template) - 1, FW_GDT_ADDR };
	uint8_t *tss = phys_ptr(FW_TSS_ADDR);

	copy_qwords(phys_ptr(FW_GDT_ADDR), gdt_template,
		    sizeof(gdt_template) / 8);
	zero_qwords(tss, TSS_LEN / 8);
	*(uint16_t *)(tss + TSS_IOPB) = TSS_LEN;
	__asm__ volatile("lgdt %0" : : "m"(d));
	__asm__ volatile("ltr %w0" : : "r"(GDT_TSS));
}

/* The stubs sit in one 64 KiB block (fw.lds checks), so only the low 16
 * bits of the handler differ between gates: lo grows by the stub size. */
static void idt_init(void)
{
	uint64_t off = (uint64_t)trap_stubs;
	uint64_t lo = (off & 0xffff) | (uint64_t)GDT_CODE64 << 16 |
		      GATE_INTR64 << 40 | ((off >> 16) & 0xffff) << 48;
	uint64_t hi = off >> 32;
	uint64_t *idt = phys_ptr(FW_IDT_ADDR);
	struct table_desc d = { 16 * FW_IDT_VECTORS - 1, FW_IDT_ADDR };

	for (unsigned int v = 0; v < FW_IDT_VECTORS; v++) {
		idt[2 * v] = lo;
		idt[2 * v + 1] = hi;
		lo += TRAP_STUB_SIZE;
	}
	__asm__ volatile("lidt %0" : : "m"(d));
}

void cpu_init(void)
{
	gdt_init();
	idt_init();
}

__attribute__((noreturn)) void trap_fatal(struct trap_frame *f);

void trap_fatal(struct trap_frame *f)
{
	uint64_t cr2;

	if (f->vector == 6 && f->rip == (uint64_t)user_exit_ud2)
		fw_exit((uint32_t)f->rdi);
	__asm__ volatile("mov %%cr2, %0" : "=r"(cr2));
	fw_fail(ABI_FW_FAIL_INTERNAL,
		"exception %llu (error 0x%llx) at RIP 0x%llx ring %llu, "
		"CR2 0x%llx RSP 0x%llx", (unsigned long long)f->vector,
		(unsigned long long)f->error, (unsigned long long)f->rip,
		(unsigned long long)(f->cs & 3), (unsigned long long)cr2,
		(unsigned long long)f->rsp);
}
