// SPDX-License-Identifier: MIT
/*
 * snapshot: a computation with a snapshot request in its middle, for the
 * snapshot round trips (tests/boot/snapshot.sh).  Whether the run goes on
 * uninterrupted (no --snapshot-at port: the request is ignored), goes on
 * after the snapshot (--snapshot-continue) or is a restore of it, the
 * payload must end with the same result line and every check holding.
 *
 * Before the request it puts state everywhere a snapshot must carry:
 *	- a ring-3 loop half done: counters in registers and on the stack,
 *	  a value in XMM1 (the XSAVE area); the request is written from
 *	  ring 3, as a guest's user space would (MMIO, not port I/O)
 *	- the LAPIC: an interrupt pending in IRR (IF stays 0) and a one-shot
 *	  timer armed to fire after the request
 *	- with "msr", MSRs under each MSR-policy action (snapshot.sh passes
 *	  the rules):
 *	  emulate with a different value on each vCPU, value, ignore, deny,
 *	  allow (KVM's), allow,count (user-space passthrough)
 *	- with "mtrr", known patterns in the MSRs KVM's index list leaves
 *	  out (lib/msr_state.h: MTRRs, PAT, machine-check banks)
 *	- debug registers DR0-DR3
 *	- the Xen platform device's BARs moved (decode off, move, decode on)
 *	  through ECAM, a pattern in its BAR1 RAM, its ROM-lock flag set;
 *	  its interrupt line written through ECAM; CF8 left pointing at it
 *	- the UART scratch register
 *	- the platform devices: CMOS RAM, the RTC's clock set to 2042 and
 *	  its index register left pointing at a RAM byte, fw_cfg half-way
 *	  through an item, pc-testdev's scratch register and memory; with
 *	  "testdev" (--pci-testdev), pci-testdev's counts and its selected
 *	  test (an eventfd one: writes must still be swallowed after)
 *	- with cpus=2, vCPU 1 (INIT/SIPI) computing in ring 0 meanwhile (with
 *	  "late", vCPU 1 waits for its SIPI at the request and starts after)
 * After the request it checks all of it, lets the timer fire, finishes
 * the computation and prints "snapshot: result=<hex>" and, after a
 * restore, the generation and the --append-env parameters.
 * Command line: msr, mtrr, cpus=N (1 or 2), iters=N (ring-3 loop length),
 * touch=N (ring 3 fills N MiB of RAM from 32 MiB before the request and
 * checks it after: restores map it from the snapshot), hold (after the
 * verdict, spin in ring 3 instead of exiting: for measuring a restored
 * VM's memory).
 */
#include "lib/ap.h"
#include "lib/guest.h"
#include "lib/msr_state.h"
#include "lib/msr_try.h"
#include "lib/pci_access.h"
#include "lib/pci_xen.h"
#include "vmm/layout.h"

#define VEC_GP		13
#define CTL		LAYOUT_SNAPCTL_BASE
#define CTL_GENERATION	(CTL + 0x008)
#define CTL_STATUS	(CTL + 0x00c)
#define CTL_REQUEST	(CTL + 0x010)
#define CTL_ENV_LEN	(CTL + 0x014)
#define CTL_ENV		(CTL + 0x100)
#define REQUEST_MAGIC	0x50414e53u

#define LAPIC		0xfee00000u
#define LAPIC_SVR	(LAPIC + 0x0f0)
#define LAPIC_IRR	(LAPIC + 0x200)
#define LAPIC_LVT_TIMER	(LAPIC + 0x320)
#define LAPIC_TMICT	(LAPIC + 0x380)
#define LAPIC_TMCCT	(LAPIC + 0x390)
#define LAPIC_TDCR	(LAPIC + 0x3e0)
#define VEC_PENDING	0x40	/* fired before the request */
#define VEC_LATER	0x41	/* armed, fires after it */
#define LATER_COUNT	20000000u	/* KVM's APIC bus: 1 GHz, 20 ms */
#define SPIN_MAX	20000000u

