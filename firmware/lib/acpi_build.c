// SPDX-License-Identifier: MIT
/*
 * ACPI tables for the minivmm machine; see acpi_build.h for the platform
 * contract.  Offsets and field layouts follow ACPI 6.3 chapter 5.  Every
 * table except the DSDT has a size known up front, so the layout is fixed
 * arithmetic and only the DSDT needs bounds-checked emission.
 */
#include "firmware/lib/acpi_build.h"

#include <stdbool.h>

#include "firmware/lib/abi.h"
#include "firmware/lib/aml.h"
#include "firmware/lib/le.h"
#include "firmware/lib/pci_regs.h"

#define HDR_LEN		36
#define RSDP_LEN	36
#define FACS_LEN	64
#define XSDT_NENT(c)	((c)->no_ecam ? 2 : 3)	/* FADT, MADT, MCFG */
#define XSDT_LEN(c)	(HDR_LEN + 8 * XSDT_NENT(c))
#define FADT_LEN	276		/* revision 6 */
#define MCFG_LEN	(HDR_LEN + 8 + 16)
#define MADT_LAPIC_LEN	8
#define MADT_IOAPIC_LEN	12
#define MADT_ISO_LEN	10
#define MADT_LEN(n)	(HDR_LEN + 8 + MADT_LAPIC_LEN * (n) + \
			 MADT_IOAPIC_LEN + 2 * MADT_ISO_LEN)

/* FACS needs 64-byte alignment; the base is 64-byte aligned. */
#define OFF_RSDP	0
#define OFF_FACS	64
#define OFF_XSDT	(OFF_FACS + FACS_LEN)
#define OFF_FADT	(OFF_XSDT + 64)
#define OFF_MADT	ALIGN16(OFF_FADT + FADT_LEN)
#define ALIGN16(x)	(((x) + 15) & ~(size_t)15)

#define FOUR_GIB	0x100000000ull
#define ECAM_BUS_SIZE	0x100000ull	/* 1 MiB of config space per bus */

/* EISA ids as AML DWORDs: compressed "PNP" then the hex digits. */
#define EISA_PNP0A03	0x030ad041u
#define EISA_PNP0A08	0x080ad041u
#define EISA_PNP0C02	0x020cd041u
#define EISA_PNP0B00	0x000bd041u
#define EISA_PNP0501	0x0105d041u

/* FADT flags: WBINVD, PROC_C1, no fixed sleep button, 32-bit PM timer.
 * PWR_BUTTON (bit 4) clear: the power button is the fixed one in PM1
 * (QMP's system_powerdown presses it). */
#define FADT_FLAGS	((1u << 0) | (1u << 2) | (1u << 5) | (1u << 8))
#define GAS_SYSTEM_IO	1
#define GAS_ACCESS_WORD	2
#define GAS_ACCESS_DWORD 3

#define MADT_PCAT_COMPAT	1
#define MADT_ENABLED		1
#define MPS_LEVEL_HIGH		0x000d	/* trigger level, polarity high */

static void put_str(uint8_t *p, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)s[i];
}

static void zero(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = 0;
}

/* Make bytes p[0..n) sum to zero by adjusting p[at]. */
static void checksum(uint8_t *p, size_t n, size_t at)
{
	uint8_t sum = 0;

	p[at] = 0;
	for (size_t i = 0; i < n; i++)
		sum = (uint8_t)(sum + p[i]);
	p[at] = (uint8_t)-sum;
}

static void header(uint8_t *p, const char *sig, uint32_t len, uint8_t rev)
{
	put_str(p, sig, 4);
	le_put(p + 4, len, 4);
	p[8] = rev;
	p[9] = 0;				/* checksum, set last */
	put_str(p + 10, "MINVMM", 6);
	put_str(p + 16, "MINIVMM ", 8);
	le_put(p + 24, 1, 4);			/* OEM revision */
	put_str(p + 28, "MVMM", 4);		/* creator id */
	le_put(p + 32, 1, 4);			/* creator revision */
}

static void finish(uint8_t *p)
{
	uint32_t len = p[4] | p[5] << 8 | p[6] << 16 | (uint32_t)p[7] << 24;

	checksum(p, len, 9);
}

static bool port_ok(uint16_t port, uint32_t len)
{
	return port != 0 && port <= 0x10000 - len;
}

