// SPDX-License-Identifier: MIT
/*
 * syscall: what every Linux system call relies on.  A SYSCALL from ring 3
 * must enter the MSR_LSTAR handler at CPL 0 with CS and SS from STAR,
 * RCX = the return RIP, R11 = the caller's RFLAGS, RFLAGS = the caller's
 * minus FMASK, RSP and the other registers untouched; SYSRETQ must bring
 * it back to ring 3 with RFLAGS from R11.  Also: RDMSR reads LSTAR back
 * as written, calls=N calls in a row all arrive (default 100), and faults
 * from ring 3 and ring 0 still reach the guest's own handlers with their
 * vector, error code and CR2, and a SYSCALL from ring 0 enters its LSTAR
 * target at CPL 0 with RCX and R11 set (kvm-unit-tests' syscall test).  Prints what it saw; status 0 if all held,
 * 1 plus FAIL lines otherwise.
 *
 * The library maps every page user-accessible, so LSTAR's page is one
 * ring 3 could run: on hosts that run SYSCALL on at LSTAR in ring 3 (PVM)
 * the VMM must still make it enter ring 0.  Without that, the handler runs
 * at CPL 3 (its CS reads 0x33 there) and its SYSRETQ raises #GP.
 */
#include "lib/guest.h"

#define MSR_EFER	0xc0000080
#define MSR_STAR	0xc0000081
#define MSR_LSTAR	0xc0000082
#define MSR_FMASK	0xc0000084
#define EFER_SCE	1ull
#define RFLAGS_IF	0x200ull
#define RFLAGS_DF	0x400ull
#define FMASK		(RFLAGS_IF | RFLAGS_DF)
#define PF_USER		4u
#define UNMAPPED	0xffff900000000000ull	/* canonical, not mapped */
#define CALLS_DEFAULT	100

/* What the handler saw (ring 0) and what the caller saw (ring 3). */
volatile uint64_t sys_cs = ~0ull, sys_ss, sys_rcx, sys_r11, sys_rsp;
volatile uint64_t sys_flags, sys_rax, sys_rdi, sys_count;
volatile uint64_t user_flags, user_flags_after, user_rsp;
extern const char sys_entry[], sys_ret_rip[];
uint64_t user_syscall(uint64_t nr, uint64_t arg);

/* The handler records its state and returns RAX + 1 with SYSRETQ; it
 * runs on the caller's stack, as SYSCALL does not switch stacks. */
__asm__(".text\n"
	".globl sys_entry\n"
	"sys_entry:\n\t"
	"movq %rcx, sys_rcx(%rip)\n\t"
	"movq %r11, sys_r11(%rip)\n\t"
	"movq %rsp, sys_rsp(%rip)\n\t"
	"pushfq\n\t"
	"popq sys_flags(%rip)\n\t"
	"movq %cs, %rcx\n\t"
	"movq %rcx, sys_cs(%rip)\n\t"
	"movq %ss, %rcx\n\t"
	"movq %rcx, sys_ss(%rip)\n\t"
	"movq %rax, sys_rax(%rip)\n\t"
	"movq %rdi, sys_rdi(%rip)\n\t"
	"incq sys_count(%rip)\n\t"
	"leaq 1(%rax), %rax\n\t"
	"movq sys_rcx(%rip), %rcx\n\t"
	"sysretq\n"
	/* user_syscall(nr, arg): RAX = nr, RDI = arg, DF set across the
	 * call (FMASK must clear it inside, SYSRETQ bring it back). */
	".globl user_syscall, sys_ret_rip\n"
	"user_syscall:\n\t"
	"movq %rdi, %rax\n\t"
	"movq %rsi, %rdi\n\t"
	"std\n\t"
	"pushfq\n\t"
	"popq user_flags(%rip)\n\t"
	"movq %rsp, user_rsp(%rip)\n\t"
	"syscall\n"
	"sys_ret_rip:\n\t"
	"pushfq\n\t"
	"popq user_flags_after(%rip)\n\t"
	"cld\n\t"
	"ret\n");

/* A ring-0 SYSCALL's target: records CS and returns to RCX with R11's
 * flags (SYSRETQ would go to ring 3). */