#define MSR_EMUL	0x12340000u	/* emulate=0x5 */
#define MSR_VALUE	0x12340001u	/* value=0x77 */
#define MSR_IGNORE	0x12340002u	/* ignore */
#define MSR_DENY	0x12340003u	/* deny */
#define MSR_SYSENTER_CS	0x174u		/* allow (KVM) */
#define MSR_KGS_BASE	0xc0000102u	/* allow,count (passthrough) */
#define BSP_EMUL	0xb5b5b5b5b5ull
#define AP_EMUL		0xa1a1a1a1a1ull
#define SYSENTER_VAL	0x10ull
#define KGS_VAL		0xffff888012345000ull

#define XEN_BDF		PCI_BDF(0, 3, 0)
#define XEN_IO		0xc800u	/* clear of pci-testdev's BAR1 */
#define XEN_MEM		0xd0000000u
#define XEN_OLD_MEM	0xdf000000u
#define XEN_TAG		0x5a
#define XEN_IRQ_LINE	0x5b
#define UART_SCR	0x3ffu
#define SCR_VAL		0xa5u

#define CMOS_INDEX	ABI_RTC_PORT
#define CMOS_DATA	(ABI_RTC_PORT + 1)
#define CMOS_RAM_BYTE	0x40
#define CMOS_VAL	0x5c
#define RTC_YEAR	0x09
#define RTC_B		0x0b
#define RTC_CENTURY	0x32
#define FW_CFG_SEL	LAYOUT_FW_CFG_PORT
#define FW_CFG_DATA	(LAYOUT_FW_CFG_PORT + 1)
#define TESTDEV_PORT	LAYOUT_PC_TESTDEV_PORT
#define TESTDEV_VAL	0xc0ffee11u
#define TESTDEV_MEM	(LAYOUT_PC_TESTDEV_IOMEM + 0x100)
#define TESTDEV_MEMVAL	0x600dcafeu
#define PCI_TESTDEV	PCI_BDF(0, 4, 0)
#define PCI_TESTDEV_ID	0x00051b36u
#define PT_COUNT	12
#define PT_NAME		16
#define PT_ZERO_WRITES	5

#define AP_ITERS	4000u
#define TOUCH_BASE	(32ull << 20)
#define XMM_PATTERN	0x0123456789abcdefull

/* --- the computation -------------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t i)
{
	h ^= i + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

struct user_run {
	uint64_t iters, acc, xmm_after;
	uint32_t gen_before, gen_after;
	uint64_t tsc_before, tsc_after;
};

/* Ring 3: half the loop, the request, the other half.  XMM1 holds a
 * value across the request (the compiler never touches XMM here). */
static void user_compute(void *arg)
{
	struct user_run *u = arg;
	uint64_t h = 1, half = u->iters / 2;

	__asm__ volatile("movq %0, %%xmm1" : : "r"(XMM_PATTERN));
	for (uint64_t i = 0; i < half; i++)
		h = mix(h, i);
	u->gen_before = mmio_read32(CTL_GENERATION);
	u->tsc_before = rdtsc();
	mmio_write32(CTL_REQUEST, REQUEST_MAGIC);
	u->tsc_after = rdtsc();
	u->gen_after = mmio_read32(CTL_GENERATION);
	__asm__ volatile("movq %%xmm1, %0" : "=r"(u->xmm_after));
	for (uint64_t i = half; i < u->iters; i++)
		h = mix(h, i);
	u->acc = h;
}

/* Ring 3: a pattern over touch MiB, and its check. */
struct touch {
	uint64_t mib;
	bool fill, ok;
};

static void user_touch(void *arg)
{
	struct touch *t = arg;
	volatile uint64_t *p = (volatile uint64_t *)(uintptr_t)TOUCH_BASE;
	uint64_t n = t->mib << 17;	/* 8-byte words */

	t->ok = true;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t want = mix(0x70c4, i);

		if (t->fill)
			p[i] = want;
		else if (p[i] != want)
			t->ok = false;
	}
}

