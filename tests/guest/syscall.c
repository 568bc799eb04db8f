// SPDX-License-Identifier: MIT
/*
 * syscall: a SYSCALL from ring 3 must enter the MSR_LSTAR handler at CPL 0
 * with RCX = the return RIP and R11 = RFLAGS, and SYSRETQ must bring it
 * back to ring 3 -- what every Linux system call does.  Prints what it
 * saw; status 0 if all held, 1 plus FAIL lines otherwise.
 *
 * On the PVM host minivmm was developed on, the handler runs but at CPL 3
 * (its CS reads 0x33), so SYSRETQ raises #GP: guest user mode cannot make
 * a system call there, and no exit reaches the VMM to fix it up.
 */
#include "lib/guest.h"

#define MSR_EFER	0xc0000080
#define MSR_STAR	0xc0000081
#define MSR_LSTAR	0xc0000082
#define MSR_FMASK	0xc0000084
#define EFER_SCE	1ull

volatile uint64_t sys_cs = ~0ull, sys_rcx, sys_r11;
extern const char sys_entry[], sys_ret_rip[];

/* The handler records CS (whose low bits are the CPL), RCX and R11, then
 * returns with SYSRETQ. */
__asm__(".text\n"
	".globl sys_entry\n"
	"sys_entry:\n\t"
	"movq %rcx, sys_rcx(%rip)\n\t"
	"movq %r11, sys_r11(%rip)\n\t"
	"movq %cs, %rcx\n\t"
	"movq %rcx, sys_cs(%rip)\n\t"
	"movq sys_rcx(%rip), %rcx\n\t"
	"sysretq\n");

static void user_syscall(void *arg)
{
	(void)arg;
	__asm__ volatile("syscall\n\t.globl sys_ret_rip\nsys_ret_rip:"
			 ::: "rcx", "r11", "memory");
}

static void go_user(void *arg)
{
	(void)arg;
	run_user(user_syscall, NULL);
}

int payload_main(const struct hvm_start_info *si)
{
	struct fault f;
	int vec;

	(void)si;
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	/* SYSCALL: CS = 0x08, SS = 0x10; SYSRETQ: CS = 0x10 + 16 | 3 = 0x23,
	 * SS = 0x10 + 8 | 3 = 0x1b (the library's user segments). */
	wrmsr(MSR_STAR, (uint64_t)GUEST_KERNEL_DS << 48 |
			(uint64_t)GUEST_KERNEL_CS << 32);
	wrmsr(MSR_LSTAR, (uint64_t)(uintptr_t)sys_entry);
	wrmsr(MSR_FMASK, 0);
	vec = guest_try(go_user, NULL, &f);
	gprintf("syscall: handler CS 0x%llx, RCX 0x%llx, R11 0x%llx; "
		"vector %d\n", (unsigned long long)sys_cs,
		(unsigned long long)sys_rcx, (unsigned long long)sys_r11, vec);
	check(sys_cs == GUEST_KERNEL_CS,
	      "the LSTAR handler ran with CS 0x%llx, expected 0x%x (CPL 0)",
	      (unsigned long long)sys_cs, GUEST_KERNEL_CS);
	check(sys_rcx == (uint64_t)(uintptr_t)sys_ret_rip,
	      "RCX 0x%llx, expected the return RIP 0x%llx",
	      (unsigned long long)sys_rcx,
	      (unsigned long long)(uintptr_t)sys_ret_rip);
	check(vec == -1, "SYSRETQ raised vector %d at RIP 0x%llx (CS 0x%llx)",
	      vec, (unsigned long long)f.rip, (unsigned long long)f.cs);
	return check_failures() ? 1 : 0;
}
