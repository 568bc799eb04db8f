// SPDX-License-Identifier: MIT
/*
 * int80: `int $0x80` from ring 3, as 32-bit Linux programs make system
 * calls, and `int n` in general.  Through a present DPL-3 gate the CPU
 * enters the handler at CPL 0 on the TSS's ring-0 stack with the frame
 * SS, RSP, RFLAGS, CS and RIP (the instruction after the int), IF cleared
 * by an interrupt gate and kept by a trap gate; IRETQ goes back.  A DPL-0
 * gate raises #GP and a gate not present #NP, both with error code
 * vector * 8 + 2 and RIP at the int.  calls=N calls in a row (default
 * 100).  Genuine faults (ud2 in ring 3) still reach the guest.  Status 0
 * if all held, 1 plus FAIL lines otherwise.
 *
 * On hosts where ring 3 is native and ring 0 emulated (PVM) every `int n`
 * from ring 3 raises #UD instead; the VMM completes it.  It arms its
 * breakpoints once the guest has given SYSCALL a target, as any OS with a
 * user mode does, so LSTAR is set here too; with "nolstar" on the command
 * line it is not, and the VMM must arm on the DPL-3 gate alone (as
 * kvm-unit-tests' user mode needs: it returns to ring 0 by int $0x20).
 */
#include "lib/guest.h"

#define MSR_EFER	0xc0000080
#define MSR_STAR	0xc0000081
#define MSR_LSTAR	0xc0000082
#define EFER_SCE	1ull
#define RFLAGS_IF	0x200ull
/* What ring 3 reads with pushfq may differ from the RFLAGS the guest gave
 * it in these (on PVM hosts it runs with IF set and IOPL 0 whatever the
 * guest said); the frame has the guest's. */
#define RFLAGS_HOST	0x3200ull
#define VEC_UD		6
#define VEC_NP		11
#define VEC_GP		13
#define CALLS_DEFAULT	100

/* The frame the handler found, its own CS and RFLAGS (ring 0), and what
 * the caller saw (ring 3). */
volatile uint64_t h_rip, h_cs, h_flags, h_rsp, h_ss, h_own_cs, h_own_flags;
volatile uint64_t h_rax, h_count, user_flags, user_rsp;
extern const char int80_entry[], int80_ret[], int81_entry[], int81_at[];
extern const char sys_stub[];
uint64_t user_int80(uint64_t nr);
void user_int81(void);

__asm__(".text\n"
	".globl int80_entry\n"
	"int80_entry:\n\t"
	"pushq %rcx\n\t"
	"movq 8(%rsp), %rcx\n\tmovq %rcx, h_rip(%rip)\n\t"
	"movq 16(%rsp), %rcx\n\tmovq %rcx, h_cs(%rip)\n\t"
	"movq 24(%rsp), %rcx\n\tmovq %rcx, h_flags(%rip)\n\t"
	"movq 32(%rsp), %rcx\n\tmovq %rcx, h_rsp(%rip)\n\t"
	"movq 40(%rsp), %rcx\n\tmovq %rcx, h_ss(%rip)\n\t"
	"movq %cs, %rcx\n\tmovq %rcx, h_own_cs(%rip)\n\t"
	"pushfq\n\tpopq h_own_flags(%rip)\n\t"
	"movq %rax, h_rax(%rip)\n\t"
	"incq h_count(%rip)\n\t"
	"popq %rcx\n\t"
	"leaq 1(%rax), %rax\n\t"
	"iretq\n"
	/* A gate for int $0x81 that only counts. */
	".globl int81_entry\n"
	"int81_entry:\n\t"
	"incq h_count(%rip)\n\t"
	"iretq\n"
	/* user_int80(nr): RAX = nr through int $0x80, RAX back. */
	".globl user_int80, int80_ret\n"
	"user_int80:\n\t"
	"movq %rdi, %rax\n\t"
	"pushfq\n\tpopq user_flags(%rip)\n\t"
	"movq %rsp, user_rsp(%rip)\n\t"
	"int $0x80\n"
	"int80_ret:\n\t"
	"ret\n"
	".globl user_int81, int81_at\n"
	"user_int81:\n"
	"int81_at:\n\t"
	"int $0x81\n\t"
	"ret\n"
	/* LSTAR's target; no SYSCALL is made here. */
	".globl sys_stub\n"
	"sys_stub:\n\t"
	"sysretq\n");

struct calls {
	uint64_t n, bad, got;
};

static void user_calls(void *arg)
{
	struct calls *c = arg;

	if (!c->n) {
		c->got = user_int80(0x41);
		return;
	}
	for (uint64_t i = 0; i < c->n; i++)
		if (user_int80(i) != i + 1)
			c->bad++;
}

static void u_int80(void *arg)
{
	(void)arg;
	user_int80(0);
}

static void u_int81(void *arg)
{
	(void)arg;
	user_int81();
}

static void u_ud2(void *arg)
{
	(void)arg;
	__asm__ volatile("ud2");
}

static void go_user(void *fn)
{
	run_user((void (*)(void *))fn, NULL);
}

static void go_calls(void *arg)
{
	run_user(user_calls, arg);
}