static void user_hold(void *arg)
{
	(void)arg;
	for (;;)
		__asm__ volatile("pause");
}

/* --- vCPU 1 ----------------------------------------------------------- */

static struct {
	volatile int started, done;
	bool msr;
	uint64_t acc, emul;
	int vec;
} ap;

static void ap_emul_read(void *arg)
{
	*(uint64_t *)arg = rdmsr(MSR_EMUL);
}

static void ap_main(void *arg)
{
	uint64_t h = 7;

	(void)arg;
	if (ap.msr)
		wrmsr(MSR_EMUL, AP_EMUL);
	__atomic_store_n(&ap.started, 1, __ATOMIC_RELEASE);
	for (uint32_t i = 0; i < AP_ITERS; i++)
		h = mix(h, i);
	ap.acc = h;
	if (ap.msr)
		ap.vec = guest_try(ap_emul_read, &ap.emul, NULL);
	__atomic_store_n(&ap.done, 1, __ATOMIC_RELEASE);
}

static bool wait_flag(volatile int *flag)
{
	for (uint32_t i = 0; i < SPIN_MAX; i++) {
		if (__atomic_load_n(flag, __ATOMIC_ACQUIRE))
			return true;
		__asm__ volatile("pause");
	}
	return false;
}

/* --- MSRs ------------------------------------------------------------- */

static void msr_setup(void)
{
	check(msr_try_wr(MSR_EMUL, BSP_EMUL) < 0, "emulate write faulted");
	check(msr_try_wr(MSR_VALUE, 1) < 0, "value write faulted");
	check(msr_try_wr(MSR_IGNORE, 1) < 0, "ignore write faulted");
	check(msr_try_wr(MSR_DENY, 1) == VEC_GP, "deny write did not #GP");
	check(msr_try_wr(MSR_SYSENTER_CS, SYSENTER_VAL) < 0, "SYSENTER_CS");
	check(msr_try_wr(MSR_KGS_BASE, KGS_VAL) < 0, "KERNEL_GS_BASE");
}

static void msr_expect(uint32_t index, int want_vec, uint64_t want)
{
	uint64_t v = 0;
	int vec = msr_try_rd(index, &v);

	check(vec == want_vec && (vec >= 0 || v == want), "MSR %#x reads "
	      "%#llx (vector %d)", index, (unsigned long long)v, vec);
}

static void msr_check(void)
{
	msr_expect(MSR_EMUL, -1, BSP_EMUL);
	msr_expect(MSR_VALUE, -1, 0x77);
	msr_expect(MSR_IGNORE, -1, 0);
	msr_expect(MSR_DENY, VEC_GP, 0);
	msr_expect(MSR_SYSENTER_CS, -1, SYSENTER_VAL);
	msr_expect(MSR_KGS_BASE, -1, KGS_VAL);
}

/* --- LAPIC ------------------------------------------------------------ */

static bool irr(unsigned int vec)
{
	return mmio_read32(LAPIC_IRR + 0x10 * (vec / 32)) & (1u << vec % 32);
}

static bool wait_irr(unsigned int vec)
{
	for (uint32_t i = 0; i < SPIN_MAX / 64; i++)
		if (irr(vec))
			return true;
	return false;
}

/* One timer interrupt pending (IF is 0: it stays in IRR), then the timer
 * armed again on another vector to fire later. */
static void lapic_setup(void)
{
	mmio_write32(LAPIC_SVR, mmio_read32(LAPIC_SVR) | 0x100);
	mmio_write32(LAPIC_TDCR, 0xb);			/* divide by 1 */
	mmio_write32(LAPIC_LVT_TIMER, VEC_PENDING);	/* one-shot */
	mmio_write32(LAPIC_TMICT, 1000);
	check(wait_irr(VEC_PENDING), "timer interrupt 0x40 never pending");
	mmio_write32(LAPIC_LVT_TIMER, VEC_LATER);
	mmio_write32(LAPIC_TMICT, LATER_COUNT);
}

