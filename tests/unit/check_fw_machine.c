// SPDX-License-Identifier: MIT
/*
 * The firmware's device-tree reader (firmware/dt.c, dt_pci.c, dt_prop.c)
 * on the host: a well-formed tree as minivmm builds it, then one fault at
 * a time -- a missing node or property, an impossible PCI window, too many
 * CPUs, a bad option -- each of which must end with the right
 * ABI_FW_FAIL_* reason and a message naming the problem.  fw_fail() is
 * replaced by a longjmp back into the test.
 */
#include <libfdt.h>
#include <setjmp.h>
#include <stdarg.h>

/* The firmware sources first: Check's own fail() macro would clash. */
#include "firmware/dt.c"
#include "firmware/dt_pci.c"
#include "firmware/dt_prop.c"
#undef fail

#include "tests/unit/unit.h"

#define GIB		(1ull << 30)	/* MIB comes from dt_pci.c */

static jmp_buf fail_jmp;
static uint32_t fail_reason;
static char fail_msg[512];

void fw_fail(uint32_t reason, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(fail_msg, sizeof(fail_msg), fmt, ap);
	va_end(ap);
	fail_reason = reason;
	longjmp(fail_jmp, 1);
}

/* What the tree holds; each test changes one thing. */
struct tree {
	uint64_t ram[4];		/* up to two <addr size> pairs */
	int n_ram;
	unsigned int cpus;
	bool no_pci, no_cpus, no_memory, no_pci_compat, no_mem32;
	uint32_t bus_range[2];
	bool ecam;
	uint64_t ecam_win[2], io[2], mem32[2], mem64[2];
	uint32_t pio;
	const char *options;
	const char *compatible;
	uint64_t snapctl[2];		/* size 0: no node */
	uint32_t uart[6][2];		/* serial@ nodes: port, IRQ */
	int n_uart;
	bool uart_no_irq;		/* leave "interrupts" out */
};

static struct tree t;
static uint8_t blob[1 << 16];
static struct machine m;

static void defaults(void)
{
	t = (struct tree){
		.ram = { 0, 256 * MIB }, .n_ram = 1, .cpus = 1,
		.bus_range = { 0, 0 }, .ecam = true,
		.ecam_win = { 0xe0000000, MIB }, .io = { 0xc000, 0x4000 },
		.mem32 = { 0xc0000000, 0x20000000 },
		.mem64 = { 4 * GIB, 64 * GIB }, .pio = 1,
		.options = "xen-bar-mtrr=wb", .compatible = ABI_FDT_COMPATIBLE,
	};
}

static void u64s(void *f, const char *name, const uint64_t *v, int n)
{
	fdt64_t c[4];

	for (int i = 0; i < n; i++)
		c[i] = cpu_to_fdt64(v[i]);
	ck_assert_int_eq(fdt_property(f, name, c, n * 8), 0);
}

static void build_pci(void *f)
{
	fdt32_t br[2] = { cpu_to_fdt32(t.bus_range[0]),
			  cpu_to_fdt32(t.bus_range[1]) };

	ck_assert_int_eq(fdt_begin_node(f, ABI_PCI_NODE), 0);
	if (!t.no_pci_compat)
		fdt_property_string(f, "compatible", ABI_PCI_COMPATIBLE);
	fdt_property(f, ABI_PROP_BUS_RANGE, br, sizeof(br));
	if (t.ecam)
		u64s(f, ABI_PROP_ECAM, t.ecam_win, 2);
	fdt_property_u32(f, ABI_PROP_PIO, t.pio);
	u64s(f, ABI_PROP_IO_WINDOW, t.io, 2);
	if (!t.no_mem32)
		u64s(f, ABI_PROP_MEM32_WINDOW, t.mem32, 2);
	u64s(f, ABI_PROP_MEM64_WINDOW, t.mem64, 2);
	ck_assert_int_eq(fdt_end_node(f), 0);
}

static void build_cpus(void *f)
{
	char name[16];

	fdt_begin_node(f, "cpus");
	fdt_property_u32(f, "#address-cells", 1);
	fdt_property_u32(f, "#size-cells", 0);
	for (unsigned int i = 0; i < t.cpus; i++) {
		snprintf(name, sizeof(name), "cpu@%u", i);
		fdt_begin_node(f, name);
		fdt_property_string(f, "device_type", "cpu");
		fdt_property_u32(f, "reg", i);
		fdt_end_node(f);
	}
	fdt_end_node(f);
}

