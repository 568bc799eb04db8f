// SPDX-License-Identifier: MIT
/*
 * fwtables: checks what the firmware leaves for an OS, then powers off
 * through ACPI S5 (exit status 0 only if every check passed and S5
 * works; 1 with FAIL lines otherwise).
 *
 *   - hvm_start_info: rsdp_paddr equals the RSDP found by scanning
 *     0xE0000-0xFFFFF; the memory map reserves the tables, ECAM, the
 *     snapshot control page (0xFE000000, 4 KiB) and the boot page tables
 *     (0x30000, 24 KiB).
 *   - ACPI: XSDT -> FADT (with DSDT and FACS), MADT (one LAPIC per vCPU,
 *     the IOAPIC), MCFG (absent with ecam=off); the DSDT's SNAP device
 *     (a motherboard resource) claims the snapshot control page.
 *   - SMBIOS 3 entry point at 0xF0000, type 0 with a BIOS date >= 2016.
 *   - PCI, through the ECAM base from MCFG (else CF8): vendor IDs agree
 *     with CF8; every BAR lies in its window, aligned, without overlap,
 *     with decoding on; the Xen platform BAR where --xen-bar-mtrr wants it.
 * Knobs: see fwcheck.h.
 */
#include "fwcheck.h"

#define MAX_BARS	64
#define XEN_VENDOR	0x5853
#define XEN_BAR1_SIZE	0x1000000ull

struct bar {
	uint16_t bdf;
	unsigned int index;
	bool io, is64;
	uint64_t addr, size;
};

static struct bar bars[MAX_BARS];
static unsigned int n_bars;

static void check_start_info(const struct hvm_start_info *si,
			     const uint8_t *rsdp, const struct expect *e)
{
	uint32_t n;
	const struct hvm_memmap_table_entry *m = start_info_memmap(si, &n);
	bool tables = false, ecam = false, snapctl = false, pt = false;

	check(rsdp != NULL, "no RSDP in 0xE0000-0xFFFFF");
	check(si->rsdp_paddr == (uintptr_t)rsdp,
	      "start_info rsdp_paddr 0x%llx, scan found %p",
	      (unsigned long long)si->rsdp_paddr, rsdp);
	for (uint32_t i = 0; m && i < n && i < 128; i++) {
		if (m[i].type != HVM_MEMMAP_RESERVED)
			continue;
		tables |= m[i].addr <= SCAN_START &&
			  m[i].addr + m[i].size >= SCAN_END;
		ecam |= m[i].addr == LAYOUT_ECAM_BASE && m[i].size >= MiB;
		pt |= m[i].addr <= ABI_BOOT_PT_BASE &&
		      m[i].addr + m[i].size >= ABI_BOOT_PT_END;
		snapctl |= m[i].addr <= LAYOUT_SNAPCTL_BASE &&
			   m[i].addr + m[i].size >= LAYOUT_SNAPCTL_BASE +
			   LAYOUT_SNAPCTL_SIZE;
	}
	check(snapctl, "memory map does not reserve the snapshot control "
	      "page");
	check(tables, "memory map does not reserve 0xE0000-0xFFFFF");
	check(pt, "memory map does not reserve the boot page tables "
	      "0x%x-0x%x", ABI_BOOT_PT_BASE, ABI_BOOT_PT_END - 1);
	check(ecam == e->ecam, "memory map %s the ECAM window",
	      ecam ? "reserves" : "lacks");
}

/* The DSDT's \_SB.SNAP: a PNP0C02 device whose _CRS (a QWord memory
 * descriptor: its _MIN follows the name within a few dozen bytes) starts
 * at the control page. */
static bool dsdt_claims_snapctl(const uint8_t *dsdt)
{
	uint32_t len = (uint32_t)le_get(dsdt + 4, 4);

	for (uint32_t i = 36; i + 4 <= len; i++) {
		if (memcmp(dsdt + i, "SNAP", 4))
			continue;
		for (uint32_t j = i; j + 8 <= len && j < i + 64; j++)
			if (le_get(dsdt + j, 8) == LAYOUT_SNAPCTL_BASE)
				return true;
	}
	return false;
}