static int check_config(const struct acpi_config *c, uint64_t gpa,
			size_t size)
{
	if (c->ncpus == 0 || c->ncpus > ACPI_MAX_CPUS)
		return ACPI_ERR_CPUS;
	if ((gpa & 63) || gpa > FOUR_GIB || size > FOUR_GIB - gpa)
		return ACPI_ERR_CONFIG;
	if (c->ecam_buses == 0 || c->ecam_buses > 256)
		return ACPI_ERR_CONFIG;
	if (!c->no_ecam && ((c->ecam_base & (ECAM_BUS_SIZE - 1)) ||
			    c->ecam_base > UINT64_MAX - 256 * ECAM_BUS_SIZE))
		return ACPI_ERR_CONFIG;
	if (c->pci_io_base < 0xd00 || c->pci_io_base > 0xffff ||
	    c->pci_io_size == 0 || c->pci_io_size > 0x10000 - c->pci_io_base)
		return ACPI_ERR_CONFIG;
	if (c->pci32_size == 0 || c->pci32_base > FOUR_GIB ||
	    c->pci32_size > FOUR_GIB - c->pci32_base)
		return ACPI_ERR_CONFIG;
	if (c->pci64_size && c->pci64_size - 1 > UINT64_MAX - c->pci64_base)
		return ACPI_ERR_CONFIG;
	if (c->sci_irq == 0 || c->sci_irq == 2 || c->sci_irq > 15)
		return ACPI_ERR_CONFIG;
	if (c->snapctl_size && (c->snapctl_base > FOUR_GIB ||
				c->snapctl_size > FOUR_GIB - c->snapctl_base))
		return ACPI_ERR_CONFIG;
	if (!port_ok(c->pm1a_evt_port, 4) || !port_ok(c->pm1a_cnt_port, 2) ||
	    !port_ok(c->pm_tmr_port, 4))
		return ACPI_ERR_CONFIG;
	for (int i = 0; i < ACPI_MAX_UARTS && c->uart[i].port; i++)
		if (c->uart[i].port > 0xd00 - 8 || !c->uart[i].irq ||
		    c->uart[i].irq == 2 || c->uart[i].irq > 15)
			return ACPI_ERR_CONFIG;
	return ACPI_OK;
}

static void build_rsdp(uint8_t *p, uint64_t gpa)
{
	put_str(p, "RSD PTR ", 8);
	put_str(p + 9, "MINVMM", 6);
	p[15] = 2;				/* revision: XSDT present */
	le_put(p + 20, RSDP_LEN, 4);		/* RSDT address stays 0 */
	le_put(p + 24, gpa + OFF_XSDT, 8);
	checksum(p, 20, 8);
	checksum(p, RSDP_LEN, 32);
}

static void build_facs(uint8_t *p)
{
	put_str(p, "FACS", 4);
	le_put(p + 4, FACS_LEN, 4);
	p[32] = 2;				/* version */
}

static void build_xsdt(uint8_t *p, const struct acpi_config *c, uint64_t gpa,
		       size_t off_mcfg)
{
	header(p, "XSDT", XSDT_LEN(c), 1);
	le_put(p + HDR_LEN, gpa + OFF_FADT, 8);
	le_put(p + HDR_LEN + 8, gpa + OFF_MADT, 8);
	if (!c->no_ecam)
		le_put(p + HDR_LEN + 16, gpa + off_mcfg, 8);
	finish(p);
}

static void put_gas(uint8_t *p, uint8_t bits, uint8_t access, uint16_t port)
{
	p[0] = GAS_SYSTEM_IO;
	p[1] = bits;
	p[2] = 0;
	p[3] = access;
	le_put(p + 4, port, 8);
}

/* The X_ blocks repeat the 32-bit ones exactly, so ACPICA sees no
 * 32/64 mismatch whichever it prefers. */
