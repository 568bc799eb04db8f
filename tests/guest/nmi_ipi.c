// SPDX-License-Identifier: MIT
/*
 * nmi_ipi: an NMI sent as an IPI through the local APIC (ICR delivery
 * mode NMI) reaches another vCPU and runs its IDT vector 2 handler, as
 * Linux's NMI backtrace (nmi_trigger_cpumask_backtrace) needs.  Run with
 * minivmm -c 2.  The BSP starts the AP and puts it, case by case, in one
 * state: (a) a ring-0 loop with interrupts off, (b) a ring-0 loop with
 * interrupts on, (c) hlt with IF=1, (d) a ring-3 loop; in each state it
 * sends one NMI with a fixed destination (APIC 1) and one with the "all
 * excluding self" shorthand.  After each send it checks the ICR delivery
 * status goes idle, then waits (a TSC deadline, never forever) for the
 * AP's handler.  The handler counts per case the AP was in when it ran
 * (a late NMI shows in a later case) and records the interrupted CS.
 * One line per case: delivered or not, TSC cycles from the ICR write to
 * the handler.  Every case runs after the previous handler's IRETQ, so
 * an NMI left blocked by an IRETQ shows as every later case failing.
 * Status 0 if every NMI arrived once in its case, 1 plus FAIL lines
 * otherwise.  wait=N sets the per-case deadline in TSC cycles.
 *
 * How Linux sends and takes them, by option: "ist" runs the handler on
 * an interrupt stack (TSS IST1), as Linux's NMI gate does; "logical"
 * sends in flat logical destination mode (DFR flat, LDR one bit per CPU:
 * Linux's xAPIC default up to 8 CPUs); "x2apic" switches both CPUs to
 * x2APIC mode and sends through the ICR MSR (no delivery status there).
 * "pvipi" sends through KVM's paravirtual IPI hypercall instead
 * (VMCALL KVM_HC_SEND_IPI, a bitmap of APIC 1; Linux's way when CPUID
 * offers KVM_FEATURE_PV_SEND_IPI), both send kinds alike; as Linux, only
 * if CPUID offers it (else the ICR, and the first line says so).
 * "hc=N" first makes one VMCALL with RAX = N (RBX = 2, RCX = RDX = 0,
 * RSI = the wake-up vector: KVM_HC_SEND_IPI of a plain interrupt to APIC
 * 1 for N = 10) and prints what it returned.
 * "dest=N" sends the fixed-destination NMIs to APIC N instead: with no
 * such CPU those cases must time out and say so (the test's own check).
 */
#include "lib/ap.h"
#include "lib/guest.h"

#define LAPIC_LDR	0xfee000d0u
#define LAPIC_DFR	0xfee000e0u
#define LAPIC_SVR	0xfee000f0u
#define LAPIC_EOI	0xfee000b0u
#define MSR_APIC_BASE	0x1bu
#define MSR_X2APIC_ICR	0x830u
#define MSR_X2APIC_EOI	0x80bu
#define MSR_X2APIC_SVR	0x80fu
#define APIC_BASE_X2APIC (1ull << 10)
#define ICR_LOGICAL	0x00000800u
#define LAPIC_ICR_LO	0xfee00300u
#define LAPIC_ICR_HI	0xfee00310u
#define ICR_NMI		0x00004400u	/* delivery mode NMI, level assert */
#define ICR_BUSY	0x00001000u	/* delivery status: send pending */
#define ICR_ALL_BUT_SELF 0x000c0000u
#define WAKE_VEC	0x50
#define NCASES		12
#define DONE		NCASES
#define WAIT_DEFAULT	(1ull << 32)	/* about a second or two */

enum ap_state { ST_CLI, ST_STI, ST_HLT, ST_USER, ST_SYSCALL,
		ST_CLI_HLT };

static const char *const state_name[] = {
	"ring 0, cli loop", "ring 0, sti loop", "hlt, IF=1", "ring 3 loop",
	"ring 3 SYSCALL loop", "hlt, IF=0",
};

/* What the BSP asks for (a case, or DONE), what the AP is in. */
volatile uint32_t want_case = DONE + 1, ap_case = DONE + 1;
/* Written by the NMI handler, per case the AP was in. */
volatile uint32_t nmi_hits[NCASES + 2];
volatile uint64_t nmi_tsc[NCASES + 2], nmi_cs[NCASES + 2];
volatile uint32_t wakes, ap_up, never;
bool use_x2apic, use_logical, use_pvipi;
int64_t pvipi_ret;
uint64_t fixed_dest = 1;
extern const char nmi_entry[], wake_entry[];
static uint8_t ist_stack[8192] __attribute__((aligned(16)));

