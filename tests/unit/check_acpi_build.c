// SPDX-License-Identifier: MIT
/* Structure checks of the ACPI tables from firmware/lib/acpi_build.c: every
 * pointer is followed through the guest-physical base, every checksum and
 * length is verified.  check_acpi_iasl.c runs them through ACPICA. */
#include <check.h>

#include "tests/unit/unit.h"
#include <stdlib.h>
#include <string.h>

#include "firmware/lib/acpi_build.h"
#include "firmware/lib/le.h"
#include "vmm/layout.h"

#define BASE	0xe0000ull
#define BUFSZ	0x20000

static struct acpi_config cfg(uint32_t ncpus)
{
	struct acpi_config c = {
		.ncpus = ncpus,
		.lapic_base = ABI_LAPIC_BASE,
		.ioapic_base = ABI_IOAPIC_BASE,
		.ecam_base = LAYOUT_ECAM_BASE,
		.ecam_buses = 64,
		.pci_io_base = LAYOUT_PCI_IO_BASE,
		.pci_io_size = LAYOUT_PCI_IO_SIZE,
		.pci32_base = LAYOUT_PCI32_BASE,
		.pci32_size = LAYOUT_PCI32_SIZE,
		.pci64_base = 0x140000000ull,
		.pci64_size = LAYOUT_PCI64_SIZE,
		.prt_slots = ~0u,
		.sci_irq = ABI_ACPI_SCI_IRQ,
		.pm1a_evt_port = ABI_ACPI_PM1A_EVT_PORT,
		.pm1a_cnt_port = ABI_ACPI_PM1A_CNT_PORT,
		.pm_tmr_port = ABI_ACPI_PM_TMR_PORT,
		.iapc_boot_arch = ACPI_BOOT_NO_VGA,
	};
	return c;
}

static uint8_t buf[BUFSZ];
static size_t used;

static uint8_t sum(const uint8_t *p, size_t n)
{
	uint8_t s = 0;

	while (n--)
		s = (uint8_t)(s + *p++);
	return s;
}

static uint64_t build(const struct acpi_config *c)
{
	uint64_t rsdp = 0;

	memset(buf, 0xa5, sizeof(buf));		/* builder must clear */
	ck_assert_int_eq(acpi_build(c, buf, sizeof(buf), BASE, &rsdp, &used),
			 ACPI_OK);
	ck_assert_uint_le(used, sizeof(buf));
	return rsdp;
}

/* The table at guest address gpa: signature, checksum and bounds. */
static const uint8_t *table(uint64_t gpa, const char *sig)
{
	const uint8_t *t;
	uint32_t len;

	ck_assert_uint_ge(gpa, BASE);
	ck_assert_uint_le(gpa + 36, BASE + used);
	t = buf + (gpa - BASE);
	len = (uint32_t)le_get(t + 4, 4);
	ck_assert_msg(memcmp(t, sig, 4) == 0, "want %s, got %.4s", sig, t);
	ck_assert_uint_ge(len, 36);
	ck_assert_uint_le(gpa + len, BASE + used);
	ck_assert_msg(sum(t, len) == 0, "%s checksum", sig);
	return t;
}

static const uint8_t *xsdt_entry(uint64_t rsdp, int i, const char *sig)
{
	const uint8_t *r = buf + (rsdp - BASE);
	const uint8_t *x = table(le_get(r + 24, 8), "XSDT");

	ck_assert_uint_eq(le_get(x + 4, 4), 36 + 8 * 3);
	return table(le_get(x + 36 + 8 * i, 8), sig);
}

START_TEST(test_rsdp_xsdt)
{
	struct acpi_config c = cfg(4);
	uint64_t rsdp = build(&c);
	const uint8_t *r = buf + (rsdp - BASE);

	ck_assert_uint_eq(rsdp % 16, 0);
	ck_assert_mem_eq(r, "RSD PTR ", 8);
	ck_assert_uint_eq(sum(r, 20), 0);
	ck_assert_uint_eq(r[15], 2);
	ck_assert_uint_eq(le_get(r + 20, 4), 36);
	ck_assert_uint_eq(sum(r, 36), 0);
	xsdt_entry(rsdp, 0, "FACP");
	xsdt_entry(rsdp, 1, "APIC");
	xsdt_entry(rsdp, 2, "MCFG");
}
END_TEST