static void lapic_check(void)
{
	check(irr(VEC_PENDING), "pending interrupt 0x40 lost");
	check(mmio_read32(LAPIC_LVT_TIMER) == VEC_LATER &&
	      mmio_read32(LAPIC_TMICT) == LATER_COUNT, "LAPIC timer setup "
	      "lost (LVT %#x TMICT %u)", mmio_read32(LAPIC_LVT_TIMER),
	      mmio_read32(LAPIC_TMICT));
	check(wait_irr(VEC_LATER), "armed timer never fired (TMCCT %u)",
	      mmio_read32(LAPIC_TMCCT));
}

/* --- devices, debug registers ----------------------------------------- */

static void devices_setup(void)
{
	xen_platform_place(PCI_MECH_ECAM, XEN_BDF, XEN_IO, XEN_MEM);
	xen_bar1_fill(XEN_MEM, XEN_TAG);
	pci_ecam_write(XEN_BDF, PCI_INTERRUPT_LINE, XEN_IRQ_LINE, 1);
	outb(XEN_PORT_MAGIC, XEN_PFFLAG_ROM_LOCK);
	outb(UART_SCR, SCR_VAL);
	/* CF8 selects the Xen device's vendor/device dword. */
	outl(PCI_CONF1_ADDR_PORT, PCI_CONF1_ENABLE | XEN_BDF << 8);
}

static void devices_check(void)
{
	uint32_t bar1 = pci_ecam_read(XEN_BDF, PCI_BASE_ADDRESS_0 + 4, 4);

	check(inl(PCI_CONF1_DATA_PORT) == XEN_PLATFORM_ID, "CF8 lost");
	check((bar1 & ~0xfu) == XEN_MEM, "BAR1 reads %#x through ECAM", bar1);
	check((pci_cf8_read(XEN_BDF, PCI_BASE_ADDRESS_0, 4) & ~3u) == XEN_IO,
	      "BAR0 lost");
	check(xen_bar1_match(XEN_MEM, XEN_TAG) == 1, "BAR1 RAM lost at its "
	      "new place");
	check(xen_bar1_match(XEN_OLD_MEM, XEN_TAG) == 0, "BAR1 still "
	      "decodes at the firmware's place");
	check(pci_cf8_read(XEN_BDF, PCI_INTERRUPT_LINE, 1) == XEN_IRQ_LINE &&
	      pci_ecam_read(XEN_BDF, PCI_INTERRUPT_LINE, 1) == XEN_IRQ_LINE,
	      "interrupt line written through ECAM lost");
	check(inb(XEN_PORT_MAGIC) == XEN_PFFLAG_ROM_LOCK &&
	      inb(XEN_IO) == XEN_PFFLAG_ROM_LOCK, "Xen platform flags lost");
	check(inb(UART_SCR) == SCR_VAL, "UART scratch register lost");
}

static uint8_t cmos_read(uint8_t reg)
{
	outb(CMOS_INDEX, reg);
	return inb(CMOS_DATA);
}

static void cmos_write(uint8_t reg, uint8_t v)
{
	outb(CMOS_INDEX, reg);
	outb(CMOS_DATA, v);
}

/* The clock set to 2042 (BCD), CMOS RAM written, the index left at that
 * RAM byte; fw_cfg's signature read half-way; pc-testdev written. */
static void platform_setup(void)
{
	cmos_write(RTC_B, 0x82);		/* SET, 24 h, BCD */
	cmos_write(RTC_YEAR, 0x42);
	cmos_write(RTC_CENTURY, 0x20);
	cmos_write(RTC_B, 0x02);
	cmos_write(CMOS_RAM_BYTE, CMOS_VAL);
	outw(FW_CFG_SEL, 0);			/* "QEMU" */
	check(inb(FW_CFG_DATA) == 'Q' && inb(FW_CFG_DATA) == 'E',
	      "fw_cfg signature");
	outl(TESTDEV_PORT, TESTDEV_VAL);
	mmio_write32(TESTDEV_MEM, TESTDEV_MEMVAL);
}