static void build_fadt(uint8_t *p, const struct acpi_config *c, uint64_t gpa,
		       uint64_t dsdt)
{
	header(p, "FACP", FADT_LEN, 6);
	le_put(p + 36, gpa + OFF_FACS, 4);		/* FIRMWARE_CTRL */
	le_put(p + 40, dsdt, 4);
	le_put(p + 46, c->sci_irq, 2);		/* SMI_CMD stays 0 */
	le_put(p + 56, c->pm1a_evt_port, 4);
	le_put(p + 64, c->pm1a_cnt_port, 4);
	le_put(p + 76, c->pm_tmr_port, 4);
	p[88] = 4;				/* PM1_EVT_LEN */
	p[89] = 2;				/* PM1_CNT_LEN */
	p[91] = 4;				/* PM_TMR_LEN */
	le_put(p + 96, 0x0fff, 2);			/* no C2 */
	le_put(p + 98, 0x0fff, 2);			/* no C3 */
	if (c->rtc)
		p[108] = ACPI_RTC_CENTURY;
	le_put(p + 109, c->iapc_boot_arch, 2);
	le_put(p + 112, FADT_FLAGS, 4);
	le_put(p + 140, dsdt, 8);			/* X_DSDT */
	put_gas(p + 148, 32, GAS_ACCESS_WORD, c->pm1a_evt_port);
	put_gas(p + 172, 16, GAS_ACCESS_WORD, c->pm1a_cnt_port);
	put_gas(p + 208, 32, GAS_ACCESS_DWORD, c->pm_tmr_port);
	finish(p);
}

static uint8_t *madt_iso(uint8_t *e, uint8_t irq, uint32_t gsi,
			 uint16_t flags)
{
	e[0] = 2;
	e[1] = MADT_ISO_LEN;
	e[2] = 0;				/* ISA bus */
	e[3] = irq;
	le_put(e + 4, gsi, 4);
	le_put(e + 8, flags, 2);
	return e + MADT_ISO_LEN;
}

static void build_madt(uint8_t *p, const struct acpi_config *c)
{
	uint8_t *e = p + HDR_LEN + 8;

	header(p, "APIC", MADT_LEN(c->ncpus), 4);
	le_put(p + HDR_LEN, c->lapic_base, 4);
	le_put(p + HDR_LEN + 4, MADT_PCAT_COMPAT, 4);
	for (uint32_t i = 0; i < c->ncpus; i++, e += MADT_LAPIC_LEN) {
		e[0] = 0;
		e[1] = MADT_LAPIC_LEN;
		e[2] = (uint8_t)i;		/* processor UID */
		e[3] = (uint8_t)i;		/* APIC id */
		le_put(e + 4, MADT_ENABLED, 4);
	}
	e[0] = 1;
	e[1] = MADT_IOAPIC_LEN;
	e[2] = 0;			/* IOAPIC id, KVM's reset value */
	e[3] = 0;
	le_put(e + 4, c->ioapic_base, 4);
	le_put(e + 8, 0, 4);			/* GSI base */
	e = madt_iso(e + MADT_IOAPIC_LEN, 0, 2, 0);	/* PIT: bus default */
	madt_iso(e, c->sci_irq, c->sci_irq, MPS_LEVEL_HIGH);
	finish(p);
}

static void build_mcfg(uint8_t *p, const struct acpi_config *c)
{
	uint8_t *e = p + HDR_LEN + 8;

	header(p, "MCFG", MCFG_LEN, 1);
	le_put(e, c->ecam_base, 8);		/* segment 0, start bus 0 */
	e[11] = (uint8_t)(c->ecam_buses - 1);
	finish(p);
}

static void name_int(struct aml *a, const char *name, uint64_t v)
{
	aml_name_decl(a, name);
	aml_int(a, v);
}

static void io_window(struct aml *a, uint32_t min, uint32_t max)
{
	aml_res_addr(a, 2, AML_RES_IO, AML_RES_PRODUCER, AML_IO_ENTIRE,
		     min, max);
}

/* Root bridge resources: the bus range, the CF8 config ports, I/O below
 * and above them (the BAR window split out), and the memory windows. */
static void dsdt_pci0_crs(struct aml *a, const struct acpi_config *c)
{
	uint32_t io_end = c->pci_io_base + c->pci_io_size - 1;
	size_t buf;

	aml_name_decl(a, "_CRS");
	buf = aml_buffer(a);
	aml_res_addr(a, 2, AML_RES_BUS, AML_RES_PRODUCER, 0, 0,
		     c->ecam_buses - 1);
	aml_res_io(a, PCI_CONF1_ADDR_PORT, 8);
	io_window(a, 0, 0xcf7);
	if (c->pci_io_base > 0xd00)
		io_window(a, 0xd00, c->pci_io_base - 1);
	io_window(a, c->pci_io_base, io_end);
	if (io_end < 0xffff)
		io_window(a, io_end + 1, 0xffff);
	aml_res_addr(a, 4, AML_RES_MEM, AML_RES_PRODUCER, AML_MEM_RW,
		     c->pci32_base, c->pci32_base + c->pci32_size - 1);
	if (c->pci64_size)
		aml_res_addr(a, 8, AML_RES_MEM, AML_RES_PRODUCER, AML_MEM_RW,
			     c->pci64_base, c->pci64_base + c->pci64_size - 1);
	aml_res_end(a);
	aml_buffer_close(a, buf);
}