static void check_acpi(const struct acpi *a, const struct expect *e)
{
	unsigned int lapics = 0, ioapics = 0;
	const uint8_t *facs;

	if (!check(a->xsdt && a->fadt && a->madt && a->dsdt,
		   "ACPI chain incomplete (XSDT %p FADT %p MADT %p DSDT %p)",
		   a->xsdt, a->fadt, a->madt, a->dsdt))
		return;
	check((a->mcfg != NULL) == e->ecam, "MCFG %s",
	      a->mcfg ? "present with ecam=off" : "missing");
	check(dsdt_claims_snapctl(a->dsdt), "DSDT: no SNAP device claiming "
	      "the snapshot control page");
	facs = (const uint8_t *)(uintptr_t)le_get(a->fadt + 36, 4);
	check(facs && !memcmp(facs, "FACS", 4) && le_get(facs + 4, 4) >= 64 &&
	      !((uintptr_t)facs & 63), "FACS at %p", facs);
	for (uint32_t off = 44; off + 2 <= le_get(a->madt + 4, 4);) {
		const uint8_t *s = a->madt + off;

		if (s[1] < 2)
			break;
		if (s[0] == 0 && (s[4] & 1))
			lapics++;
		if (s[0] == 1)
			ioapics += le_get(s + 4, 4) == ABI_IOAPIC_BASE;
		off += s[1];
	}
	check(lapics == e->cpus, "MADT has %u enabled LAPICs, expected %u",
	      lapics, e->cpus);
	check(ioapics == 1, "MADT: %u IOAPICs at 0x%x", ioapics,
	      ABI_IOAPIC_BASE);
	check(le_get(a->madt + 36, 4) == ABI_LAPIC_BASE, "MADT LAPIC base");
	gprintf("acpi: RSDP %p, %u LAPIC(s), MCFG %s\n", a->rsdp, lapics,
		a->mcfg ? "yes" : "no");
}

static void check_smbios(void)
{
	const uint8_t *ep = (const uint8_t *)(uintptr_t)0xf0000;
	const uint8_t *t;
	const char *s;
	unsigned int year = 0;

	if (!check(!memcmp(ep, "_SM3_", 5) && ep[6] <= 32 &&
		   byte_sum(ep, ep[6]) == 0, "no SMBIOS 3 entry at 0xF0000"))
		return;
	t = (const uint8_t *)(uintptr_t)le_get(ep + 16, 8);
	if (!check((uintptr_t)t >= SCAN_START && (uintptr_t)t < SCAN_END &&
		   t[0] == 0, "SMBIOS table at %p does not start with type 0",
		   t))
		return;
	/* Type 0: string 'date' (index at +8) in the string set. */
	s = (const char *)t + t[1];
	for (unsigned int i = 1; i < t[8] && *s; i++)
		s += strlen(s) + 1;
	if (strlen(s) == 10)
		for (int i = 6; i < 10; i++)
			year = year * 10 + (unsigned int)(s[i] - '0');
	check(year >= 2016 && year < 2100, "SMBIOS BIOS date \"%s\"", s);
	gprintf("smbios: BIOS date %s\n", s);
}

static void size_bar(const struct pci_cfg *c, uint16_t bdf,
		     unsigned int *i)
{
	unsigned int reg = PCI_BASE_ADDRESS_0 + 4 * *i;
	uint32_t lo = pci_read(c, bdf, reg), hi = 0, szlo, szhi = 0xffffffffu;
	struct bar *b;

	pci_write(c, bdf, reg, 0xffffffffu);
	szlo = pci_read(c, bdf, reg);
	pci_write(c, bdf, reg, lo);
	if (!szlo)
		return;
	if (!check(n_bars < MAX_BARS, "too many BARs"))
		return;
	b = &bars[n_bars++];
	*b = (struct bar){ .bdf = bdf, .index = *i,
			   .io = szlo & PCI_BASE_ADDRESS_SPACE_IO };
	if (b->io) {
		uint32_t m = szlo & PCI_BASE_ADDRESS_IO_MASK;

		b->size = (uint32_t)(~(m >> 16 ? m : m | 0xffff0000u) + 1);
		b->addr = lo & PCI_BASE_ADDRESS_IO_MASK;
		return;
	}
	b->is64 = (szlo & PCI_BASE_ADDRESS_MEM_TYPE_MASK) ==
		  PCI_BASE_ADDRESS_MEM_TYPE_64;
	if (b->is64) {
		hi = pci_read(c, bdf, reg + 4);
		pci_write(c, bdf, reg + 4, 0xffffffffu);
		szhi = pci_read(c, bdf, reg + 4);
		pci_write(c, bdf, reg + 4, hi);
		(*i)++;
	}
	b->size = ~((uint64_t)szhi << 32 | (szlo & PCI_BASE_ADDRESS_MEM_MASK))
		  + 1;
	b->addr = (uint64_t)hi << 32 | (lo & PCI_BASE_ADDRESS_MEM_MASK);
}

/* One function: BARs sized with decoding off, then restored; decoding
 * must be on for each kind of BAR it has. */
static void scan_function(const struct pci_cfg *c, uint16_t bdf, uint32_t id)
{
	uint32_t cmd = pci_read(c, bdf, PCI_COMMAND) & 0xffff;
	unsigned int first = n_bars;

	pci_write(c, bdf, PCI_COMMAND, cmd & ~3u);
	for (unsigned int i = 0; i < PCI_NUM_BARS; i++)
		size_bar(c, bdf, &i);
	pci_write(c, bdf, PCI_COMMAND, cmd);
	for (unsigned int i = first; i < n_bars; i++) {
		uint32_t bit = bars[i].io ? PCI_COMMAND_IO : PCI_COMMAND_MEMORY;

		check(cmd & bit, "%04x BAR%u: decoding off (COMMAND 0x%x)",
		      bdf, bars[i].index, cmd);
		gprintf("pci %02x:%02x.%x %04x:%04x BAR%u 0x%llx+0x%llx\n",
			bdf >> 8, (bdf >> 3) & 31, bdf & 7, id & 0xffff,
			id >> 16, bars[i].index,
			(unsigned long long)bars[i].addr,
			(unsigned long long)bars[i].size);
	}
}