__asm__(
	"	.pushsection .text\n"
	"	.globl nmi_entry\n"
	"nmi_entry:\n"
	"	pushq %rax\n"
	"	pushq %rdx\n"
	"	pushq %rcx\n"
	"	rdtsc\n"
	"	shlq $32, %rdx\n"
	"	orq %rax, %rdx\n"
	"	movl ap_case(%rip), %ecx\n"
	"	cmpl $13, %ecx\n"		/* NCASES + 1: elsewhere */
	"	jbe 1f\n"
	"	movl $13, %ecx\n"
	"1:	movq %rdx, nmi_tsc(,%rcx,8)\n"
	"	movq 32(%rsp), %rax\n"		/* the interrupted CS */
	"	movq %rax, nmi_cs(,%rcx,8)\n"
	"	lock incl nmi_hits(,%rcx,4)\n"
	"	popq %rcx\n"
	"	popq %rdx\n"
	"	popq %rax\n"
	"	iretq\n"
	/* The wake-up interrupt after a hlt case: count, EOI. */
	"	.globl wake_entry\n"
	"wake_entry:\n"
	"	pushq %rax\n"
	"	pushq %rcx\n"
	"	pushq %rdx\n"
	"	lock incl wakes(%rip)\n"
	"	xorl %eax, %eax\n"
	"	xorl %edx, %edx\n"
	"	cmpb $0, use_x2apic(%rip)\n"
	"	je 1f\n"
	"	movl $0x80b, %ecx\n"
	"	wrmsr\n"
	"	jmp 2f\n"
	"1:	movl %eax, 0xfee000b0\n"
	"2:	popq %rdx\n"
	"	popq %rcx\n"
	"	popq %rax\n"
	"	iretq\n"
	"	.popsection\n");

extern uint64_t guest_gdt[];
uint64_t sys_calls;

/* SYSCALL's ring-0 side: count, straight back. */
__asm__(
	"	.pushsection .text\n"
	"	.globl nmi_sys_entry\n"
	"nmi_sys_entry:\n"
	"	lock incq sys_calls(%rip)\n"
	"	sysretq\n"
	"	.popsection\n");
extern const char nmi_sys_entry[];

static void user_syscalls(void *arg)
{
	uint32_t c = (uint32_t)(uintptr_t)arg;

	ap_case = c;
	while (want_case == c)
		__asm__ volatile("syscall" : : : "rcx", "r11", "memory");
}

/* SYSCALL on this CPU: CS/SS from the library's GDT, IF off inside. */
static void syscall_setup(void)
{
	wrmsr(0xc0000080, rdmsr(0xc0000080) | 1);		/* EFER.SCE */
	wrmsr(0xc0000081, (uint64_t)GUEST_KERNEL_DS << 48 |
			  (uint64_t)GUEST_KERNEL_CS << 32);	/* STAR */
	wrmsr(0xc0000082, (uintptr_t)nmi_sys_entry);		/* LSTAR */
	wrmsr(0xc0000084, 0x700);				/* FMASK */
}

static void apic_setup(uint32_t id);

static void user_spin(void *arg)
{
	uint32_t c = (uint32_t)(uintptr_t)arg;

	ap_case = c;
	while (want_case == c)
		__asm__ volatile("pause");
}

static void ap_main(void *arg)
{
	(void)arg;
	/* Share the boot CPU's TSS (its ring-0 stack is only used from
	 * ring 3, which only this CPU enters): clear the busy bit first. */
	guest_gdt[GUEST_TSS_SEL / 8] &= ~(1ull << 41);
	__asm__ volatile("ltr %w0" : : "r"(GUEST_TSS_SEL));
	apic_setup(1);
	syscall_setup();
	ap_case = DONE + 1;
	ap_up = 1;
	for (;;) {
		uint32_t c = want_case;

		if (c == DONE)
			break;
		if (c > DONE || c == ap_case) {
			__asm__ volatile("pause");
			continue;
		}
		switch ((enum ap_state)(c / 2)) {
		case ST_CLI:
			__asm__ volatile("cli");
			ap_case = c;
			while (want_case == c)
				__asm__ volatile("pause");
			break;
		case ST_STI:
			__asm__ volatile("sti");
			ap_case = c;
			while (want_case == c)
				__asm__ volatile("pause");
			__asm__ volatile("cli");
			break;
		case ST_HLT:
			ap_case = c;
			while (want_case == c)
				__asm__ volatile("sti; hlt; cli" ::: "memory");
			break;
		case ST_USER:
			run_user(user_spin, (void *)(uintptr_t)c);
			break;
		case ST_SYSCALL:
			run_user(user_syscalls, (void *)(uintptr_t)c);
			break;
		case ST_CLI_HLT:
			/* Only an NMI ends this hlt: one, then wait. */
			ap_case = c;
			__asm__ volatile("cli; hlt" ::: "memory");
			while (want_case == c)
				__asm__ volatile("pause");
			break;
		}
	}
	ap_case = DONE;
}