static void platform_check(void)
{
	check(inb(CMOS_DATA) == CMOS_VAL, "CMOS index or RAM lost");
	check(inb(FW_CFG_DATA) == 'M' && inb(FW_CFG_DATA) == 'U',
	      "fw_cfg lost its place in the item");
	check(cmos_read(RTC_YEAR) == 0x42 && cmos_read(RTC_CENTURY) == 0x20,
	      "RTC clock lost (year %#x)", cmos_read(RTC_YEAR));
	check(inl(TESTDEV_PORT) == TESTDEV_VAL, "pc-testdev scratch lost");
	check(mmio_read32(TESTDEV_MEM) == TESTDEV_MEMVAL,
	      "pc-testdev memory lost");
}

/* pci-testdev: five counted writes in test 0, then test 1 (the MMIO
 * wildcard-eventfd test, whose writes KVM swallows) left selected. */
static uint64_t pci_testdev_bar(void)
{
	if (pci_ecam_read(PCI_TESTDEV, 0, 4) != PCI_TESTDEV_ID)
		return 0;
	return pci_ecam_read(PCI_TESTDEV, PCI_BASE_ADDRESS_0, 4) & ~0xfull;
}

static void pci_testdev_setup(void)
{
	uint64_t bar = pci_testdev_bar();

	if (!check(bar, "no pci-testdev at 00:04.0"))
		return;
	mmio_write8(bar, 0);
	for (int i = 0; i < PT_ZERO_WRITES; i++)
		mmio_write8(bar + 0x800, 0xfa);
	mmio_write8(bar, 1);
	mmio_write8(bar + 0x801, 0xce);
}

static void pci_testdev_check(void)
{
	uint64_t bar = pci_testdev_bar();

	if (!bar)
		return;
	check(mmio_read8(bar + PT_NAME) == 'm' &&
	      mmio_read8(bar + PT_NAME + 5) == 'w', "pci-testdev: the "
	      "selected test was lost");
	for (int i = 0; i < 3; i++)
		mmio_write8(bar + 0x801, 0xce);
	check(mmio_read32(bar + PT_COUNT) == 0, "pci-testdev: eventfd test "
	      "writes exit after the request (count %u)",
	      mmio_read32(bar + PT_COUNT));
	mmio_write8(bar, 0);
	check(mmio_read32(bar + PT_COUNT) == PT_ZERO_WRITES, "pci-testdev: "
	      "test 0 count %u, want %u", mmio_read32(bar + PT_COUNT),
	      PT_ZERO_WRITES);
}

#define SET_DR(n, v) __asm__ volatile("mov %0, %%dr" #n : : "r"(v))
#define GET_DR(n, v) __asm__ volatile("mov %%dr" #n ", %0" : "=r"(v))

static void dr_setup(void)
{
	SET_DR(0, 0x1000ull);
	SET_DR(1, 0x2000ull);
	SET_DR(2, 0x3000ull);
	SET_DR(3, 0x4000ull);
}

static void dr_check(void)
{
	uint64_t d0, d1, d2, d3;

	GET_DR(0, d0);
	GET_DR(1, d1);
	GET_DR(2, d2);
	GET_DR(3, d3);
	check(d0 == 0x1000 && d1 == 0x2000 && d2 == 0x3000 && d3 == 0x4000,
	      "debug registers lost");
}

/* --- after a restore: the mailbox ------------------------------------- */

static void user_env(void *arg)
{
	char *buf = arg;
	uint32_t n = mmio_read32(CTL_ENV_LEN);

	if (n > 3840)
		n = 3840;
	for (uint32_t i = 0; i < n; i++)
		buf[i] = (char)mmio_read8(CTL_ENV + i);
	buf[n] = 0;
}

