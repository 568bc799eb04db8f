// SPDX-License-Identifier: MIT
/*
 * fwmtrr: reads back every MTRR on every vCPU and checks them against the
 * layout the firmware should have programmed, then powers off through
 * ACPI S5 (status 0 only if every check passed; 1 with FAIL lines).
 *
 * The expected layout is computed here with the firmware's own solver
 * (firmware/lib/mtrr_layout.c and mtrr_fit.c, compiled in; the hole may
 * end anywhere up to the IOAPIC) from what this payload knows
 * independently: RAM from the memory map, the windows of vmm/layout.h,
 * the ECAM size from MCFG, the Xen BAR where --xen-bar-mtrr puts it.  On
 * top of the exact register match, the read-back values are checked for
 * the memory types that matter (RAM and the Xen BAR WB or UC, PCI hole
 * UC, VGA UC).
 *
 * The APs are started with this payload's own INIT/SIPI and a real-mode
 * trampoline (ap16 below) that RDMSRs the same list into a slot per AP:
 * INIT keeps the MTRRs, so this sees what the firmware left.
 */
#include "fwcheck.h"
#include "firmware/lib/mtrr_layout.c"
#include "firmware/lib/mtrr_fit.c"

#define AP_PAGE		0x7000u		/* SIPI vector 7 */
#define AP_TICKET	0x7080u		/* u16 */
#define AP_DONE		0x7082u		/* u16 */
#define AP_LIST		0x7100u		/* u32 MSR indices, 0-terminated */
#define AP_SLOTS	0x8000u		/* AP_SLOT_SIZE bytes per AP */
#define AP_SLOT_SIZE	0x400u
#define MAX_APS		31		/* slots stay below 64 KiB */
#define MAX_MSRS	(AP_SLOT_SIZE / 8)
#define XEN_BAR1_SIZE	0x1000000ull
#define ICR_LO		(ABI_LAPIC_BASE + 0x300)
#define AP_TIMEOUT_TSC	(1ull << 33)

/* Real mode, DS = 0: take a ticket, RDMSR each index of AP_LIST into the
 * ticket's slot, count done, halt. */
__asm__(
	"	.pushsection .rodata.ap16, \"a\"\n"
	"	.code16\n"
	"ap16_start:\n"
	"	cli\n"
	"	xorw %ax, %ax\n"
	"	movw %ax, %ds\n"
	"	movw $1, %bx\n"
	"	lock xaddw %bx, 0x7080\n"
	"	shlw $10, %bx\n"
	"	addw $0x8000, %bx\n"
	"	movw $0x7100, %si\n"
	"1:	movl (%si), %ecx\n"
	"	testl %ecx, %ecx\n"
	"	jz 2f\n"
	"	rdmsr\n"
	"	movl %eax, (%bx)\n"
	"	movl %edx, 4(%bx)\n"
	"	addw $4, %si\n"
	"	addw $8, %bx\n"
	"	jmp 1b\n"
	"2:	lock incw 0x7082\n"
	"3:	hlt\n"
	"	jmp 3b\n"
	"ap16_end:\n"
	"	.code64\n"
	"	.popsection\n");

extern const char ap16_start[], ap16_end[];

_Static_assert(AP_SLOT_SIZE == 1 << 10 && AP_SLOTS == 0x8000 &&
	       AP_TICKET == 0x7080 && AP_DONE == 0x7082 && AP_LIST == 0x7100,
	       "ap16 hard-codes these");
_Static_assert(AP_SLOTS + MAX_APS * AP_SLOT_SIZE <= 0x10000, "DS = 0");

struct want {
	uint32_t msr[MAX_MSRS];
	uint64_t val[MAX_MSRS];
	unsigned int n;
};

static void add(struct want *w, uint32_t msr, uint64_t val)
{
	if (w->n < MAX_MSRS - 1) {
		w->msr[w->n] = msr;
		w->val[w->n++] = val;
	}
}

/* The layout the firmware should have built, as the MSR values in the
 * order they are listed (MTRRdefType, fixed, PHYSBASE/PHYSMASK 0..VCNT). */
