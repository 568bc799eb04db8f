// SPDX-License-Identifier: MIT
/*
 * syscall_rearm: the guest moves its system-call entry and its exception
 * handlers while it runs, as an OS does during boot (Linux loads an early
 * IDT, then its final one, then maps it elsewhere read-only).  In turn:
 *
 *  1. LSTAR = entry_a: a SYSCALL from ring 3 arrives at entry_a (CPL 0);
 *  2. LSTAR = entry_b: it arrives at entry_b, and RDMSR reads entry_b;
 *  3. a new IDT (LIDT) whose #PF and #UD gates point at other handlers,
 *     #PF's starting with a no-op (a NOP slot as Linux's do), #UD's with
 *     cld (which a VMM has to single-step): SYSCALL and int $0x80 still
 *     arrive, and a ring-3 #PF and #UD reach the new handlers;
 *  4. the #PF gate of that IDT rewritten in place (a handler starting
 *     with endbr64): the same;
 *  5. the library's IDT back: the same, the other handlers no longer hit.
 *
 * Each change is followed by a console line, an exit: a VMM that finds
 * the handlers through the IDT may look again there.  Status 0 if all
 * held, 1 plus FAIL lines otherwise.
 */
#include "lib/guest.h"

#define MSR_EFER	0xc0000080
#define MSR_STAR	0xc0000081
#define MSR_LSTAR	0xc0000082
#define MSR_FMASK	0xc0000084
#define EFER_SCE	1ull
#define VEC_UD		6
#define VEC_PF		14
#define IDT_ENTRIES	256
#define UNMAPPED	0xffff900000000000ull

struct idt_gate {
	uint64_t lo, hi;
};

struct __attribute__((packed)) desc_ptr {
	uint16_t limit;
	uint64_t base;
};

static struct idt_gate new_idt[IDT_ENTRIES] __attribute__((aligned(16)));

volatile uint64_t which, which_cs, alt_pf, alt_ud, alt_pf2, int_count;
uint64_t lib_pf, lib_ud;	/* the library's handlers, jumped to */
extern const char entry_a[], entry_b[], pf_alt[], ud_alt[], pf_alt2[],
	int80_entry[];
uint64_t user_syscall(uint64_t nr);
uint64_t user_int80(uint64_t nr);

__asm__(".text\n"
	".globl entry_a, entry_b\n"
	"entry_a:\n\t"
	"movq $1, which(%rip)\n\t"
	"jmp 1f\n"
	"entry_b:\n\t"
	"movq $2, which(%rip)\n"
	"1:\n\t"
	"movq %cs, %rdx\n\t"
	"movq %rdx, which_cs(%rip)\n\t"
	"leaq 1(%rax), %rax\n\t"
	"sysretq\n"
	/* Other handlers: a no-op first (what a VMM may skip) or cld (what
	 * it steps), a count, then the library's handler. */
	".globl pf_alt, ud_alt, pf_alt2\n"
	"pf_alt:\n\t"
	"nopl (%rax)\n\t"
	"lock incq alt_pf(%rip)\n\t"
	"jmp *lib_pf(%rip)\n"
	"ud_alt:\n\t"
	"cld\n\t"
	"lock incq alt_ud(%rip)\n\t"
	"jmp *lib_ud(%rip)\n"
	"pf_alt2:\n\t"
	"endbr64\n\t"
	"lock incq alt_pf2(%rip)\n\t"
	"jmp *lib_pf(%rip)\n"
	".globl int80_entry\n"
	"int80_entry:\n\t"
	"incq int_count(%rip)\n\t"
	"leaq 1(%rax), %rax\n\t"
	"iretq\n"
	".globl user_syscall, user_int80\n"
	"user_syscall:\n\t"
	"movq %rdi, %rax\n\t"
	"syscall\n\t"
	"ret\n"
	"user_int80:\n\t"
	"movq %rdi, %rax\n\t"
	"int $0x80\n\t"
	"ret\n");

static uint64_t gate_offset(const struct idt_gate *g)
{
	return (g->lo & 0xffff) | ((g->lo >> 48) & 0xffff) << 16 |
	       (g->hi & 0xffffffffull) << 32;
}

static void gate_set(struct idt_gate *g, const void *handler)
{
	uint64_t h = (uintptr_t)handler;

	g->lo = (h & 0xffff) | (uint64_t)GUEST_KERNEL_CS << 16 |
		0x8eull << 40 | (h >> 16 & 0xffff) << 48;
	g->hi = h >> 32;
}

struct result {
	uint64_t sys, intr;
};

static void user_calls(void *arg)
{
	struct result *r = arg;

	r->sys = user_syscall(7);
	r->intr = user_int80(9);
}

static void go_calls(void *arg)
{
	run_user(user_calls, arg);
}

static void user_pf(void *arg)
{
	(void)arg;
	(void)*(volatile uint64_t *)(uintptr_t)UNMAPPED;
}