/* Package (4) { 0xDDDDFFFF, pin, Zero, GSI }: Source Zero means the last
 * field is a GSI, level-triggered and active-low. */
static void dsdt_prt(struct aml *a, uint32_t slots)
{
	unsigned int n = 0;
	size_t pkg;

	for (unsigned int d = 0; d < 32; d++)
		n += (slots >> d) & 1;
	if (n == 0)
		return;
	aml_name_decl(a, "_PRT");
	pkg = aml_package(a, (uint8_t)(4 * n));
	for (unsigned int d = 0; d < 32; d++) {
		if (!((slots >> d) & 1))
			continue;
		for (unsigned int pin = 0; pin < 4; pin++) {
			size_t e = aml_package(a, 4);

			aml_int(a, (uint64_t)d << 16 | 0xffff);
			aml_int(a, pin);
			aml_int(a, 0);
			aml_int(a, ABI_PCI_INTX_GSI(d, pin));
			aml_close(a, e);
		}
	}
	aml_close(a, pkg);
}

static void dsdt_pci0(struct aml *a, const struct acpi_config *c)
{
	size_t dev = aml_device(a, "PCI0");

	name_int(a, "_HID", EISA_PNP0A08);
	name_int(a, "_CID", EISA_PNP0A03);
	name_int(a, "_SEG", 0);
	name_int(a, "_BBN", 0);
	name_int(a, "_UID", 0);
	if (!c->no_ecam)
		name_int(a, "_CBA", c->ecam_base);
	dsdt_pci0_crs(a, c);
	dsdt_prt(a, c->prt_slots);
	aml_close(a, dev);
}

/* Motherboard resource holding ECAM, which Linux wants before it trusts
 * MCFG (pci_mmcfg_late_init). */
static void dsdt_ecam(struct aml *a, const struct acpi_config *c)
{
	uint64_t end = c->ecam_base + c->ecam_buses * ECAM_BUS_SIZE - 1;
	size_t dev = aml_device(a, "ECAM");
	size_t buf;

	name_int(a, "_HID", EISA_PNP0C02);
	name_int(a, "_UID", 1);
	aml_name_decl(a, "_CRS");
	buf = aml_buffer(a);
	aml_res_addr(a, 8, AML_RES_MEM, AML_RES_CONSUMER, AML_MEM_RW,
		     c->ecam_base, end);
	aml_res_end(a);
	aml_buffer_close(a, buf);
	aml_close(a, dev);
}

/* The snapshot control page, as ECAM: a motherboard resource. */
static void dsdt_snapctl(struct aml *a, const struct acpi_config *c)
{
	size_t dev = aml_device(a, "SNAP");
	size_t buf;

	name_int(a, "_HID", EISA_PNP0C02);
	name_int(a, "_UID", 2);
	aml_name_decl(a, "_CRS");
	buf = aml_buffer(a);
	aml_res_addr(a, 8, AML_RES_MEM, AML_RES_CONSUMER, AML_MEM_RW,
		     c->snapctl_base, c->snapctl_base + c->snapctl_size - 1);
	aml_res_end(a);
	aml_buffer_close(a, buf);
	aml_close(a, dev);
}

static void sleep_state(struct aml *a, const char *name, uint8_t typ)
{
	size_t tok;

	aml_name_decl(a, name);
	tok = aml_package(a, 4);
	aml_int(a, typ);			/* SLP_TYPa */
	aml_int(a, typ);			/* SLP_TYPb (no PM1b) */
	aml_int(a, 0);
	aml_int(a, 0);
	aml_close(a, tok);
}