START_TEST(test_fadt)
{
	struct acpi_config c = cfg(2);
	const uint8_t *f = xsdt_entry(build(&c), 0, "FACP");
	uint64_t facs = le_get(f + 36, 4);
	const uint8_t *fs = buf + (facs - BASE);

	ck_assert_uint_eq(le_get(f + 4, 4), 276);
	ck_assert_uint_eq(f[8], 6);
	ck_assert_uint_eq(le_get(f + 40, 4), le_get(f + 140, 8)); /* DSDT */
	table(le_get(f + 140, 8), "DSDT");
	ck_assert_uint_eq(facs % 64, 0);
	ck_assert_mem_eq(fs, "FACS", 4);
	ck_assert_uint_eq(le_get(fs + 4, 4), 64);
	ck_assert_uint_eq(le_get(f + 46, 2), ABI_ACPI_SCI_IRQ);
	ck_assert_uint_eq(le_get(f + 48, 4), 0);		/* SMI_CMD */
	ck_assert_uint_eq(le_get(f + 56, 4), ABI_ACPI_PM1A_EVT_PORT);
	ck_assert_uint_eq(le_get(f + 64, 4), ABI_ACPI_PM1A_CNT_PORT);
	ck_assert_uint_eq(le_get(f + 76, 4), ABI_ACPI_PM_TMR_PORT);
	ck_assert_uint_eq(le_get(f + 152, 8), ABI_ACPI_PM1A_EVT_PORT);	/* X_ */
	ck_assert_uint_eq(le_get(f + 176, 8), ABI_ACPI_PM1A_CNT_PORT);
	ck_assert_uint_eq(le_get(f + 212, 8), ABI_ACPI_PM_TMR_PORT);
	ck_assert_uint_eq(le_get(f + 109, 2), ACPI_BOOT_NO_VGA);
	ck_assert_uint_eq(le_get(f + 112, 4) & (1u << 20), 0); /* !HW_REDUCED */
	/* The fixed power button (QMP's system_powerdown), no sleep one. */
	ck_assert_uint_eq(le_get(f + 112, 4) & (1u << 4), 0);
	ck_assert_uint_ne(le_get(f + 112, 4) & (1u << 5), 0);
}
END_TEST

/* Walk the MADT: n enabled LAPICs with ids 0..n-1, one IOAPIC, and the
 * IRQ0 -> GSI2 and SCI overrides; the entries must tile the table. */
static void check_madt(uint32_t n)
{
	struct acpi_config c = cfg(n);
	const uint8_t *m = xsdt_entry(build(&c), 1, "APIC");
	const uint8_t *e = m + 44, *end = m + le_get(m + 4, 4);
	uint32_t lapics = 0, ioapics = 0, isos = 0;

	ck_assert_uint_eq(le_get(m + 36, 4), ABI_LAPIC_BASE);
	ck_assert_uint_eq(le_get(m + 40, 4), 1);
	for (; e < end; e += e[1]) {
		ck_assert_uint_ge(e[1], 2);
		ck_assert(e + e[1] <= end);
		if (e[0] == 0) {
			ck_assert_uint_eq(e[3], lapics);
			ck_assert_uint_eq(le_get(e + 4, 4), 1);
			lapics++;
		} else if (e[0] == 1) {
			ck_assert_uint_eq(le_get(e + 4, 4), ABI_IOAPIC_BASE);
			ck_assert_uint_eq(le_get(e + 8, 4), 0);
			ioapics++;
		} else if (e[0] == 2 && e[3] == 0) {
			ck_assert_uint_eq(le_get(e + 4, 4), 2);
			isos++;
		} else if (e[0] == 2 && e[3] == ABI_ACPI_SCI_IRQ) {
			ck_assert_uint_eq(le_get(e + 4, 4), ABI_ACPI_SCI_IRQ);
			ck_assert_uint_eq(le_get(e + 8, 2), 0x000d);
			isos++;
		} else {
			ck_abort_msg("unexpected MADT entry type %u", e[0]);
		}
	}
	ck_assert_ptr_eq(e, end);
	ck_assert_uint_eq(lapics, n);
	ck_assert_uint_eq(ioapics, 1);
	ck_assert_uint_eq(isos, 2);
}

START_TEST(test_madt_1) { check_madt(1); } END_TEST
START_TEST(test_madt_64) { check_madt(64); } END_TEST
START_TEST(test_madt_max) { check_madt(ACPI_MAX_CPUS); } END_TEST

