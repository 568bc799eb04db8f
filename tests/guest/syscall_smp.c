// SPDX-License-Identifier: MIT
/*
 * syscall_smp: every vCPU in ring 3 making system calls at the same time,
 * as a multi-threaded program does.  With cpus=N (N = minivmm's -c) the
 * BSP starts the APs one by one (lib/ap.h: INIT/SIPI, a real-mode
 * trampoline to long mode; each moves to its own stack at once, freeing
 * the library's); each CPU gets its own GDT and TSS (its own ring-0 stack),
 * shares the IDT, programs its own EFER.SCE, STAR, LSTAR and FMASK, and
 * enters ring 3.  Once all are there, each makes iters=K pairs of SYSCALL
 * and int $0x80 (default 200), checks every result, and leaves ring 3
 * with a last SYSCALL (RAX = -1).  The handlers count per CPU and check
 * they run at CPL 0.  Status 0 if every CPU arrived and every call came
 * back right, 1 plus FAIL lines otherwise.
 */
#include "lib/ap.h"
#include "lib/guest.h"

#define MSR_EFER	0xc0000080
#define MSR_STAR	0xc0000081
#define MSR_LSTAR	0xc0000082
#define MSR_FMASK	0xc0000084
#define EFER_SCE	1ull
#define FMASK		0x700ull	/* TF, IF, DF */
#define MAX_CPUS	16
#define ITERS_DEFAULT	200
#define STACK_SIZE	8192
#define WAIT_TSC	(1ull << 34)	/* some seconds: a safety net */

struct __attribute__((packed)) tss64 {
	uint32_t reserved0;
	uint64_t rsp0, rsp1, rsp2;
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
};

struct __attribute__((packed)) desc_ptr {
	uint16_t limit;
	uint64_t base;
};

struct cpu {
	uint64_t gdt[7];
	struct tss64 tss;
	uint8_t kstack[STACK_SIZE] __attribute__((aligned(16)));
	uint8_t ustack[STACK_SIZE] __attribute__((aligned(16)));
};

static struct cpu cpus[MAX_CPUS] __attribute__((aligned(64)));
static uint8_t ap_stacks[MAX_CPUS][STACK_SIZE] __attribute__((aligned(16)));
static struct desc_ptr bsp_idt;

/* Per CPU, indexed by the CPU number the user code keeps in RDI. */
uint64_t saved_rsp[MAX_CPUS], sys_calls[MAX_CPUS], int_calls[MAX_CPUS];
uint64_t bad_cs[MAX_CPUS], user_bad[MAX_CPUS];
uint64_t iters = ITERS_DEFAULT;
volatile uint32_t moved, ready, done, go;

extern const char smp_sys_entry[], smp_int80[];
void ap_run(uint64_t idx);
void smp_enter_user(uint64_t idx, void *stack_top);
void smp_on_stack(uint64_t idx, void *stack_top, void (*fn)(uint64_t));

__asm__(
	"	.pushsection .text\n"
	/* smp_on_stack(idx, stack_top, fn): fn(idx) on another stack. */
	"	.globl smp_on_stack\n"
	"smp_on_stack:\n"
	"	movq %rsi, %rsp\n"
	"	call *%rdx\n"
	"1:	cli\n"
	"	hlt\n"
	"	jmp 1b\n"
	/* smp_enter_user(idx, stack_top): ring 3 at smp_user; comes back
	 * (smp_back) when the user code's last SYSCALL asks to. */
	"	.globl smp_enter_user\n"
	"smp_enter_user:\n"
	"	pushq %rbx\n	pushq %rbp\n	pushq %r12\n"
	"	pushq %r13\n	pushq %r14\n	pushq %r15\n"
	"	movq %rsp, saved_rsp(,%rdi,8)\n"
	"	pushq $0x1b\n"
	"	pushq %rsi\n"
	"	pushq $0x2\n"
	"	pushq $0x23\n"
	"	leaq smp_user(%rip), %rax\n"
	"	pushq %rax\n"
	"	iretq\n"
	"smp_back:\n"
	"	popq %r15\n	popq %r14\n	popq %r13\n"
	"	popq %r12\n	popq %rbp\n	popq %rbx\n"
	"	ret\n"
	/* Ring 3, RDI = the CPU: wait for go, then iters pairs of calls;
	 * each returns RAX + 1. */
	"smp_user:\n"
	"1:	pause\n"
	"	cmpl $0, go(%rip)\n"
	"	je 1b\n"
	"	xorl %ebx, %ebx\n"
	"2:	movq %rbx, %rax\n"
	"	syscall\n"
	"	leaq 1(%rbx), %rcx\n"
	"	cmpq %rcx, %rax\n"
	"	je 3f\n"
	"	lock incq user_bad(,%rdi,8)\n"
	"3:	movq %rbx, %rax\n"
	"	int $0x80\n"
	"	leaq 1(%rbx), %rcx\n"
	"	cmpq %rcx, %rax\n"
	"	je 4f\n"
	"	lock incq user_bad(,%rdi,8)\n"
	"4:	incq %rbx\n"
	"	cmpq iters(%rip), %rbx\n"
	"	jb 2b\n"
	"	movq $-1, %rax\n"
	"	syscall\n"
	"	ud2\n"
	/* The handlers (CPL 0 expected): count, RAX + 1.  RDX is theirs. */
	"	.globl smp_sys_entry\n"
	"smp_sys_entry:\n"
	"	cmpq $-1, %rax\n"
	"	je 9f\n"
	"	movl %cs, %edx\n"
	"	cmpl $8, %edx\n"
	"	je 1f\n"
	"	lock incq bad_cs(,%rdi,8)\n"
	"1:	lock incq sys_calls(,%rdi,8)\n"
	"	leaq 1(%rax), %rax\n"
	"	sysretq\n"
	"9:	movq saved_rsp(,%rdi,8), %rsp\n"
	"	jmp smp_back\n"
	"	.globl smp_int80\n"
	"smp_int80:\n"
	"	movl %cs, %edx\n"
	"	cmpl $8, %edx\n"
	"	je 1f\n"
	"	lock incq bad_cs(,%rdi,8)\n"
	"1:	lock incq int_calls(,%rdi,8)\n"
	"	leaq 1(%rax), %rax\n"
	"	iretq\n"
	"	.popsection\n");

