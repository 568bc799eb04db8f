/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the firmware-checking payloads (fwtables.c,
 * fwmtrr.c): finding the ACPI tables the way an OS does, PCI config
 * access through ECAM or CF8/CFC, the expected-machine knobs from the
 * command line, and ACPI S5 power-off.  Header-only (static), because
 * every tests/guest/<name>.c is its own payload.
 *
 * Command-line knobs the boot tests pass (defaults = minivmm defaults):
 *   cpus=N              vCPUs expected (1)
 *   xen-bar-mtrr=uc     hvmloader's legacy layout (default wb)
 *   ecam=off  pio=off   config mechanisms absent
 *   xen-platform=off    no Xen platform device
 */
#ifndef FWCHECK_H
#define FWCHECK_H

#include "lib/guest.h"
#include "firmware/lib/le.h"
#include "firmware/lib/pci_regs.h"
#include "vmm/layout.h"

#define SCAN_START	0xe0000u
#define SCAN_END	0x100000u
#define FOUR_GIB	0x100000000ull

struct expect {
	unsigned int cpus;
	bool xen_wb, ecam, pio, xen_platform;
};

static inline struct expect expect_from(const char *cmdline)
{
	struct expect e = { 1, true, true, true, true };
	uint64_t v;

	if (cmdline_u64(cmdline, "cpus", &v))
		e.cpus = (unsigned int)v;
	e.xen_wb = !cmdline_has(cmdline, "xen-bar-mtrr=uc");
	e.ecam = !cmdline_has(cmdline, "ecam=off");
	e.pio = !cmdline_has(cmdline, "pio=off");
	e.xen_platform = !cmdline_has(cmdline, "xen-platform=off");
	return e;
}

static inline uint8_t byte_sum(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint8_t s = 0;

	while (n--)
		s = (uint8_t)(s + *b++);
	return s;
}

/* ---- ACPI ---- */

struct acpi {
	const uint8_t *rsdp, *xsdt, *fadt, *madt, *mcfg, *dsdt;
};

/* The RSDP as an OS finds it without help: 16-byte steps over
 * 0xE0000-0xFFFFF, signature and both checksums. */
static inline const uint8_t *acpi_scan_rsdp(void)
{
	for (uint32_t a = SCAN_START; a < SCAN_END; a += 16) {
		const uint8_t *p = (const uint8_t *)(uintptr_t)a;

		if (!memcmp(p, "RSD PTR ", 8) && byte_sum(p, 20) == 0 &&
		    p[15] >= 2 && byte_sum(p, 36) == 0)
			return p;
	}
	return NULL;
}

/* A table by address, if its length is sane (below 4 GiB, < 64 KiB) and
 * its checksum is right. */
static inline const uint8_t *acpi_table(uint64_t addr, const char *sig)
{
	const uint8_t *t = (const uint8_t *)(uintptr_t)addr;
	uint32_t len;

	if (!check(addr && addr < FOUR_GIB, "%s at 0x%llx", sig,
		   (unsigned long long)addr))
		return NULL;
	len = (uint32_t)le_get(t + 4, 4);
	if (!check(!memcmp(t, sig, 4), "0x%llx: %.4s, expected %s",
		   (unsigned long long)addr, (const char *)t, sig) ||
	    !check(len >= 36 && len < 0x10000, "%s length %u", sig, len) ||
	    !check(byte_sum(t, len) == 0, "%s checksum", sig))
		return NULL;
	return t;
}

/* The XSDT entry with signature sig, or NULL. */
static inline const uint8_t *acpi_xsdt_find(const uint8_t *xsdt,
					    const char *sig)
{
	uint32_t n = ((uint32_t)le_get(xsdt + 4, 4) - 36) / 8;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t a = le_get(xsdt + 36 + 8 * i, 8);

		if (a && a < FOUR_GIB &&
		    !memcmp((const void *)(uintptr_t)a, sig, 4))
			return acpi_table(a, sig);
	}
	return NULL;
}