static void dsdt_rtc(struct aml *a)
{
	size_t dev = aml_device(a, "RTC_");
	size_t buf;

	name_int(a, "_HID", EISA_PNP0B00);
	aml_name_decl(a, "_CRS");
	buf = aml_buffer(a);
	aml_res_io(a, ABI_RTC_PORT, 2);		/* index, data */
	aml_res_irq(a, ABI_RTC_IRQ);
	aml_res_end(a);
	aml_buffer_close(a, buf);
	aml_close(a, dev);
}

/* COM1..COM4 as Linux's 8250_pnp (and Windows' serial.sys) look for
 * them: how the OS learns of a COM2 it would not probe. */
static void dsdt_uart(struct aml *a, int i, const struct acpi_uart *u)
{
	char name[5] = { 'C', 'O', 'M', (char)('1' + i), 0 };
	size_t dev = aml_device(a, name);
	size_t buf;

	name_int(a, "_HID", EISA_PNP0501);
	name_int(a, "_UID", (uint64_t)i + 1);
	aml_name_decl(a, "_CRS");
	buf = aml_buffer(a);
	aml_res_io(a, u->port, 8);
	aml_res_irq(a, u->irq);
	aml_res_end(a);
	aml_buffer_close(a, buf);
	aml_close(a, dev);
}

/* Returns the DSDT length, or 0 if it does not fit in cap bytes. */
static size_t build_dsdt(uint8_t *p, size_t cap, const struct acpi_config *c)
{
	struct aml a;
	size_t tok;

	if (cap < HDR_LEN)
		return 0;
	aml_init(&a, p + HDR_LEN, cap - HDR_LEN);
	sleep_state(&a, "_S3_", ACPI_SLP_TYP_S3);
	sleep_state(&a, "_S5_", ACPI_SLP_TYP_S5);
	tok = aml_scope(&a, "\\_SB_");
	dsdt_pci0(&a, c);
	if (c->rtc)
		dsdt_rtc(&a);
	for (int i = 0; i < ACPI_MAX_UARTS && c->uart[i].port; i++)
		dsdt_uart(&a, i, &c->uart[i]);
	if (!c->no_ecam)
		dsdt_ecam(&a, c);
	if (c->snapctl_size)
		dsdt_snapctl(&a, c);
	aml_close(&a, tok);
	if (a.overflow || HDR_LEN + a.len > UINT32_MAX)
		return 0;
	header(p, "DSDT", (uint32_t)(HDR_LEN + a.len), 2);
	finish(p);
	return HDR_LEN + a.len;
}

int acpi_build(const struct acpi_config *cfg, void *buf, size_t size,
	       uint64_t gpa, uint64_t *rsdp, size_t *used)
{
	uint8_t *b = buf;
	size_t off_mcfg = ALIGN16(OFF_MADT + MADT_LEN((size_t)cfg->ncpus));
	size_t off_dsdt = ALIGN16(off_mcfg + (cfg->no_ecam ? 0 : MCFG_LEN));
	size_t dsdt_len;
	int err = check_config(cfg, gpa, size);

	if (err)
		return err;
	if (size < off_dsdt)
		return ACPI_ERR_NOSPACE;
	dsdt_len = build_dsdt(b + off_dsdt, size - off_dsdt, cfg);
	if (dsdt_len == 0)
		return ACPI_ERR_NOSPACE;
	zero(b, off_dsdt); /* the builders below write only non-zero fields */
	build_rsdp(b + OFF_RSDP, gpa);
	build_facs(b + OFF_FACS);
	build_xsdt(b + OFF_XSDT, cfg, gpa, off_mcfg);
	build_fadt(b + OFF_FADT, cfg, gpa, gpa + off_dsdt);
	build_madt(b + OFF_MADT, cfg);
	if (!cfg->no_ecam)
		build_mcfg(b + off_mcfg, cfg);
	*rsdp = gpa + OFF_RSDP;
	*used = off_dsdt + dsdt_len;
	return ACPI_OK;
}

const char *acpi_build_strerror(int err)
{
	switch (err) {
	case ACPI_OK:
		return "success";
	case ACPI_ERR_NOSPACE:
		return "ACPI tables do not fit in the buffer";
	case ACPI_ERR_CPUS:
		return "vCPU count is 0 or above ACPI_MAX_CPUS";
	case ACPI_ERR_CONFIG:
		return "invalid ACPI config (base, window, port or IRQ)";
	default:
		return "unknown ACPI build error";
	}
}