extern uint64_t guest_gdt[];

/* Own GDT (the library's segments, then this CPU's TSS), the shared IDT,
 * this CPU's SYSCALL MSRs. */
static void cpu_setup(uint32_t idx)
{
	struct cpu *c = &cpus[idx];
	uint64_t base = (uintptr_t)&c->tss, limit = sizeof(c->tss) - 1;
	struct desc_ptr gdt = { sizeof(c->gdt) - 1, (uintptr_t)c->gdt };

	memcpy(c->gdt, guest_gdt, 5 * sizeof(uint64_t));
	c->gdt[5] = (limit & 0xffff) | (base & 0xffffff) << 16 | 0x89ull << 40 |
		    (limit >> 16 & 0xf) << 48 | (base >> 24 & 0xff) << 56;
	c->gdt[6] = base >> 32;
	c->tss.rsp0 = (uintptr_t)c->kstack + STACK_SIZE;
	c->tss.iomap_base = sizeof(c->tss);
	__asm__ volatile("lgdt %0" : : "m"(gdt));
	__asm__ volatile("ltr %w0" : : "r"(GUEST_TSS_SEL));
	__asm__ volatile("lidt %0" : : "m"(bsp_idt));
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	wrmsr(MSR_STAR, (uint64_t)GUEST_KERNEL_DS << 48 |
			(uint64_t)GUEST_KERNEL_CS << 32);
	wrmsr(MSR_LSTAR, (uint64_t)(uintptr_t)smp_sys_entry);
	wrmsr(MSR_FMASK, FMASK);
}

/* On the AP's own stack: the library's is free for the next AP. */
void ap_run(uint64_t idx)
{
	__atomic_fetch_add(&moved, 1, __ATOMIC_SEQ_CST);
	cpu_setup((uint32_t)idx);
	__atomic_fetch_add(&ready, 1, __ATOMIC_SEQ_CST);
	smp_enter_user(idx, cpus[idx].ustack + STACK_SIZE);
	__atomic_fetch_add(&done, 1, __ATOMIC_SEQ_CST);
}

static void ap_main(void *arg)
{
	uint64_t idx = (uintptr_t)arg;

	smp_on_stack(idx, ap_stacks[idx] + STACK_SIZE, ap_run);
}

/* Waits (ring 0) until *n reaches want or the safety net runs out. */
static uint32_t wait_for(volatile uint32_t *n, uint32_t want)
{
	uint64_t end = rdtsc() + WAIT_TSC;

	while (__atomic_load_n(n, __ATOMIC_ACQUIRE) < want && rdtsc() < end)
		__asm__ volatile("pause");
	return *n;
}

int payload_main(const struct hvm_start_info *si)
{
	const char *cmd = start_info_cmdline(si);
	uint64_t ncpus = 1;
	uint32_t aps;

	cmdline_u64(cmd, "cpus", &ncpus);
	cmdline_u64(cmd, "iters", &iters);
	if (!check(ncpus >= 1 && ncpus <= MAX_CPUS, "cpus=%llu: 1..%u",
		   (unsigned long long)ncpus, MAX_CPUS))
		return 1;
	aps = (uint32_t)ncpus - 1;
	trap_set_gate(0x80, smp_int80, 3, false);
	__asm__ volatile("sidt %0" : "=m"(bsp_idt));
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	wrmsr(MSR_STAR, (uint64_t)GUEST_KERNEL_DS << 48 |
			(uint64_t)GUEST_KERNEL_CS << 32);
	wrmsr(MSR_LSTAR, (uint64_t)(uintptr_t)smp_sys_entry);
	wrmsr(MSR_FMASK, FMASK);
	for (uint32_t i = 1; i <= aps; i++) {
		ap_start(i, ap_main, (void *)(uintptr_t)i);
		if (!check(wait_for(&moved, i) == i, "AP %u never ran", i))
			break;
	}
	check(wait_for(&ready, aps) == aps, "%u of %u APs reached ring 3",
	      ready, aps);
	go = 1;
	smp_enter_user(0, cpus[0].ustack + STACK_SIZE);
	check(wait_for(&done, ready) == ready, "%u of %u CPUs came back from "
	      "ring 3", done + 1, ready + 1);
	for (uint32_t i = 0; i <= ready; i++) {
		gprintf("syscall_smp: cpu %u: %llu SYSCALL, %llu int $0x80, "
			"%llu wrong results, %llu not at CPL 0\n", i,
			(unsigned long long)sys_calls[i],
			(unsigned long long)int_calls[i],
			(unsigned long long)user_bad[i],
			(unsigned long long)bad_cs[i]);
		check(sys_calls[i] == iters && int_calls[i] == iters &&
		      !user_bad[i] && !bad_cs[i], "cpu %u: calls went wrong", i);
	}
	gprintf("syscall_smp: %u failure(s)\n", check_failures());
	return check_failures() ? 1 : 0;
}