/* Follows RSDP -> XSDT -> FADT -> DSDT, MADT, MCFG (NULLs if absent). */
static inline void acpi_walk(const uint8_t *rsdp, struct acpi *a)
{
	*a = (struct acpi){ .rsdp = rsdp };
	if (!rsdp)
		return;
	a->xsdt = acpi_table(le_get(rsdp + 24, 8), "XSDT");
	if (!a->xsdt)
		return;
	a->fadt = acpi_xsdt_find(a->xsdt, "FACP");
	a->madt = acpi_xsdt_find(a->xsdt, "APIC");
	a->mcfg = acpi_xsdt_find(a->xsdt, "MCFG");
	if (a->fadt)
		a->dsdt = acpi_table(le_get(a->fadt + 140, 8), "DSDT");
}

/* SLP_TYPa from the DSDT's \_S5 package: "_S5_" PackageOp PkgLength
 * (1-4 bytes, the count in bits 7:6 of the first) NumElements, then
 * Zero/One or BytePrefix n. */
static inline int acpi_s5_type(const uint8_t *dsdt)
{
	uint32_t len = (uint32_t)le_get(dsdt + 4, 4);

	for (uint32_t i = 36; i + 12 < len; i++) {
		const uint8_t *p = dsdt + i, *el;

		if (memcmp(p, "_S5_", 4) || p[4] != 0x12)
			continue;
		el = p + 5 + 1 + (p[5] >> 6) + 1;
		if (el[0] <= 1)
			return el[0];
		if (el[0] == 0x0a)
			return el[1];
	}
	return -1;
}

/* Powers the VM off through PM1a_CNT (the VMM then exits with 0). */
static inline void acpi_s5_poweroff(const struct acpi *a)
{
	int typ = a->dsdt ? acpi_s5_type(a->dsdt) : -1;
	uint32_t port = a->fadt ? (uint32_t)le_get(a->fadt + 64, 4) : 0;

	if (!check(typ >= 0 && typ < 8, "no usable \\_S5 in the DSDT") ||
	    !check(port && port < 0x10000, "FADT PM1a_CNT_BLK 0x%x", port))
		return;
	gprintf("S5: SLP_TYP %d to port 0x%x\n", typ, port);
	outw((uint16_t)port, (uint16_t)(typ << 10 | 1u << 13));
	check(false, "still running after the S5 write");
}

/* ---- PCI config space ---- */

struct pci_cfg {
	uint64_t ecam;		/* 0: use CF8/CFC */
};

static inline uint32_t pci_read(const struct pci_cfg *c, uint16_t bdf,
				unsigned int reg)
{
	if (c->ecam)
		return mmio_read32(c->ecam + ((uint64_t)bdf << 12) + reg);
	outl(PCI_CONF1_ADDR_PORT, PCI_CONF1_ENABLE | (uint32_t)bdf << 8 | reg);
	return inl(PCI_CONF1_DATA_PORT);
}

static inline void pci_write(const struct pci_cfg *c, uint16_t bdf,
			     unsigned int reg, uint32_t v)
{
	if (c->ecam) {
		mmio_write32(c->ecam + ((uint64_t)bdf << 12) + reg, v);
		return;
	}
	outl(PCI_CONF1_ADDR_PORT, PCI_CONF1_ENABLE | (uint32_t)bdf << 8 | reg);
	outl(PCI_CONF1_DATA_PORT, v);
}

/* The ECAM base from MCFG (segment 0, start bus 0), or 0. */
static inline uint64_t mcfg_ecam(const uint8_t *mcfg, unsigned int *last_bus)
{
	if (!mcfg || le_get(mcfg + 4, 4) < 60)
		return 0;
	*last_bus = mcfg[55];
	return le_get(mcfg + 44, 8);
}

/* End of RAM above 4 GiB from the memory map, 0 if none; low RAM end in
 * *low. */
static inline uint64_t ram_ends(const struct hvm_start_info *si,
				uint64_t *low)
{
	uint32_t n;
	const struct hvm_memmap_table_entry *e = start_info_memmap(si, &n);
	uint64_t high = 0;

	*low = 0;
	for (uint32_t i = 0; e && i < n && i < 128; i++) {
		uint64_t end = e[i].addr + e[i].size;

		if (e[i].type != HVM_MEMMAP_RAM)
			continue;
		if (end <= FOUR_GIB && end > *low)
			*low = end;
		else if (end > FOUR_GIB && end > high)
			high = end;
	}
	return high;
}

#endif