/* One int $0x80 through the gate as set; checks the frame. */
static void check_gate(const char *what, bool trap_gate)
{
	struct calls c = { 0 };
	struct fault f;
	uint64_t if_want;
	int vec;

	trap_set_gate(0x80, int80_entry, 3, trap_gate);
	vec = guest_try(go_calls, &c, &f);
	gprintf("int80: %s: vector %d; frame RIP 0x%llx CS 0x%llx RFLAGS "
		"0x%llx RSP 0x%llx SS 0x%llx; handler CS 0x%llx RFLAGS 0x%llx\n",
		what, vec, (unsigned long long)h_rip, (unsigned long long)h_cs,
		(unsigned long long)h_flags, (unsigned long long)h_rsp,
		(unsigned long long)h_ss, (unsigned long long)h_own_cs,
		(unsigned long long)h_own_flags);
	if (!check(vec == -1, "%s: vector %d at RIP 0x%llx", what, vec,
		   (unsigned long long)f.rip))
		return;
	check(h_own_cs == GUEST_KERNEL_CS, "%s: handler CS 0x%llx", what,
	      (unsigned long long)h_own_cs);
	check(h_rip == (uintptr_t)int80_ret && h_cs == GUEST_USER_CS &&
	      h_ss == GUEST_USER_DS && h_rsp == user_rsp,
	      "%s: frame RIP 0x%llx CS 0x%llx SS 0x%llx RSP 0x%llx, expected "
	      "0x%llx 0x%x 0x%x 0x%llx", what, (unsigned long long)h_rip,
	      (unsigned long long)h_cs, (unsigned long long)h_ss,
	      (unsigned long long)h_rsp, (unsigned long long)(uintptr_t)int80_ret,
	      GUEST_USER_CS, GUEST_USER_DS, (unsigned long long)user_rsp);
	check(!((h_flags ^ user_flags) & ~RFLAGS_HOST), "%s: frame RFLAGS "
	      "0x%llx, the caller's 0x%llx", what, (unsigned long long)h_flags,
	      (unsigned long long)user_flags);
	if_want = trap_gate ? h_flags & RFLAGS_IF : 0;
	check((h_own_flags & RFLAGS_IF) == if_want, "%s: handler IF %d, "
	      "expected %d", what, !!(h_own_flags & RFLAGS_IF), !!if_want);
	check(h_rax == 0x41 && c.got == 0x42, "%s: RAX in 0x%llx, back 0x%llx",
	      what, (unsigned long long)h_rax, (unsigned long long)c.got);
}

static void check_many(uint64_t n)
{
	struct calls c = { .n = n };
	uint64_t before = h_count;
	int vec;

	trap_set_gate(0x80, int80_entry, 3, false);
	vec = guest_try(go_calls, &c, NULL);
	gprintf("int80: %llu calls in a row: %llu arrived, %llu wrong; vector "
		"%d\n", (unsigned long long)n,
		(unsigned long long)(h_count - before),
		(unsigned long long)c.bad, vec);
	check(vec == -1 && h_count - before == n && !c.bad,
	      "%llu calls: %llu arrived, %llu wrong", (unsigned long long)n,
	      (unsigned long long)(h_count - before),
	      (unsigned long long)c.bad);
}

/* An int the gate refuses: the CPU's fault, at the int, from ring 3. */
static void check_refused(const char *what, unsigned int dpl, bool present,
			  int want)
{
	uint32_t err = 0x80 * 8 + 2;
	struct fault f;
	int vec;

	trap_set_gate(0x80, present ? int80_entry : NULL, dpl, false);
	vec = guest_try(go_user, (void *)u_int80, &f);
	gprintf("int80: %s: vector %d error 0x%llx RIP 0x%llx CS 0x%llx\n",
		what, vec, (unsigned long long)f.error_code,
		(unsigned long long)f.rip, (unsigned long long)f.cs);
	check(vec == want && f.error_code == err &&
	      f.rip == (uintptr_t)int80_ret - 2 && f.cs == GUEST_USER_CS,
	      "%s: vector %d error 0x%llx RIP 0x%llx, expected %d 0x%x 0x%llx",
	      what, vec, (unsigned long long)f.error_code,
	      (unsigned long long)f.rip, want, err,
	      (unsigned long long)(uintptr_t)int80_ret - 2);
}

static void check_other(void)
{
	uint64_t before = h_count;
	struct fault f;
	int vec;

	trap_set_gate(0x81, int81_entry, 3, false);
	vec = guest_try(go_user, (void *)u_int81, &f);
	gprintf("int80: int $0x81: vector %d, %llu arrived\n", vec,
		(unsigned long long)(h_count - before));
	check(vec == -1 && h_count - before == 1,
	      "int $0x81: vector %d at RIP 0x%llx, %llu arrived", vec,
	      (unsigned long long)f.rip,
	      (unsigned long long)(h_count - before));
	vec = guest_try(go_user, (void *)u_ud2, &f);
	gprintf("int80: ring-3 ud2: vector %d CS 0x%llx\n", vec,
		(unsigned long long)f.cs);
	check(vec == VEC_UD && f.cs == GUEST_USER_CS,
	      "ring-3 ud2: vector %d CS 0x%llx", vec,
	      (unsigned long long)f.cs);
}

int payload_main(const struct hvm_start_info *si)
{
	uint64_t calls = CALLS_DEFAULT;

	cmdline_u64(start_info_cmdline(si), "calls", &calls);
	if (cmdline_has(start_info_cmdline(si), "nolstar")) {
		/* The gate opens, and the VMM sees it at the next exit (this
		 * line's port writes). */
		trap_set_gate(0x80, int80_entry, 3, false);
		gputs("int80: no LSTAR, gate 0x80 open to ring 3\n");
	} else {
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
		wrmsr(MSR_STAR, (uint64_t)GUEST_KERNEL_DS << 48 |
				(uint64_t)GUEST_KERNEL_CS << 32);
		wrmsr(MSR_LSTAR, (uint64_t)(uintptr_t)sys_stub);
	}
	check_gate("interrupt gate", false);
	check_gate("trap gate", true);
	if (calls)
		check_many(calls);
	check_refused("DPL-0 gate", 0, true, VEC_GP);
	check_refused("gate not present", 3, false, VEC_NP);
	check_other();
	gprintf("int80: %u failure(s)\n", check_failures());
	return check_failures() ? 1 : 0;
}