static void build(void)
{
	void *f = blob;

	ck_assert_int_eq(fdt_create(f, sizeof(blob)), 0);
	fdt_finish_reservemap(f);
	fdt_begin_node(f, "");
	fdt_property_string(f, "compatible", t.compatible);
	fdt_property_u32(f, "#address-cells", 2);
	fdt_property_u32(f, "#size-cells", 2);
	if (!t.no_memory) {
		fdt_begin_node(f, "memory@0");
		fdt_property_string(f, "device_type", "memory");
		u64s(f, "reg", t.ram, 2 * t.n_ram);
		fdt_end_node(f);
	}
	if (!t.no_cpus)
		build_cpus(f);
	fdt_begin_node(f, "chosen");
	fdt_property_string(f, "bootargs", "console=ttyS0");
	fdt_property_string(f, ABI_PROP_PAYLOAD_KIND, "none");
	fdt_property_string(f, ABI_PROP_OPTIONS, t.options);
	fdt_end_node(f);
	if (!t.no_pci)
		build_pci(f);
	for (int i = 0; i < t.n_uart; i++) {
		char name[24];

		snprintf(name, sizeof(name), ABI_SERIAL_NODE "@%x",
			 t.uart[i][0]);
		fdt_begin_node(f, name);
		fdt_property_string(f, "compatible", ABI_SERIAL_COMPATIBLE);
		fdt_property_u32(f, ABI_PROP_IO_PORT, t.uart[i][0]);
		if (!t.uart_no_irq)
			fdt_property_u32(f, ABI_PROP_INTERRUPTS, t.uart[i][1]);
		fdt_end_node(f);
	}
	if (t.snapctl[1]) {
		fdt_begin_node(f, ABI_SNAPCTL_NODE "@fe000000");
		fdt_property_string(f, "compatible", ABI_SNAPCTL_COMPATIBLE);
		u64s(f, "reg", t.snapctl, 2);
		fdt_end_node(f);
	}
	fdt_end_node(f);
	ck_assert_int_eq(fdt_finish(f), 0);
}

/* Returns 0 if machine_read accepted the tree, else the fail reason. */
static uint32_t read_tree(void)
{
	build();
	fail_msg[0] = '\0';
	if (setjmp(fail_jmp))
		return fail_reason;
	machine_read(&m, blob);
	return 0;
}

static void expect_fail(uint32_t reason, const char *msg_part)
{
	uint32_t got = read_tree();

	ck_assert_msg(got == reason, "reason %u, expected %u (\"%s\")", got,
		      reason, fail_msg);
	ck_assert_msg(strstr(fail_msg, msg_part), "message \"%s\" lacks "
		      "\"%s\"", fail_msg, msg_part);
}

START_TEST(test_good)
{
	defaults();
	t.cpus = 4;
	ck_assert_uint_eq(read_tree(), 0);
	ck_assert_uint_eq(m.n_cpus, 4);
	ck_assert_uint_eq(m.ram_total, 256 * MIB);
	ck_assert_uint_eq(m.low_ram_end, 256 * MIB);
	ck_assert_uint_eq(m.high_ram_end, 0);
	ck_assert(m.xen_bar_wb);
	ck_assert(m.pci.has_ecam && m.pci.pio);
	ck_assert_uint_eq(m.pci.ecam.start, 0xe0000000);
	ck_assert_uint_eq(m.pci.mem32.size, 0x20000000);
	ck_assert_uint_eq(m.pci.mem64.start, 4 * GIB);
	ck_assert_uint_eq(m.pci.bus_last, 0);
	ck_assert_str_eq(m.bootargs, "console=ttyS0");
}
END_TEST