volatile uint64_t sys0_cs = ~0ull, sys0_count, sys0_rcx;
extern const char sys0_entry[], sys0_ret_rip[];

__asm__(".text\n"
	".globl sys0_entry\n"
	"sys0_entry:\n\t"
	"movq %cs, %rax\n\t"
	"movq %rax, sys0_cs(%rip)\n\t"
	"movq %rcx, sys0_rcx(%rip)\n\t"
	"incq sys0_count(%rip)\n\t"
	"pushq %r11\n\t"
	"popfq\n\t"
	"jmp *%rcx\n");

static void check_ring0(void)
{
	wrmsr(MSR_LSTAR, (uint64_t)(uintptr_t)sys0_entry);
	__asm__ volatile("syscall\n\t.globl sys0_ret_rip\nsys0_ret_rip:"
			 : : : "rax", "rcx", "r11", "memory");
	wrmsr(MSR_LSTAR, (uint64_t)(uintptr_t)sys_entry);
	gprintf("syscall: from ring 0: %llu entries, CS 0x%llx\n",
		(unsigned long long)sys0_count, (unsigned long long)sys0_cs);
	check(sys0_count == 1, "ring-0 SYSCALL: %llu entries, expected 1",
	      (unsigned long long)sys0_count);
	check(sys0_cs == GUEST_KERNEL_CS, "ring-0 SYSCALL: CS 0x%llx",
	      (unsigned long long)sys0_cs);
	check(sys0_rcx == (uint64_t)(uintptr_t)sys0_ret_rip,
	      "ring-0 SYSCALL: RCX 0x%llx", (unsigned long long)sys0_rcx);
}

struct calls {
	uint64_t n, bad, first_bad, got;
};

static void user_one(void *arg)
{
	struct calls *c = arg;

	c->got = user_syscall(41, 0x1234);
}

static void user_many(void *arg)
{
	struct calls *c = arg;

	for (uint64_t i = 0; i < c->n; i++) {
		uint64_t r = user_syscall(i, i * 3);

		if (r != i + 1 && !c->bad++)
			c->first_bad = i;
	}
}

static void go_user(void *arg)
{
	struct calls *c = arg;

	run_user(c->n ? user_many : user_one, c);
}

static void check_one(void)
{
	struct calls c = { 0 };
	struct fault f;
	int vec = guest_try(go_user, &c, &f);

	gprintf("syscall: handler CS 0x%llx SS 0x%llx RFLAGS 0x%llx, RCX 0x%llx, "
		"R11 0x%llx (caller 0x%llx); vector %d\n",
		(unsigned long long)sys_cs, (unsigned long long)sys_ss,
		(unsigned long long)sys_flags, (unsigned long long)sys_rcx,
		(unsigned long long)sys_r11, (unsigned long long)user_flags,
		vec);
	check(sys_cs == GUEST_KERNEL_CS,
	      "the LSTAR handler ran with CS 0x%llx, expected 0x%x (CPL 0)",
	      (unsigned long long)sys_cs, GUEST_KERNEL_CS);
	check(vec == -1, "SYSRETQ raised vector %d at RIP 0x%llx (CS 0x%llx)",
	      vec, (unsigned long long)f.rip, (unsigned long long)f.cs);
	if (vec != -1)
		return;
	check(sys_ss == GUEST_KERNEL_DS, "SS 0x%llx, expected 0x%x from STAR",
	      (unsigned long long)sys_ss, GUEST_KERNEL_DS);
	check(sys_rcx == (uint64_t)(uintptr_t)sys_ret_rip,
	      "RCX 0x%llx, expected the return RIP 0x%llx",
	      (unsigned long long)sys_rcx,
	      (unsigned long long)(uintptr_t)sys_ret_rip);
	check(sys_r11 == user_flags, "R11 0x%llx, the caller's RFLAGS 0x%llx",
	      (unsigned long long)sys_r11, (unsigned long long)user_flags);
	check(!(sys_flags & FMASK), "RFLAGS 0x%llx in the handler: FMASK 0x%llx "
	      "not applied", (unsigned long long)sys_flags,
	      (unsigned long long)FMASK);
	check(sys_rsp == user_rsp, "RSP 0x%llx in the handler, the caller's "
	      "0x%llx", (unsigned long long)sys_rsp,
	      (unsigned long long)user_rsp);
	check(sys_rax == 41 && sys_rdi == 0x1234 && c.got == 42,
	      "RAX/RDI in 0x%llx/0x%llx, RAX back 0x%llx (expected 41/0x1234, "
	      "42)", (unsigned long long)sys_rax, (unsigned long long)sys_rdi,
	      (unsigned long long)c.got);
	check(user_flags_after == user_flags, "RFLAGS 0x%llx after SYSRETQ, "
	      "0x%llx before", (unsigned long long)user_flags_after,
	      (unsigned long long)user_flags);
}

