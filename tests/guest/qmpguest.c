// SPDX-License-Identifier: MIT
/*
 * qmpguest: a guest for the QMP control socket (tests/boot/qmp.sh).  It
 * takes the ACPI power button as an OS does: PM1_EN.PWRBTN_EN set, the
 * SCI (ISA IRQ 9, level, active high: the MADT's override) routed
 * through the IOAPIC; on the SCI it reads PM1_STS, acknowledges
 * PWRBTN_STS (write 1 to clear) and powers off through PM1a_CNT (S5).
 * Meanwhile it prints "qmpguest: tick N" about every 250 ms (so a test
 * sees it keeps running, and stops while paused) and "qmpguest: nmi N"
 * for each NMI it takes (inject-nmi); each tick reads SYSENTER_CS (an
 * MSR for x-minivmm-msr-flags to make exit).  Ports: firmware/lib/abi.h.
 * "panic-on-nmi" (with --pvpanic on) reports a panic through pvpanic
 * (1b36:0011 at 00:02.0, BAR 0 byte 0 = PANICKED) on the first NMI, as
 * Linux's unknown_nmi_panic does.
 * "poll" polls PM1_STS instead of waiting for the SCI (status 1 if the
 * SCI never came but the status bit did: a missing interrupt).
 */
#include "firmware/lib/abi.h"
#include "lib/guest.h"
#include "lib/irq.h"
#include "lib/pci_access.h"

#define PM1_STS		ABI_ACPI_PM1A_EVT_PORT
#define PM1_EN		(ABI_ACPI_PM1A_EVT_PORT + 2)
#define PM1_CNT		ABI_ACPI_PM1A_CNT_PORT
#define PWRBTN		(1u << 8)
#define SLP_S5		((5u << 10) | (1u << 13))
#define SCI_VEC		0x40
#define TICK_MS		250
#define MSR_SYSENTER_CS	0x174

volatile uint32_t nmi_count;
extern const char nmi_entry[];

__asm__(
	"	.pushsection .text\n"
	"	.globl nmi_entry\n"
	"nmi_entry:\n"
	"	lock incl nmi_count(%rip)\n"
	"	iretq\n"
	"	.popsection\n");

#define PVPANIC_BDF	(2u << 3)	/* 00:02.0 */
#define PVPANIC_ID	0x00111b36u

static void panic_by_pvpanic(void)
{
	uint32_t id = pci_cf8_read(PVPANIC_BDF, 0, 4);
	uint64_t bar = pci_cf8_read(PVPANIC_BDF, 0x10, 4) & ~0xfull;

	if (id != PVPANIC_ID || !bar) {
		gprintf("FAIL: no pvpanic at 00:02.0 (id %#x, BAR %#llx)\n",
			id, (unsigned long long)bar);
		test_exit(1);
	}
	gprintf("qmpguest: panicking through pvpanic\n");
	mmio_write8(bar, 1);
	gprintf("FAIL: still running after the pvpanic write\n");
	test_exit(1);
}

static void power_off(uint16_t sts, bool by_sci)
{
	gprintf("qmpguest: power button (%s), PM1_STS=%#x: powering off\n",
		by_sci ? "SCI" : "polled", sts);
	outw(PM1_STS, PWRBTN);
	check(!(inw(PM1_STS) & PWRBTN), "PWRBTN_STS cleared by writing 1");
	outw(PM1_CNT, (uint16_t)(inw(PM1_CNT) | SLP_S5));
	gprintf("FAIL: still running after S5\n");
	test_exit(1);
}

int payload_main(const struct hvm_start_info *si)
{
	const char *cmd = start_info_cmdline(si);
	bool poll = cmdline_has(cmd, "poll");
	bool nmi_panic = cmdline_has(cmd, "panic-on-nmi");
	uint32_t khz = tsc_khz(NULL), seen_nmi = 0;
	uint64_t ticks = 0, scis = 0;

	/* The 8259s masked, as an OS with IOAPIC routing does (a BIOS may
	 * have left the PIT's IRQ 0 on vector 8). */
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
	trap_set_gate(2, nmi_entry, 0, false);
	irq_init();		/* copies the IDT: after the NMI gate */
	ioapic_route(ABI_ACPI_SCI_IRQ, SCI_VEC, true, false, poll);
	outw(PM1_EN, (uint16_t)(inw(PM1_EN) | PWRBTN));
	check(inw(PM1_EN) & PWRBTN, "PWRBTN_EN reads back");
	gprintf("qmpguest: ready (tsc %u kHz, %s)\n", khz,
		poll ? "polling PM1_STS" : "waiting for the SCI");
	for (;;) {
		uint64_t n = irq_wait(SCI_VEC, scis + 1,
				      (uint64_t)(khz ? khz : 2000000) *
				      TICK_MS);
		uint16_t sts = inw(PM1_STS);

		/* Pressed just as the wait timed out: the SCI is due. */
		if (!poll && n == scis && (sts & PWRBTN))
			n = irq_wait(SCI_VEC, scis + 1,
				     (uint64_t)(khz ? khz : 2000000) * 100);

		if (nmi_count != seen_nmi) {
			seen_nmi = nmi_count;
			gprintf("qmpguest: nmi %u\n", seen_nmi);
			if (nmi_panic)
				panic_by_pvpanic();
		}
		if (n > scis || (poll && (sts & PWRBTN))) {
			scis = n;
			if (sts & PWRBTN)
				power_off(sts, !poll);
			gprintf("qmpguest: SCI without PWRBTN_STS "
				"(PM1_STS=%#x)\n", sts);
			continue;
		}
		if (sts & PWRBTN) {
			gprintf("FAIL: PWRBTN_STS set, no SCI\n");
			return 1;
		}
		/* An MSR KVM handles: exits only when a policy says count
		 * (x-minivmm-msr-flags). */
		(void)rdmsr(MSR_SYSENTER_CS);
		gprintf("qmpguest: tick %llu\n", (unsigned long long)++ticks);
	}
}