START_TEST(test_high_ram_and_options)
{
	defaults();
	t.ram[1] = 3 * GIB;
	t.ram[2] = 4 * GIB;
	t.ram[3] = 1 * GIB;
	t.n_ram = 2;
	t.mem64[0] = 5 * GIB;
	t.options = "foo=1 xen-bar-mtrr=uc";
	t.ecam = false;
	ck_assert_uint_eq(read_tree(), 0);
	ck_assert_uint_eq(m.low_ram_end, 3 * GIB);
	ck_assert_uint_eq(m.high_ram_end, 5 * GIB);
	ck_assert(!m.xen_bar_wb);
	ck_assert(!m.pci.has_ecam);
}
END_TEST

START_TEST(test_missing_nodes)
{
	defaults();
	t.no_pci = true;
	expect_fail(ABI_FW_FAIL_FDT, "no /pci node");
	defaults();
	t.no_cpus = true;
	expect_fail(ABI_FW_FAIL_FDT, "no /cpus node");
	defaults();
	t.no_memory = true;
	expect_fail(ABI_FW_FAIL_FDT, "no /memory@0");
	defaults();
	t.no_pci_compat = true;
	expect_fail(ABI_FW_FAIL_FDT, "has no compatible");
	defaults();
	t.no_mem32 = true;
	expect_fail(ABI_FW_FAIL_FDT, ABI_PROP_MEM32_WINDOW);
	defaults();
	t.compatible = "other,machine";
	expect_fail(ABI_FW_FAIL_FDT, "not compatible");
	defaults();
	t.ecam = false;
	t.pio = 0;
	expect_fail(ABI_FW_FAIL_FDT, "neither ECAM nor CF8");
	defaults();
	t.bus_range[0] = 1;
	t.bus_range[1] = 2;
	expect_fail(ABI_FW_FAIL_FDT, ABI_PROP_BUS_RANGE);
}
END_TEST

START_TEST(test_bad_windows)
{
	defaults();
	t.mem32[0] = 0x08000000;		/* inside RAM */
	expect_fail(ABI_FW_FAIL_WINDOW, "overlaps RAM");
	defaults();
	t.mem32[1] = 0x40000000;		/* runs over ECAM and APICs */
	expect_fail(ABI_FW_FAIL_WINDOW, "end below");
	defaults();
	t.io[0] = 0xf000;			/* past 64 KiB */
	expect_fail(ABI_FW_FAIL_WINDOW, ABI_PROP_IO_WINDOW);
	defaults();
	t.io[0] = 0x100;			/* legacy ports */
	expect_fail(ABI_FW_FAIL_WINDOW, ABI_PROP_IO_WINDOW);
	defaults();
	t.ecam_win[0] = 0xe0080000;		/* not 1 MiB aligned */
	expect_fail(ABI_FW_FAIL_WINDOW, ABI_PROP_ECAM);
	defaults();
	t.bus_range[1] = 3;			/* 4 buses, 1 MiB of ECAM */
	expect_fail(ABI_FW_FAIL_WINDOW, "buses 0-3 need");
	defaults();
	t.ecam_win[0] = 0xc0000000;
	expect_fail(ABI_FW_FAIL_WINDOW, "overlaps");
	defaults();
	t.mem64[0] = 2 * GIB;			/* below 4 GiB */
	expect_fail(ABI_FW_FAIL_WINDOW, ABI_PROP_MEM64_WINDOW);
	defaults();
	t.ram[2] = 0xd0000000;			/* RAM above the window */
	t.ram[3] = 0x1000000;
	t.n_ram = 2;
	t.mem32[1] = 0x10000000;
	expect_fail(ABI_FW_FAIL_WINDOW, "above the PCI windows");
}
END_TEST

/* The snapshot control page: kept as a range to reserve; refused where
 * it cannot be (unaligned, over RAM, above 4 GiB). */
START_TEST(test_snapctl)
{
	defaults();
	ck_assert_uint_eq(read_tree(), 0);
	ck_assert_uint_eq(m.snapctl.size, 0);
	t.snapctl[0] = 0xfe000000;
	t.snapctl[1] = 0x1000;
	ck_assert_uint_eq(read_tree(), 0);
	ck_assert_uint_eq(m.snapctl.start, 0xfe000000);
	ck_assert_uint_eq(m.snapctl.size, 0x1000);
	t.snapctl[1] = 0x800;
	expect_fail(ABI_FW_FAIL_FDT, "not a page range");
	t.snapctl[0] = 0xfffff000;
	t.snapctl[1] = 0x2000;
	expect_fail(ABI_FW_FAIL_FDT, "not a page range");
	t.snapctl[0] = 0x1000000;
	t.snapctl[1] = 0x1000;
	expect_fail(ABI_FW_FAIL_FDT, "overlaps RAM");
}
END_TEST