static void user_ud(void *arg)
{
	(void)arg;
	__asm__ volatile("ud2");
}

static void go_user(void *fn)
{
	run_user((void (*)(void *))fn, NULL);
}

/* A SYSCALL and an int $0x80 arrive (at entry want), a ring-3 #PF and
 * #UD reach the guest, and *pf_hits / *ud_hits grow by pf and ud. */
static void step(const char *what, uint64_t want,
		 volatile uint64_t *pf_hits, unsigned int pf,
		 volatile uint64_t *ud_hits, unsigned int ud)
{
	uint64_t p0 = *pf_hits, u0 = *ud_hits, i0 = int_count;
	struct result r = { 0 };
	struct fault f;
	int vec, vpf, vud;

	which = 0;
	vec = guest_try(go_calls, &r, &f);
	vpf = guest_try(go_user, (void *)user_pf, NULL);
	vud = guest_try(go_user, (void *)user_ud, NULL);
	gprintf("syscall_rearm: %s: entry %llu (CS 0x%llx), results %llu/%llu, "
		"vector %d; #PF %d, #UD %d; other handlers hit %llu/%llu\n",
		what, (unsigned long long)which, (unsigned long long)which_cs,
		(unsigned long long)r.sys, (unsigned long long)r.intr, vec,
		vpf, vud, (unsigned long long)(*pf_hits - p0),
		(unsigned long long)(*ud_hits - u0));
	check(vec == -1 && which == want && which_cs == GUEST_KERNEL_CS &&
	      r.sys == 8 && r.intr == 10 && int_count == i0 + 1,
	      "%s: calls: vector %d at 0x%llx, entry %llu (want %llu)", what,
	      vec, (unsigned long long)f.rip, (unsigned long long)which,
	      (unsigned long long)want);
	check(vpf == VEC_PF && vud == VEC_UD, "%s: faults gave %d/%d", what,
	      vpf, vud);
	check(*pf_hits - p0 == pf, "%s: #PF handler hit %llu times, want %u",
	      what, (unsigned long long)(*pf_hits - p0), pf);
	check(*ud_hits - u0 >= ud && (ud || *ud_hits == u0),
	      "%s: #UD handler hit %llu times, want %s%u", what,
	      (unsigned long long)(*ud_hits - u0), ud ? ">= " : "", ud);
}

int payload_main(const struct hvm_start_info *si)
{
	struct desc_ptr lib, mine = { sizeof(new_idt) - 1, (uintptr_t)new_idt };
	const struct idt_gate *old;

	(void)si;
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	wrmsr(MSR_STAR, (uint64_t)GUEST_KERNEL_DS << 48 |
			(uint64_t)GUEST_KERNEL_CS << 32);
	wrmsr(MSR_FMASK, 0x700);
	trap_set_gate(0x80, int80_entry, 3, false);
	__asm__ volatile("sidt %0" : "=m"(lib));
	old = (const struct idt_gate *)(uintptr_t)lib.base;
	lib_pf = gate_offset(&old[VEC_PF]);
	lib_ud = gate_offset(&old[VEC_UD]);

	wrmsr(MSR_LSTAR, (uint64_t)(uintptr_t)entry_a);
	step("1 LSTAR entry_a", 1, &alt_pf, 0, &alt_ud, 0);
	wrmsr(MSR_LSTAR, (uint64_t)(uintptr_t)entry_b);
	check(rdmsr(MSR_LSTAR) == (uintptr_t)entry_b, "LSTAR reads 0x%llx",
	      (unsigned long long)rdmsr(MSR_LSTAR));
	step("2 LSTAR entry_b", 2, &alt_pf, 0, &alt_ud, 0);

	memcpy(new_idt, old, sizeof(new_idt));
	gate_set(&new_idt[VEC_PF], pf_alt);
	gate_set(&new_idt[VEC_UD], ud_alt);
	__asm__ volatile("lidt %0" : : "m"(mine) : "memory");
	gprintf("syscall_rearm: new IDT at 0x%llx\n",
		(unsigned long long)mine.base);
	step("3 new IDT", 2, &alt_pf, 1, &alt_ud, 1);

	gate_set(&new_idt[VEC_PF], pf_alt2);
	gprintf("syscall_rearm: #PF gate rewritten\n");
	step("4 gate rewritten", 2, &alt_pf2, 1, &alt_ud, 1);

	__asm__ volatile("lidt %0" : : "m"(lib) : "memory");
	gprintf("syscall_rearm: the library's IDT back\n");
	step("5 old IDT", 2, &alt_pf2, 0, &alt_ud, 0);
	check(alt_pf == 1, "the first other #PF handler was hit %llu times",
	      (unsigned long long)alt_pf);
	gprintf("syscall_rearm: %u failure(s)\n", check_failures());
	return check_failures() ? 1 : 0;
}