START_TEST(test_mcfg)
{
	static const uint32_t buses[] = { 1, 64, 256 };
	struct acpi_config c = cfg(1);

	for (int i = 0; i < 3; i++) {
		c.ecam_buses = buses[i];
		const uint8_t *m = xsdt_entry(build(&c), 2, "MCFG");

		ck_assert_uint_eq(le_get(m + 4, 4), 60);
		ck_assert_uint_eq(m[8], 1);
		ck_assert_uint_eq(le_get(m + 44, 8), LAYOUT_ECAM_BASE);
		ck_assert_uint_eq(le_get(m + 52, 2), 0);
		ck_assert_uint_eq(m[54], 0);
		ck_assert_uint_eq(m[55], buses[i] - 1);
	}
}
END_TEST

/* Decode one AML integer constant (the encodings aml_int emits). */
static uint64_t aml_int_at(const uint8_t **pp)
{
	const uint8_t *p = *pp;
	unsigned int n = p[0] == 0x0a ? 1 : p[0] == 0x0b ? 2 :
			 p[0] == 0x0c ? 4 : p[0] == 0x0e ? 8 : 0;

	ck_assert_msg(n || p[0] <= 1, "not an integer: 0x%02x", p[0]);
	*pp = p + 1 + n;
	return n ? le_get(p + 1, n) : p[0];
}

static const uint8_t *find(const uint8_t *t, const char *s)
{
	size_t len = le_get(t + 4, 4), n = strlen(s);

	for (size_t i = 36; i + n <= len; i++)
		if (memcmp(t + i, s, n) == 0)
			return t + i;
	return NULL;
}

static const uint8_t *dsdt_of(const struct acpi_config *c)
{
	const uint8_t *f = xsdt_entry(build(c), 0, "FACP");

	return table(le_get(f + 140, 8), "DSDT");
}

/* _PRT has 4 entries per selected slot with the documented swizzle. */
START_TEST(test_dsdt_prt)
{
	struct acpi_config c = cfg(1);
	const uint8_t *d, *p;

	c.prt_slots = (1u << 0) | (1u << 5) | (1u << 31);
	d = dsdt_of(&c);
	p = find(d, "_PRT");
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p[4], 0x12);			/* PackageOp */
	ck_assert_uint_eq(p[8], 12);			/* NumElements */
	p += 9;
	for (unsigned int slot = 0; slot < 32; slot++) {
		if (!((c.prt_slots >> slot) & 1))
			continue;
		for (unsigned int pin = 0; pin < 4; pin++) {
			ck_assert_uint_eq(p[0], 0x12);
			ck_assert_uint_eq(p[4], 4);
			p += 5;
			ck_assert_uint_eq(aml_int_at(&p), slot << 16 | 0xffff);
			ck_assert_uint_eq(aml_int_at(&p), pin);
			ck_assert_uint_eq(aml_int_at(&p), 0);
			ck_assert_uint_eq(aml_int_at(&p),
					  16 + ((slot + pin) & 3));
		}
	}
	c.prt_slots = 0;
	ck_assert_ptr_null(find(dsdt_of(&c), "_PRT"));
}
END_TEST

/* _S3 (QEMU's SLP_TYP 1) and _S5 come first; the \_SB scope's PkgLength
 * must reach the table end. */
START_TEST(test_dsdt_shape)
{
	struct acpi_config c = cfg(1);
	const uint8_t *d = dsdt_of(&c), *p = d + 36;
	static const uint8_t s3[] = { 0x08, '_', 'S', '3', '_', 0x12 };
	static const uint8_t s5[] = { 0x08, '_', 'S', '5', '_', 0x12 };
	static const uint8_t pnp0a08[] = { 0x0c, 0x41, 0xd0, 0x0a, 0x08 };
	size_t pkglen;

	ck_assert_mem_eq(p, s3, sizeof(s3));
	p += sizeof(s3) + 3;
	ck_assert_uint_eq(*p++, 4);
	ck_assert_uint_eq(aml_int_at(&p), ACPI_SLP_TYP_S3);
	ck_assert_uint_eq(aml_int_at(&p), ACPI_SLP_TYP_S3);
	p += 2;
	ck_assert_mem_eq(p, s5, sizeof(s5));
	p += sizeof(s5) + 3;
	ck_assert_uint_eq(*p++, 4);
	ck_assert_uint_eq(aml_int_at(&p), ACPI_SLP_TYP_S5);
	ck_assert_uint_eq(aml_int_at(&p), ACPI_SLP_TYP_S5);
	p += 2;
	ck_assert_uint_eq(*p, 0x10);			/* ScopeOp */
	pkglen = (p[1] & 0x0f) | p[2] << 4 | p[3] << 12;
	ck_assert_uint_eq(p[1] >> 6, 2);
	ck_assert_uint_eq(p + 1 + pkglen - d, le_get(d + 4, 4));
	ck_assert_mem_eq(p + 4, "\\_SB_", 5);
	ck_assert_ptr_nonnull(find(d, "PCI0"));
	ck_assert_ptr_nonnull(find(d, "ECAM"));
	ck_assert_ptr_null(find(d, "RTC_"));		/* c.rtc is false */
	c.rtc = true;
	ck_assert_ptr_nonnull(find(dsdt_of(&c), "RTC_"));
	c.rtc = false;
	d = dsdt_of(&c);
	p = find(d, "_HID");
	ck_assert_ptr_nonnull(p);
	ck_assert_mem_eq(p + 4, pnp0a08, sizeof(pnp0a08));
}
END_TEST

