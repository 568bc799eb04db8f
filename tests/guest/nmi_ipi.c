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
 */
#include "lib/ap.h"
#include "lib/guest.h"
#include "lib/irq.h"

#define LAPIC_ID	0xfee00020u
#define LAPIC_SVR	0xfee000f0u
#define LAPIC_ICR_LO	0xfee00300u
#define LAPIC_ICR_HI	0xfee00310u
#define ICR_NMI		0x00004400u	/* delivery mode NMI, level assert */
#define ICR_BUSY	0x00001000u	/* delivery status: send pending */
#define ICR_ALL_BUT_SELF 0x000c0000u
#define WAKE_VEC	IRQ_VEC_FIRST
#define NCASES		8
#define DONE		NCASES
#define WAIT_DEFAULT	(1ull << 32)	/* about a second or two */

enum ap_state { ST_CLI, ST_STI, ST_HLT, ST_USER };

static const char *const state_name[] = {
	"ring 0, cli loop", "ring 0, sti loop", "hlt, IF=1", "ring 3 loop",
};

/* What the BSP asks for (a case, or DONE), what the AP is in. */
volatile uint32_t want_case = DONE + 1, ap_case = DONE + 1;
/* Written by the NMI handler, per case the AP was in. */
volatile uint32_t nmi_hits[NCASES + 2];
volatile uint64_t nmi_tsc[NCASES + 2], nmi_cs[NCASES + 2];
extern const char nmi_entry[];

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
	"	cmpl $9, %ecx\n"
	"	jbe 1f\n"
	"	movl $9, %ecx\n"
	"1:	movq %rdx, nmi_tsc(,%rcx,8)\n"
	"	movq 32(%rsp), %rax\n"		/* the interrupted CS */
	"	movq %rax, nmi_cs(,%rcx,8)\n"
	"	lock incl nmi_hits(,%rcx,4)\n"
	"	popq %rcx\n"
	"	popq %rdx\n"
	"	popq %rax\n"
	"	iretq\n"
	"	.popsection\n");

extern uint64_t guest_gdt[];

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
	mmio_write32(LAPIC_SVR, 0x1ff);
	ap_case = DONE + 1;
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

static void send_ipi(uint32_t dest, uint32_t lo)
{
	mmio_write32(LAPIC_ICR_HI, dest << 24);
	mmio_write32(LAPIC_ICR_LO, lo);
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
	t0 = tsc_begin();
	send_ipi(shorthand ? 0 : 1, ICR_NMI | (shorthand ? ICR_ALL_BUT_SELF : 0));
	end = t0 + wait;
	while (rdtsc() < end) {
		icr = mmio_read32(LAPIC_ICR_LO);
		if (!(icr & ICR_BUSY)) {
			idle = true;
			break;
		}
	}
	idle_at = rdtsc() - t0;
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
	if (nmi_hits[c])
		check((nmi_cs[c] & 3) == (c / 2 == ST_USER ? 3u : 0u),
		      "case %u: interrupted CS %#llx", c,
		      (unsigned long long)nmi_cs[c]);
}

int payload_main(const struct hvm_start_info *si)
{
	const char *cmd = start_info_cmdline(si);
	uint64_t wait = WAIT_DEFAULT;
	uint32_t late = 0;

	cmdline_u64(cmd, "wait", &wait);
	trap_set_gate(2, nmi_entry, 0, false);
	irq_init();		/* copies the IDT above, the AP loads it */
	ap_start(1, ap_main, NULL);
	for (uint32_t c = 0; c < NCASES; c++) {
		run_case(c, wait);
		if (c / 2 == ST_HLT) {
			/* Wake the AP if no NMI did. */
			want_case = c + 1;
			send_ipi(1, WAKE_VEC);
		}
	}
	want_case = DONE;
	send_ipi(1, WAKE_VEC);
	check(wait_u32(&ap_case, DONE, wait), "the AP never finished (case %u)",
	      ap_case);
	for (uint32_t c = 0; c < NCASES + 2; c++)
		late += c < NCASES && nmi_hits[c] > 1 ? nmi_hits[c] - 1 :
			c >= NCASES ? nmi_hits[c] : 0;
	gprintf("nmi_ipi: %u NMI(s) outside their case\n", late);
	gprintf("nmi_ipi: %u failure(s)\n", check_failures());
	return check_failures() ? 1 : 0;
}