static void check_many(uint64_t n)
{
	struct calls c = { .n = n };
	uint64_t before = sys_count;
	int vec = guest_try(go_user, &c, NULL);

	gprintf("syscall: %llu calls in a row: %llu arrived, %llu wrong "
		"results; vector %d\n", (unsigned long long)n,
		(unsigned long long)(sys_count - before),
		(unsigned long long)c.bad, vec);
	check(vec == -1 && sys_count - before == n && !c.bad,
	      "%llu calls: %llu arrived, %llu wrong (first at %llu)",
	      (unsigned long long)n, (unsigned long long)(sys_count - before),
	      (unsigned long long)c.bad, (unsigned long long)c.first_bad);
}

/* ---- faults must still reach the guest ------------------------------ */

static void user_read_unmapped(void *arg)
{
	(void)arg;
	(void)*(volatile uint64_t *)(uintptr_t)UNMAPPED;
}

static void user_ud2(void *arg)
{
	(void)arg;
	__asm__ volatile("ud2");
}

static void user_go(void *fn)
{
	run_user((void (*)(void *))fn, NULL);
}

static void check_fault(const char *what, void (*fn)(void *), bool user,
			int want_vec)
{
	struct fault f;
	int vec = user ? guest_try(user_go, (void *)fn, &f) :
			 guest_try(fn, NULL, &f);

	gprintf("syscall: %s: vector %d error 0x%llx CS 0x%llx CR2 0x%llx\n",
		what, vec, (unsigned long long)f.error_code,
		(unsigned long long)f.cs, (unsigned long long)f.cr2);
	if (!check(vec == want_vec, "%s: vector %d, expected %d", what, vec,
		   want_vec))
		return;
	check((f.cs & 3) == (user ? 3u : 0u), "%s: CS 0x%llx", what,
	      (unsigned long long)f.cs);
	if (want_vec == 14)
		check(f.cr2 == UNMAPPED &&
		      !!(f.error_code & PF_USER) == user,
		      "%s: CR2 0x%llx error 0x%llx", what,
		      (unsigned long long)f.cr2,
		      (unsigned long long)f.error_code);
}

int payload_main(const struct hvm_start_info *si)
{
	uint64_t calls = CALLS_DEFAULT, lstar;

	cmdline_u64(start_info_cmdline(si), "calls", &calls);
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	/* SYSCALL: CS = 0x08, SS = 0x10; SYSRETQ: CS = 0x10 + 16 | 3 = 0x23,
	 * SS = 0x10 + 8 | 3 = 0x1b (the library's user segments). */
	wrmsr(MSR_STAR, (uint64_t)GUEST_KERNEL_DS << 48 |
			(uint64_t)GUEST_KERNEL_CS << 32);
	wrmsr(MSR_LSTAR, (uint64_t)(uintptr_t)sys_entry);
	wrmsr(MSR_FMASK, FMASK);
	lstar = rdmsr(MSR_LSTAR);
	check(lstar == (uint64_t)(uintptr_t)sys_entry,
	      "LSTAR reads 0x%llx, written 0x%llx", (unsigned long long)lstar,
	      (unsigned long long)(uintptr_t)sys_entry);
	check_one();
	if (!check_failures() && calls)
		check_many(calls);
	check_ring0();
	check_fault("ring-3 read of an unmapped page", user_read_unmapped, true,
		    14);
	check_fault("ring-3 ud2", user_ud2, true, 6);
	check_fault("ring-0 read of an unmapped page", user_read_unmapped, false,
		    14);
	gprintf("syscall: %u failure(s)\n", check_failures());
	return check_failures() ? 1 : 0;
}