/* --ecam off: no MCFG in the XSDT, no _CBA, no ECAM resource; the
 * tables still chain and the DSDT keeps the host bridge.  A garbage
 * ecam_base is ignored. */
START_TEST(test_no_ecam)
{
	struct acpi_config c = cfg(2);
	const uint8_t *r, *x, *f, *d;
	uint64_t rsdp;

	c.no_ecam = true;
	c.ecam_base = 0x1234;
	rsdp = build(&c);
	r = buf + (rsdp - BASE);
	x = table(le_get(r + 24, 8), "XSDT");
	ck_assert_uint_eq(le_get(x + 4, 4), 36 + 8 * 2);
	f = table(le_get(x + 36, 8), "FACP");
	table(le_get(x + 44, 8), "APIC");
	d = table(le_get(f + 140, 8), "DSDT");
	ck_assert_ptr_nonnull(find(d, "PCI0"));
	ck_assert_ptr_nonnull(find(d, "_CRS"));
	ck_assert_ptr_null(find(d, "_CBA"));
	ck_assert_ptr_null(find(d, "ECAM"));
	for (size_t i = 0; i + 4 <= used; i++)
		ck_assert_msg(memcmp(buf + i, "MCFG", 4), "MCFG at +%zu", i);
	c.ecam_buses = 0;
	ck_assert_int_eq(acpi_build(&c, buf, sizeof(buf), BASE, &rsdp, &used),
			 ACPI_ERR_CONFIG);
}
END_TEST

START_TEST(test_cpu_limits)
{
	struct acpi_config c = cfg(0);
	uint64_t rsdp = 7;
	size_t u = 7;

	ck_assert_int_eq(acpi_build(&c, buf, sizeof(buf), BASE, &rsdp, &u),
			 ACPI_ERR_CPUS);
	c.ncpus = ACPI_MAX_CPUS + 1;
	ck_assert_int_eq(acpi_build(&c, buf, sizeof(buf), BASE, &rsdp, &u),
			 ACPI_ERR_CPUS);
	ck_assert_uint_eq(rsdp, 7);
	ck_assert_uint_eq(u, 7);
}
END_TEST

/* Every buffer shorter than the result fails cleanly; an exact-size heap
 * buffer lets ASan catch any write past the end. */
START_TEST(test_nospace)
{
	struct acpi_config c = cfg(64);
	uint64_t rsdp;
	size_t need, u;
	uint8_t *p;

	build(&c);
	need = used;
	for (size_t size = 0; size < need; size++) {
		p = malloc(size ? size : 1);
		ck_assert_int_eq(acpi_build(&c, p, size, BASE, &rsdp, &u),
				 ACPI_ERR_NOSPACE);
		free(p);
	}
	p = malloc(need);
	ck_assert_int_eq(acpi_build(&c, p, need, BASE, &rsdp, &u), ACPI_OK);
	ck_assert_uint_eq(u, need);
	ck_assert_mem_eq(p, buf, need);
	free(p);
}
END_TEST

static int try(const struct acpi_config *c, uint64_t gpa)
{
	uint64_t rsdp;
	size_t u;

	return acpi_build(c, buf, 0x10000, gpa, &rsdp, &u);
}