static bool expected(const struct hvm_start_info *si, const struct expect *e,
		     unsigned int buses, struct want *w, unsigned int *vcnt)
{
	uint64_t low, high = ram_ends(si, &low);
	uint64_t pci32_end = LAYOUT_PCI32_BASE + LAYOUT_PCI32_SIZE;
	struct mtrr_config c = {
		.low_ram_end = low, .high_ram_end = high,
		.hole_start = LAYOUT_PCI32_BASE,
		.hole_end = e->ecam ? LAYOUT_ECAM_BASE + buses * MiB : pci32_end,
		.pci64 = { layout_pci64_base(high ? high : FOUR_GIB),
			   LAYOUT_PCI64_SIZE },
		.phys_bits = cpuid(0x80000008, 0).eax & 0xff,
		.vcnt = rdmsr(MTRR_MSR_CAP) & MTRR_CAP_VCNT_MASK,
	};
	struct mtrr_layout l;
	int rc;

	if (e->xen_wb && e->xen_platform) {
		c.wb[0] = (struct mtrr_range){ pci32_end - XEN_BAR1_SIZE,
					       XEN_BAR1_SIZE };
		c.nr_wb = 1;
	}
	*vcnt = c.vcnt < MTRR_MAX_VAR ? c.vcnt : MTRR_MAX_VAR;
	rc = mtrr_layout_fit(&c, ABI_IOAPIC_BASE, &l);
	if (!check(rc == MTRR_OK, "expected layout: %s", mtrr_strerror(rc)))
		return false;
	gprintf("mtrr: expect default type %llu, %u of %u variable MTRRs\n",
		(unsigned long long)(l.def_type & 0xff), l.nr_var, *vcnt);
	w->n = 0;
	add(w, MTRR_MSR_DEF_TYPE, l.def_type);
	for (unsigned int i = 0; i < MTRR_NR_FIXED; i++)
		add(w, mtrr_fixed_msr(i), l.fixed[i]);
	for (unsigned int i = 0; i < *vcnt; i++) {
		add(w, MTRR_MSR_PHYSBASE(i), i < l.nr_var ? l.var[i].base : 0);
		add(w, MTRR_MSR_PHYSMASK(i), i < l.nr_var ? l.var[i].mask : 0);
	}
	return true;
}

static unsigned int compare(const char *who, const struct want *w,
			    const uint64_t *got)
{
	unsigned int bad = 0;

	for (unsigned int i = 0; i < w->n; i++)
		if (!check(got[i] == w->val[i], "%s: MSR 0x%x = 0x%llx, "
			   "expected 0x%llx", who, w->msr[i],
			   (unsigned long long)got[i],
			   (unsigned long long)w->val[i]))
			bad++;
	return bad;
}

static void type_is(const struct mtrr_layout *l, uint64_t addr, uint8_t t,
		    const char *what)
{
	uint8_t got = mtrr_layout_lookup(l, addr);

	check(got == t, "%s (0x%llx) is type %u, expected %u", what,
	      (unsigned long long)addr, got, t);
}

/* The memory types the platform needs, from the values read back. */
static void check_types(const struct want *w, const uint64_t *got,
			unsigned int vcnt, const struct expect *e,
			const struct hvm_start_info *si)
{
	struct mtrr_layout l = { .def_type = got[0], .nr_var = vcnt,
				 .phys_bits = cpuid(0x80000008, 0).eax & 0xff };
	uint64_t low, high = ram_ends(si, &low);
	uint64_t xen = LAYOUT_PCI32_BASE + LAYOUT_PCI32_SIZE - XEN_BAR1_SIZE;

	for (unsigned int i = 0; i < MTRR_NR_FIXED; i++)
		l.fixed[i] = got[1 + i];
	for (unsigned int i = 0; i < vcnt && 13 + 2 * i < w->n; i++)
		l.var[i] = (struct mtrr_var){ got[12 + 2 * i], got[13 + 2 * i] };
	type_is(&l, 0, MTRR_TYPE_WB, "RAM at 0");
	type_is(&l, 0xa0000, MTRR_TYPE_UC, "VGA memory");
	type_is(&l, 0xf0000, MTRR_TYPE_WB, "SMBIOS");
	type_is(&l, low - 0x1000, MTRR_TYPE_WB, "top of low RAM");
	if (high)
		type_is(&l, high - 0x1000, MTRR_TYPE_WB, "top of high RAM");
	type_is(&l, LAYOUT_PCI32_BASE, MTRR_TYPE_UC, "32-bit PCI window");
	if (e->ecam)
		type_is(&l, LAYOUT_ECAM_BASE, MTRR_TYPE_UC, "ECAM");
	if (e->xen_platform)
		type_is(&l, xen, e->xen_wb ? MTRR_TYPE_WB : MTRR_TYPE_UC,
			"Xen platform BAR1");
	type_is(&l, 0xfffff000, MTRR_TYPE_WB, "firmware ROM");
	type_is(&l, layout_pci64_base(high ? high : FOUR_GIB), MTRR_TYPE_WB,
		"64-bit PCI window");
}

