// SPDX-License-Identifier: MIT
/*
 * Runs the tables from firmware/lib/acpi_build.c through ACPICA (package
 * acpica-tools), in a temporary directory per case:
 *   iasl -d T.dat                      disassemble each table (the RSDP
 *                                      excepted: iasl 20200925 cannot read
 *                                      a standalone RSDP, even its own)
 *   iasl -w3 -z -p T_rc T.dsl          data tables: recompile, and the
 *                                      binary must equal ours byte for byte
 *   iasl -w3 -p dsdt_rc dsdt.dsl       DSDT: recompile the disassembly
 *   acpiexec -b "evaluate ..." dsdt.dat  evaluate _S5, _PRT, _CRS, _CBA
 * Any warning, error or remark fails the test.
 */
#include <check.h>

#include "tests/unit/unit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "firmware/lib/acpi_build.h"
#include "firmware/lib/le.h"
#include "vmm/layout.h"

#define BASE	0xe0000ull

static uint8_t buf[0x20000];
static char dir[64];

static int run(const char *cmd, const char *log)
{
	char line[1024];

	snprintf(line, sizeof(line), "cd '%s' && %s > %s 2>&1", dir, cmd, log);
	return system(line);
}

/* Whole file as a string (the test owns the small files it reads). */
static char *slurp(const char *name)
{
	char path[256];
	FILE *f;
	char *s;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	ck_assert_msg(f, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = calloc(1, n + 1);
	ck_assert_uint_eq(fread(s, 1, n, f), n);
	fclose(f);
	return s;
}

static void no_complaints(const char *name)
{
	static const char *const bad[] = {
		"Warning", "Error", "Remark", "Incorrect", "Invalid",
		"Exception", "Unexpected",
	};
	char *s = slurp(name);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!strcasestr(s, bad[i]),
			      "%s/%s mentions \"%s\"", dir, name, bad[i]);
	free(s);
}

static void contains(const char *name, const char *what)
{
	char *s = slurp(name);

	ck_assert_msg(strstr(s, what), "%s/%s lacks \"%s\"", dir, name, what);
	free(s);
}

static void put_file(const char *name, const uint8_t *p, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	ck_assert_msg(f, "cannot create %s", path);
	ck_assert_uint_eq(fwrite(p, 1, len, f), len);
	fclose(f);
}

static void put_table(const char *name, uint64_t gpa)
{
	const uint8_t *t = buf + (gpa - BASE);

	put_file(name, t, le_get(t + 4, 4));
}

/* Disassemble; for data tables, recompile and compare with the input. */
static void roundtrip(const char *t, int data_table)
{
	char cmd[256], log[64], out[64];

	snprintf(cmd, sizeof(cmd), "iasl -d %s.dat", t);
	snprintf(log, sizeof(log), "%s.d.log", t);
	ck_assert_msg(run(cmd, log) == 0, "%s failed, see %s/%s", cmd, dir, log);
	no_complaints(log);
	snprintf(out, sizeof(out), "%s.dsl", t);
	no_complaints(out);
	snprintf(cmd, sizeof(cmd), "iasl -w3 %s -p %s_rc %s.dsl",
		 data_table ? "-z" : "", t, t);
	snprintf(log, sizeof(log), "%s.c.log", t);
	ck_assert_msg(run(cmd, log) == 0, "%s failed, see %s/%s", cmd, dir, log);
	contains(log, "Compilation successful. 0 Errors, 0 Warnings, 0 Remarks");
	if (data_table) {
		snprintf(cmd, sizeof(cmd), "cmp %s.dat %s_rc.aml", t, t);
		ck_assert_msg(run(cmd, "cmp.log") == 0,
			      "%s: iasl rebuilt a different table", t);
	}
}