static bool wait_u32(volatile uint32_t *p, uint32_t want, uint64_t cycles)
{
	uint64_t end = rdtsc() + cycles;

	while (*p != want)
		if (rdtsc() > end)
			return false;
	return true;
}

/* This CPU's local APIC on, in the mode asked for. */
static void apic_setup(uint32_t id)
{
	if (use_x2apic) {
		wrmsr(MSR_APIC_BASE, rdmsr(MSR_APIC_BASE) | APIC_BASE_X2APIC);
		wrmsr(MSR_X2APIC_SVR, 0x1ff);
		return;
	}
	mmio_write32(LAPIC_SVR, 0x1ff);
	if (use_logical) {
		mmio_write32(LAPIC_DFR, 0xffffffffu);
		mmio_write32(LAPIC_LDR, 1u << (24 + id));
	}
}

/* KVM_HC_SEND_IPI: bitmap of APIC IDs from 0, the ICR's low bits; RAX =
 * how many got it, or -errno. */
static int64_t kvm_hypercall(uint64_t nr, uint64_t a0, uint64_t a1,
			     uint64_t a2, uint64_t a3)
{
	int64_t ret;

	__asm__ volatile("vmcall" : "=a"(ret) : "a"(nr), "b"(a0), "c"(a1),
			 "d"(a2), "S"(a3) : "memory");
	return ret;
}

static int64_t kvm_send_ipi(uint64_t bitmap, uint32_t icr)
{
	return kvm_hypercall(10, bitmap, 0, 0, icr);
}

/* To APIC apic (its logical bit in flat mode), or by shorthand. */
static void send_ipi(bool shorthand, uint32_t lo, uint32_t apic)
{
	uint32_t dest = use_logical ? 1u << (apic & 7) : apic;

	if (use_pvipi) {
		pvipi_ret = kvm_send_ipi(1ull << apic, lo & 0x7ff);
		return;
	}
	if (shorthand)
		lo |= ICR_ALL_BUT_SELF;
	else if (use_logical)
		lo |= ICR_LOGICAL;
	if (use_x2apic) {
		wrmsr(MSR_X2APIC_ICR, (uint64_t)(shorthand ? 0 : dest) << 32 | lo);
		return;
	}
	mmio_write32(LAPIC_ICR_HI, (shorthand ? 0 : dest) << 24);
	mmio_write32(LAPIC_ICR_LO, lo);
}

static uint32_t icr_read(void)
{
	return use_x2apic ? (uint32_t)rdmsr(MSR_X2APIC_ICR) :
			    mmio_read32(LAPIC_ICR_LO);
}

/* Linux's NMI gate: IST1 of the TSS both CPUs share. */
static void use_ist(void)
{
	struct __attribute__((packed)) { uint16_t limit; uint64_t base; } idt;
	uint64_t tss, lo = guest_gdt[GUEST_TSS_SEL / 8];
	uint8_t *gate;

	tss = (lo >> 16 & 0xffffff) | (lo >> 56 & 0xff) << 24 |
	      guest_gdt[GUEST_TSS_SEL / 8 + 1] << 32;
	*(volatile uint64_t *)(uintptr_t)(tss + 36) =
		(uintptr_t)ist_stack + sizeof(ist_stack);
	__asm__ volatile("sidt %0" : "=m"(idt));
	gate = (uint8_t *)(uintptr_t)(idt.base + 2 * 16);
	gate[4] = 1;
}