static void icr(uint32_t v)
{
	mmio_write32(ICR_LO, v);
}

/* INIT + SIPI to all other CPUs; each fills its slot.  Returns how many
 * checked in before the deadline. */
static unsigned int run_aps(const struct want *w, unsigned int aps)
{
	volatile uint16_t *done = (volatile uint16_t *)(uintptr_t)AP_DONE;
	uint32_t *list = (uint32_t *)(uintptr_t)AP_LIST;
	uint64_t deadline;

	memcpy((void *)(uintptr_t)AP_PAGE, ap16_start,
	       (size_t)(ap16_end - ap16_start));
	for (unsigned int i = 0; i < w->n; i++)
		list[i] = w->msr[i];
	list[w->n] = 0;
	*(volatile uint16_t *)(uintptr_t)AP_TICKET = 0;
	*done = 0;
	icr(0x000c4500);			/* INIT, all but self */
	icr(0x000c4600 | AP_PAGE >> 12);	/* SIPI */
	deadline = rdtsc() + AP_TIMEOUT_TSC;
	while (*done < aps && rdtsc() < deadline)
		__asm__ volatile("pause");
	return *done;
}

static void check_cpus(const struct hvm_start_info *si, const struct expect *e,
		       unsigned int buses)
{
	struct want w;
	uint64_t got[MAX_MSRS];
	unsigned int vcnt, aps = e->cpus - 1, started;

	if (!expected(si, e, buses, &w, &vcnt))
		return;
	for (unsigned int i = 0; i < w.n; i++)
		got[i] = rdmsr(w.msr[i]);
	if (!compare("cpu 0", &w, got))
		gprintf("mtrr: cpu 0: %u MSRs as expected\n", w.n);
	check_types(&w, got, vcnt, e, si);
	if (!aps || !check(aps <= MAX_APS, "%u APs, this test reads %u",
			   aps, MAX_APS))
		return;
	started = run_aps(&w, aps);
	check(started == aps, "%u of %u APs ran", started, aps);
	for (unsigned int t = 0; t < started; t++) {
		const uint64_t *slot = (const uint64_t *)(uintptr_t)
				       (AP_SLOTS + t * AP_SLOT_SIZE);
		char who[16];

		gsnprintf(who, sizeof(who), "AP #%u", t + 1);
		if (!compare(who, &w, slot))
			gprintf("mtrr: %s: %u MSRs as expected\n", who, w.n);
	}
}

int payload_main(const struct hvm_start_info *si)
{
	struct expect e = expect_from(start_info_cmdline(si));
	struct acpi a;
	unsigned int last_bus = 0;

	acpi_walk(acpi_scan_rsdp(), &a);
	if (e.ecam)
		check(mcfg_ecam(a.mcfg, &last_bus) == LAYOUT_ECAM_BASE,
		      "no MCFG with the ECAM window");
	check_cpus(si, &e, last_bus + 1);
	if (check_failures()) {
		gprintf("fwmtrr: %u check(s) failed\n", check_failures());
		return 1;
	}
	gprintf("fwmtrr: all checks passed, powering off\n");
	acpi_s5_poweroff(&a);
	return 2;
}