static bool in(uint64_t a, uint64_t s, uint64_t base, uint64_t size)
{
	return a >= base && s <= size && a - base <= size - s;
}

static void check_bars(uint64_t pci64, const struct expect *e,
		       uint64_t xen_bar1)
{
	for (unsigned int i = 0; i < n_bars; i++) {
		const struct bar *b = &bars[i];
		bool ok = b->io ? in(b->addr, b->size, LAYOUT_PCI_IO_BASE,
				     LAYOUT_PCI_IO_SIZE)
			: in(b->addr, b->size, LAYOUT_PCI32_BASE,
			     LAYOUT_PCI32_SIZE) ||
			  (b->is64 && in(b->addr, b->size, pci64,
					 LAYOUT_PCI64_SIZE));

		check(ok, "%04x BAR%u 0x%llx+0x%llx outside its window",
		      b->bdf, b->index, (unsigned long long)b->addr,
		      (unsigned long long)b->size);
		check(!(b->addr & (b->size - 1)), "%04x BAR%u misaligned",
		      b->bdf, b->index);
		for (unsigned int j = 0; j < i; j++)
			check(bars[j].io != b->io ||
			      b->addr + b->size <= bars[j].addr ||
			      bars[j].addr + bars[j].size <= b->addr,
			      "%04x BAR%u overlaps %04x BAR%u", b->bdf,
			      b->index, bars[j].bdf, bars[j].index);
	}
	if (!check(!e->xen_platform || xen_bar1, "no Xen platform BAR1"))
		return;
	if (e->xen_platform && e->xen_wb)	/* hvmloader 22650d6 */
		check(xen_bar1 == LAYOUT_PCI32_BASE + LAYOUT_PCI32_SIZE -
		      XEN_BAR1_SIZE, "Xen BAR1 at 0x%llx, not at the top of "
		      "the 32-bit window", (unsigned long long)xen_bar1);
}

static void check_pci(const struct acpi *a, const struct expect *e,
		      uint64_t pci64)
{
	struct pci_cfg ecam = { 0 }, cf8 = { 0 };
	const struct pci_cfg *c;
	unsigned int last_bus = 0, fns = 0;
	uint64_t xen_bar1 = 0;

	ecam.ecam = mcfg_ecam(a->mcfg, &last_bus);
	check(ecam.ecam == (e->ecam ? LAYOUT_ECAM_BASE : 0),
	      "MCFG ECAM base 0x%llx", (unsigned long long)ecam.ecam);
	c = ecam.ecam ? &ecam : &cf8;
	for (unsigned int bus = 0; bus <= last_bus; bus++) {
		for (unsigned int devfn = 0; devfn < 256; devfn++) {
			uint16_t bdf = (uint16_t)(bus << 8 | devfn);
			uint32_t id = pci_read(c, bdf, PCI_VENDOR_ID);

			if ((id & 0xffff) == 0xffff)
				continue;
			fns++;
			if (c == &ecam && e->pio)
				check(pci_read(&cf8, bdf, 0) == id, "%04x: "
				      "ECAM reads %08x, CF8 %08x", bdf, id,
				      pci_read(&cf8, bdf, 0));
			scan_function(c, bdf, id);
			if ((id & 0xffff) == XEN_VENDOR)
				for (unsigned int i = 0; i < n_bars; i++)
					if (bars[i].bdf == bdf &&
					    bars[i].index == 1)
						xen_bar1 = bars[i].addr;
		}
	}
	check(fns >= 1u + e->xen_platform, "only %u PCI functions", fns);
	check_bars(pci64, e, xen_bar1);
}

int payload_main(const struct hvm_start_info *si)
{
	struct expect e = expect_from(start_info_cmdline(si));
	const uint8_t *rsdp = acpi_scan_rsdp();
	struct acpi a;
	uint64_t low, high = ram_ends(si, &low);

	check_start_info(si, rsdp, &e);
	acpi_walk(rsdp, &a);
	check_acpi(&a, &e);
	check_smbios();
	check_pci(&a, &e, layout_pci64_base(high ? high : FOUR_GIB));
	if (check_failures()) {
		gprintf("fwtables: %u check(s) failed\n", check_failures());
		return 1;
	}
	gprintf("fwtables: all checks passed, powering off\n");
	acpi_s5_poweroff(&a);
	return 2;
}