static void check_with_acpica(const struct acpi_config *c, unsigned int nprt)
{
	const uint8_t *x, *f;
	uint64_t rsdp;
	size_t used;
	char want[128];

	ck_assert_int_eq(system("command -v iasl acpiexec >/dev/null"), 0);
	ck_assert_int_eq(acpi_build(c, buf, sizeof(buf), BASE, &rsdp, &used),
			 ACPI_OK);
	snprintf(dir, sizeof(dir), "/tmp/check_acpi_iasl.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	x = buf + (le_get(buf + (rsdp - BASE) + 24, 8) - BASE);
	f = buf + (le_get(x + 36, 8) - BASE);
	put_table("xsdt.dat", le_get(buf + (rsdp - BASE) + 24, 8));
	put_table("facp.dat", le_get(x + 36, 8));
	put_table("apic.dat", le_get(x + 44, 8));
	put_table("mcfg.dat", le_get(x + 52, 8));
	put_table("dsdt.dat", le_get(f + 140, 8));
	put_file("facs.dat", buf + (le_get(f + 36, 4) - BASE), 64);
	roundtrip("xsdt", 1);
	roundtrip("facp", 1);
	roundtrip("facs", 1);
	roundtrip("apic", 1);
	roundtrip("mcfg", 1);
	roundtrip("dsdt", 0);
	contains("dsdt.dsl", "Name (_HID, EisaId (\"PNP0A08\")");
	contains("dsdt.dsl", "Name (_CID, EisaId (\"PNP0A03\")");
	contains("dsdt.dsl", "Name (_HID, EisaId (\"PNP0C02\")");
	contains("dsdt.dsl", "Name (_S5, Package (0x04)");
	if (c->uart[1].port) {
		contains("dsdt.dsl", "Device (COM2)");
		contains("dsdt.dsl", "Name (_HID, EisaId (\"PNP0501\")");
		contains("dsdt.dsl", "0x02F8,");
		contains("dsdt.dsl", "IRQNoFlags ()\n                    {3}");
	}
	ck_assert_int_eq(run("timeout 60 acpiexec -b 'evaluate \\_S5; "
			     "evaluate \\_SB.PCI0._PRT; "
			     "evaluate \\_SB.PCI0._CRS; "
			     "evaluate \\_SB.ECAM._CRS; "
			     "evaluate \\_SB.SNAP._CRS; "
			     "evaluate \\_SB.PCI0._CBA' dsdt.dat", "exec.log"),
			 0);
	no_complaints("exec.log");
	snprintf(want, sizeof(want), "[Package] Contains %u Elements", nprt);
	contains("exec.log", want);
	snprintf(want, sizeof(want), "[Integer] = %016llX",
		 (unsigned long long)c->ecam_base);
	contains("exec.log", want);
	/* Only on success, so a failure leaves the evidence behind. */
	snprintf(want, sizeof(want), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(want), 0);
}

static struct acpi_config cfg(uint32_t ncpus)
{
	struct acpi_config c = {
		.ncpus = ncpus,
		.lapic_base = ABI_LAPIC_BASE,
		.ioapic_base = ABI_IOAPIC_BASE,
		.ecam_base = LAYOUT_ECAM_BASE,
		.ecam_buses = LAYOUT_ECAM_MAX_BUSES,
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
		.snapctl_base = LAYOUT_SNAPCTL_BASE,
		.snapctl_size = LAYOUT_SNAPCTL_SIZE,
	};
	return c;
}

START_TEST(test_big)
{
	struct acpi_config c = cfg(ACPI_MAX_CPUS);

	c.iapc_boot_arch = ACPI_BOOT_NO_VGA | ACPI_BOOT_NO_CMOS_RTC;
	check_with_acpica(&c, 128);
}
END_TEST

/* One vCPU, one bus, a few slots, no 64-bit window, I/O window at the
 * top of the range (no window above it). */
START_TEST(test_small)
{
	struct acpi_config c = cfg(1);

	c.ecam_buses = 1;
	c.prt_slots = 0x7;
	c.pci64_size = 0;
	c.pci_io_base = 0xf000;
	c.pci_io_size = 0x1000;
	c.rtc = true;		/* the RTC device and FADT CENTURY */
	c.uart[0] = (struct acpi_uart){ 0x3f8, 4 };	/* COM1, COM2 */
	c.uart[1] = (struct acpi_uart){ 0x2f8, 3 };
	check_with_acpica(&c, 12);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("acpi_iasl");
	TCase *tc = tcase_create("acpica");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_big);
	tcase_add_test(tc, test_small);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