static void print_env(void)
{
	static char env[3841];
	char *line = env;

	run_user(user_env, env);	/* ring 3 reads it, as /dev/mem would */
	while (*line) {
		gputs("snapshot: env ");
		while (*line && *line != '\n')
			gputc(*line++);
		gputc('\n');
		line += *line == '\n';
	}
}

/* --- main ------------------------------------------------------------- */

int payload_main(const struct hvm_start_info *si)
{
	const char *cmd = start_info_cmdline(si);
	struct user_run u = { .iters = 2000000 };
	struct touch t = { .fill = true };
	uint64_t cpus = 1, pm0, pm1, result;
	bool msr = cmdline_has(cmd, "msr"), late = cmdline_has(cmd, "late");
	bool testdev = cmdline_has(cmd, "testdev");
	bool mtrr = cmdline_has(cmd, "mtrr");
	static struct msr_state ms;

	cmdline_u64(cmd, "cpus", &cpus);
	cmdline_u64(cmd, "iters", &u.iters);
	cmdline_u64(cmd, "touch", &t.mib);

	ap.msr = msr;
	write_cr4(read_cr4() | 0x600);		/* OSFXSR, OSXMMEXCPT */
	if (msr)
		msr_setup();
	if (mtrr)
		msr_state_fill(&ms);
	dr_setup();
	devices_setup();
	platform_setup();
	if (testdev)
		pci_testdev_setup();
	lapic_setup();
	if (cpus > 1 && !late) {
		ap_start(1, ap_main, NULL);
		check(wait_flag(&ap.started), "vCPU 1 never started");
	}
	if (t.mib)
		run_user(user_touch, &t);
	pm0 = inl(ABI_ACPI_PM_TMR_PORT);
	gputs("snapshot: requesting\n");
	run_user(user_compute, &u);
	pm1 = inl(ABI_ACPI_PM_TMR_PORT);
	gprintf("snapshot: resumed, generation %u, status %u\n", u.gen_after,
		mmio_read32(CTL_STATUS));
	check(u.xmm_after == XMM_PATTERN, "XMM1 reads %#llx",
	      (unsigned long long)u.xmm_after);
	check(u.tsc_after > u.tsc_before, "TSC went back");
	check(pm1 > pm0, "ACPI PM timer went back (%llu -> %llu)",
	      (unsigned long long)pm0, (unsigned long long)pm1);
	if (cpus > 1 && late) {
		ap_start(1, ap_main, NULL);
		check(wait_flag(&ap.started), "vCPU 1 never started (late)");
	}
	if (msr)
		msr_check();
	if (mtrr)
		msr_state_check(&ms);
	dr_check();
	devices_check();
	platform_check();
	if (testdev)
		pci_testdev_check();
	lapic_check();
	t.fill = false;
	if (t.mib) {
		run_user(user_touch, &t);
		check(t.ok, "touched memory lost");
	}
	result = u.acc;
	if (cpus > 1 && check(wait_flag(&ap.done), "vCPU 1 never finished")) {
		check(!msr || (ap.vec < 0 && ap.emul == AP_EMUL), "emulate MSR "
		      "on vCPU 1 reads %#llx", (unsigned long long)ap.emul);
		result = mix(result, ap.acc);
	}
	if (u.gen_after != u.gen_before)
		print_env();
	/* What --cpuid -x2apic hides: a restore keeps the vCPUs' CPUID (on
	 * PVM hosts ring 0 sees this bit of it, not POPCNT's). */
	gprintf("snapshot: x2apic %u\n", cpuid(1, 0).ecx >> 21 & 1);
	gprintf("snapshot: result=%llx\n", (unsigned long long)result);
	gprintf("snapshot: %u failures\n", check_failures());
	if (cmdline_has(cmd, "hold")) {
		gputs("snapshot: holding\n");
		run_user(user_hold, NULL);
	}
	return check_failures() ? 1 : 0;
}