START_TEST(test_bad_config)
{
	struct acpi_config c;

#define BAD(field, value) \
	c = cfg(1); c.field = value; \
	ck_assert_int_eq(try(&c, BASE), ACPI_ERR_CONFIG)

	c = cfg(1);
	ck_assert_int_eq(try(&c, BASE), ACPI_OK);
	ck_assert_int_eq(try(&c, BASE + 16), ACPI_ERR_CONFIG);
	ck_assert_int_eq(try(&c, 0x100000000ull - 0x8000), ACPI_ERR_CONFIG);
	BAD(ecam_buses, 0);
	BAD(ecam_buses, 257);
	BAD(ecam_base, LAYOUT_ECAM_BASE + 0x1000);
	BAD(pci_io_base, 0xcf8);
	BAD(pci_io_size, 0);
	BAD(pci_io_size, 0x4001);
	BAD(pci32_size, 0);
	BAD(pci32_size, 0x40000001);
	BAD(pci64_base, UINT64_MAX - 0x1000);
	BAD(sci_irq, 0);
	BAD(sci_irq, 2);
	BAD(sci_irq, 16);
	BAD(pm1a_evt_port, 0);
	BAD(pm1a_evt_port, 0xfffe);
	BAD(pm_tmr_port, 0xfffd);
	BAD(uart[0].port, 0xd00);		/* (IRQ 0 too) */
	c = cfg(1);
	c.uart[0] = (struct acpi_uart){ 0x3f8, 4 };
	ck_assert_int_eq(try(&c, BASE), ACPI_OK);
	c.uart[0].irq = 2;
	ck_assert_int_eq(try(&c, BASE), ACPI_ERR_CONFIG);
	c.uart[0].irq = 0;
	ck_assert_int_eq(try(&c, BASE), ACPI_ERR_CONFIG);
	c.uart[0] = (struct acpi_uart){ 0xd00, 4 };
	ck_assert_int_eq(try(&c, BASE), ACPI_ERR_CONFIG);
#undef BAD
	c = cfg(1);
	c.pci64_size = 0;
	ck_assert_int_eq(try(&c, BASE), ACPI_OK);
	c.pci_io_base = 0xd00;
	c.pci_io_size = 0x10000 - 0xd00;
	ck_assert_int_eq(try(&c, BASE), ACPI_OK);
}
END_TEST

/* Device COMn per UART, in order, with PNP0501, its ports and IRQ; none
 * past the list's end. */
START_TEST(test_dsdt_uarts)
{
	static const uint8_t pnp0501[] = { 0x0c, 0x41, 0xd0, 0x05, 0x01 };
	static const uint8_t com2_io[] = { 0x47, 0x01, 0xf8, 0x02, 0xf8, 0x02,
					   0x01, 0x08, 0x22, 0x08, 0x00 };
	struct acpi_config c = cfg(1);
	const uint8_t *d = dsdt_of(&c), *p;

	ck_assert_ptr_null(find(d, "COM1"));
	c.uart[0] = (struct acpi_uart){ 0x3f8, 4 };
	d = dsdt_of(&c);
	ck_assert_ptr_nonnull(find(d, "COM1"));
	ck_assert_ptr_null(find(d, "COM2"));
	c.uart[1] = (struct acpi_uart){ 0x2f8, 3 };
	d = dsdt_of(&c);
	p = find(d, "COM2");
	ck_assert_ptr_nonnull(p);
	ck_assert_mem_eq(p + 9, pnp0501, sizeof(pnp0501));
	for (size_t i = 0; i < 64; i++)
		if (!memcmp(p + i, com2_io, sizeof(com2_io)))
			return;
	ck_abort_msg("COM2's _CRS is not IO(0x2f8, 8), IRQNoFlags(3)");
}
END_TEST

START_TEST(test_strerror)
{
	ck_assert_str_ne(acpi_build_strerror(ACPI_ERR_NOSPACE),
			 acpi_build_strerror(ACPI_ERR_CPUS));
	ck_assert_str_ne(acpi_build_strerror(ACPI_ERR_CONFIG),
			 acpi_build_strerror(-99));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("acpi_build");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits");

	tcase_add_test(core, test_rsdp_xsdt);
	tcase_add_test(core, test_fadt);
	tcase_add_test(core, test_madt_1);
	tcase_add_test(core, test_madt_64);
	tcase_add_test(core, test_mcfg);
	tcase_add_test(core, test_dsdt_prt);
	tcase_add_test(core, test_dsdt_shape);
	tcase_add_test(core, test_no_ecam);
	tcase_add_test(core, test_dsdt_uarts);
	tcase_add_test(limits, test_madt_max);
	tcase_add_test(limits, test_cpu_limits);
	tcase_add_test(limits, test_nospace);
	tcase_add_test(limits, test_bad_config);
	tcase_add_test(limits, test_strerror);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	return unit_run(s);
}