/* The UARTs the DSDT will list: in order, each with its port and IRQ;
 * refused without either, out of range, or beyond four. */
START_TEST(test_serial_nodes)
{
	defaults();
	ck_assert_uint_eq(read_tree(), 0);
	ck_assert_uint_eq(m.n_uart, 0);
	t.n_uart = 2;
	t.uart[0][0] = 0x3f8;
	t.uart[0][1] = 4;
	t.uart[1][0] = 0x2f8;
	t.uart[1][1] = 3;
	ck_assert_uint_eq(read_tree(), 0);
	ck_assert_uint_eq(m.n_uart, 2);
	ck_assert_uint_eq(m.uart[0].port, 0x3f8);
	ck_assert_uint_eq(m.uart[0].irq, 4);
	ck_assert_uint_eq(m.uart[1].port, 0x2f8);
	ck_assert_uint_eq(m.uart[1].irq, 3);
	t.uart_no_irq = true;
	expect_fail(ABI_FW_FAIL_FDT, "without");
	t.uart_no_irq = false;
	t.uart[1][1] = 2;
	expect_fail(ABI_FW_FAIL_FDT, "not an ISA IRQ");
	t.uart[1][1] = 16;
	expect_fail(ABI_FW_FAIL_FDT, "not an ISA IRQ");
	t.uart[1][1] = 3;
	t.uart[1][0] = 0x2fc;
	expect_fail(ABI_FW_FAIL_FDT, "not 8 ports");
	t.uart[1][0] = 0xd00;
	expect_fail(ABI_FW_FAIL_FDT, "not 8 ports");
	t.n_uart = 5;
	for (int i = 0; i < 5; i++) {
		t.uart[i][0] = 0x100 + 8 * (uint32_t)i;
		t.uart[i][1] = 4;
	}
	expect_fail(ABI_FW_FAIL_FDT, "more than 4");
}
END_TEST

START_TEST(test_too_many_cpus)
{
	defaults();
	t.cpus = MACHINE_MAX_CPUS;
	ck_assert_uint_eq(read_tree(), 0);
	ck_assert_uint_eq(m.n_cpus, MACHINE_MAX_CPUS);
	t.cpus = MACHINE_MAX_CPUS + 1;
	expect_fail(ABI_FW_FAIL_CPUS, "at most 255");
}
END_TEST

START_TEST(test_bad_option)
{
	defaults();
	t.options = "xen-bar-mtrr=wt";
	expect_fail(ABI_FW_FAIL_FDT, "xen-bar-mtrr");
	defaults();
	t.options = "xen-bar-mtrr=wbx";
	expect_fail(ABI_FW_FAIL_FDT, "xen-bar-mtrr");
	defaults();
	t.options = "noxen-bar-mtrr=uc";	/* another key: ignored */
	ck_assert_uint_eq(read_tree(), 0);
	ck_assert(m.xen_bar_wb);
}
END_TEST

START_TEST(test_garbage)
{
	defaults();
	build();
	memset(blob, 0xa5, 64);			/* header destroyed */
	if (setjmp(fail_jmp) == 0) {
		machine_read(&m, blob);
		ck_abort_msg("garbage accepted");
	}
	ck_assert_uint_eq(fail_reason, ABI_FW_FAIL_FDT);
	ck_assert_msg(strstr(fail_msg, "no valid device tree"), "%s",
		      fail_msg);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fw_machine");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_good);
	tcase_add_test(tc, test_snapctl);
	tcase_add_test(tc, test_serial_nodes);
	tcase_add_test(tc, test_high_ram_and_options);
	tcase_add_test(tc, test_missing_nodes);
	tcase_add_test(tc, test_bad_windows);
	tcase_add_test(tc, test_too_many_cpus);
	tcase_add_test(tc, test_bad_option);
	tcase_add_test(tc, test_garbage);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