/* One case: the AP in its state, one NMI, the handler awaited. */
static void run_case(uint32_t c, uint64_t wait)
{
	bool shorthand = c & 1;
	uint64_t t0, idle_at, end;
	uint32_t icr = 0;
	bool idle = false;

	want_case = c;
	if (!check(wait_u32(&ap_case, c, wait), "case %u: the AP never got "
		   "to '%s' (it is in case %u)", c, state_name[c / 2], ap_case))
		return;
	if (c / 2 == ST_CLI_HLT)	/* let it reach the hlt */
		wait_u32(&never, 1, wait / 64);
	t0 = tsc_begin();
	send_ipi(shorthand, ICR_NMI, (uint32_t)fixed_dest);
	end = t0 + wait;
	while (rdtsc() < end) {
		icr = icr_read();
		if (!(icr & ICR_BUSY)) {
			idle = true;
			break;
		}
	}
	idle_at = rdtsc() - t0;
	if (use_pvipi)
		gprintf("nmi_ipi: case %u: KVM_HC_SEND_IPI returned %lld\n", c,
			(long long)pvipi_ret);
	while (!nmi_hits[c] && rdtsc() < end)
		__asm__ volatile("pause");
	if (nmi_hits[c])
		gprintf("nmi_ipi: case %u (%s, %s): delivered in %llu TSC "
			"cycles, interrupted CS %#llx, ICR idle %s after %llu\n",
			c, state_name[c / 2], shorthand ? "all-but-self" : "fixed",
			(unsigned long long)(nmi_tsc[c] - t0),
			(unsigned long long)nmi_cs[c], idle ? "yes" : "NO",
			(unsigned long long)idle_at);
	else
		gprintf("nmi_ipi: case %u (%s, %s): TIMED OUT after %llu TSC "
			"cycles, not delivered, ICR idle %s (ICR %#x)\n", c,
			state_name[c / 2], shorthand ? "all-but-self" : "fixed",
			(unsigned long long)wait, idle ? "yes" : "NO", icr);
	check(nmi_hits[c] == 1, "case %u: %u NMI(s) handled", c, nmi_hits[c]);
	check(idle, "case %u: ICR delivery status still busy", c);
	if (nmi_hits[c] && c / 2 != ST_SYSCALL)	/* either ring there */
		check((nmi_cs[c] & 3) == (c / 2 == ST_USER ? 3u : 0u),
		      "case %u: interrupted CS %#llx", c,
		      (unsigned long long)nmi_cs[c]);
}

int payload_main(const struct hvm_start_info *si)
{
	const char *cmd = start_info_cmdline(si);
	uint64_t wait = WAIT_DEFAULT, hc;
	uint32_t late = 0;

	cmdline_u64(cmd, "wait", &wait);
	cmdline_u64(cmd, "dest", &fixed_dest);
	use_x2apic = cmdline_has(cmd, "x2apic");
	use_logical = cmdline_has(cmd, "logical");
	use_pvipi = cmdline_has(cmd, "pvipi") &&
		    cpuid(0x40000000, 0).eax >= 0x40000001 &&
		    cpuid(0x40000001, 0).eax & 1u << 11;
	if (use_x2apic && !check(cpuid(1, 0).ecx & 1u << 21, "no x2APIC in CPUID"))
		return 1;
	if (!check(!(use_x2apic && use_logical), "x2apic and logical: pick one"))
		return 1;
	trap_set_gate(2, nmi_entry, 0, false);
	trap_set_gate(WAKE_VEC, wake_entry, 0, false);
	if (cmdline_has(cmd, "ist"))
		use_ist();
	gprintf("nmi_ipi: %s%s, %s destination, handler on %s\n",
		use_pvipi ? "KVM_HC_SEND_IPI, " : cmdline_has(cmd, "pvipi") ?
		"no PV_SEND_IPI in CPUID: " : "",
		use_x2apic ? "x2APIC (ICR MSR)" : "xAPIC (ICR MMIO)",
		use_logical ? "flat logical" : "physical",
		cmdline_has(cmd, "ist") ? "IST1" : "the interrupted stack");
	gprintf("nmi_ipi: TSC %u kHz\n", tsc_khz(NULL));
	if (cmdline_u64(cmd, "hc", &hc)) {
		gprintf("nmi_ipi: VMCALL %llu ...\n", (unsigned long long)hc);
		gprintf("nmi_ipi: VMCALL %llu returned %lld\n",
			(unsigned long long)hc,
			(long long)kvm_hypercall(hc, 2, 0, 0, WAKE_VEC));
	}
	/* INIT/SIPI go through the xAPIC page: x2APIC only after. */
	ap_start(1, ap_main, NULL);
	if (!check(wait_u32(&ap_up, 1, wait), "the AP never started"))
		return 1;
	apic_setup(0);
	for (uint32_t c = 0; c < NCASES; c++) {
		run_case(c, wait);
		if (c / 2 == ST_HLT) {
			/* Wake the AP if no NMI did. */
			want_case = c + 1;
			send_ipi(false, WAKE_VEC, 1);
		}
	}
	want_case = DONE;
	check(wait_u32(&ap_case, DONE, wait), "the AP never finished (case %u)",
	      ap_case);
	for (uint32_t c = 0; c < NCASES + 2; c++)
		late += c < NCASES && nmi_hits[c] > 1 ? nmi_hits[c] - 1 :
			c >= NCASES ? nmi_hits[c] : 0;
	gprintf("nmi_ipi: %u NMI(s) outside their case, %llu SYSCALLs\n",
		late, (unsigned long long)sys_calls);
	check(sys_calls > 0, "no SYSCALL came through");
	gprintf("nmi_ipi: %u failure(s)\n", check_failures());
	return check_failures() ? 1 : 0;
}
