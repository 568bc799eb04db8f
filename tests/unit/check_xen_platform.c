// SPDX-License-Identifier: MIT
/* devices/xen_platform.c: identity and BARs of the 5853:0001 function, the
 * fixed-port unplug protocol (Xen docs/misc/hvm-emulated-unplug.pandoc),
 * the BAR0 bytes, the line-buffered log, and hostile port accesses. */
#include <check.h>

#include "tests/unit/unit.h"
#include <stdlib.h>
#include <string.h>

#include "devices/xen_platform.h"
#include "firmware/lib/le.h"

#define BDF	PCI_BDF(0, 3, 0)

static struct pci_bus *bus;
static struct xen_platform *xp;
static char lines[16][400];
static int nlines;

static void log_cb(void *ctx, const char *line)
{
	ck_assert_ptr_eq(ctx, &nlines);
	ck_assert_uint_lt(strlen(line), sizeof(lines[0]));
	if (nlines < 16)
		strcpy(lines[nlines], line);
	nlines++;
}

static void setup(void)
{
	struct pci_bus_config c = { .nbuses = 1 };
	struct xen_platform_config xc = { .log = log_cb, .log_ctx = &nlines };

	bus = pci_bus_create(&c);
	ck_assert_ptr_nonnull(bus);
	xp = xen_platform_create(bus, BDF, &xc);
	ck_assert_ptr_nonnull(xp);
	nlines = 0;
}

static void teardown(void)
{
	pci_bus_destroy(bus);
}

static uint32_t port_in(const struct bus_ops *ops, uint64_t off,
			unsigned int len)
{
	uint8_t d[8] = { 0 };

	ops->read(xp, off, d, len);
	return (uint32_t)le_get(d, len < 4 ? len : 4);
}

static void port_out(const struct bus_ops *ops, uint64_t off, uint32_t v,
		     unsigned int len)
{
	uint8_t d[4];

	le32_put(d, v);
	ops->write(xp, off, d, len);
}

#define LEG	(&xen_platform_legacy_ops)
#define BAR0	(&xen_platform_bar0_ops)

static void log_str(const char *s)
{
	while (*s)
		port_out(LEG, 2, (uint8_t)*s++, 1);
}

START_TEST(test_identity)
{
	struct pci_fn *fn = xen_platform_fn(xp);

	ck_assert_ptr_eq(pci_bus_get(bus, BDF), fn);
	ck_assert_uint_eq(pci_bus_cfg_read(bus, BDF, PCI_VENDOR_ID, 4),
			  0x00015853);
	ck_assert_uint_eq(pci_bus_cfg_read(bus, BDF, PCI_SUBSYSTEM_VENDOR_ID,
					   4), 0x00015853);
	ck_assert_uint_eq(pci_bus_cfg_read(bus, BDF, PCI_REVISION_ID, 4),
			  0xff800001);
	ck_assert_uint_eq(pci_bus_cfg_read(bus, BDF, PCI_INTERRUPT_PIN, 1), 1);
	ck_assert_uint_eq(pci_bus_cfg_read(bus, BDF, PCI_COMMAND, 4), 0);
	ck_assert_uint_eq(pci_bus_cfg_read(bus, BDF, PCI_CAPABILITY_LIST, 1),
			  0);
	ck_assert_uint_eq(pci_bus_cfg_read(bus, BDF, PCI_HEADER_TYPE, 1), 0);
	for (unsigned int r = PCI_BASE_ADDRESS_0; r <= PCI_ROM_ADDRESS; r += 4)
		pci_bus_cfg_write(bus, BDF, r, 0xffffffff, 4);
	ck_assert_uint_eq(pci_bus_cfg_read(bus, BDF, 0x10, 4), 0xffffff01);
	ck_assert_uint_eq(pci_bus_cfg_read(bus, BDF, 0x14, 4), 0xff000008);
	for (unsigned int r = 0x18; r <= PCI_CARDBUS_CIS; r += 4)
		ck_assert_uint_eq(pci_bus_cfg_read(bus, BDF, r, 4), 0);
	ck_assert_uint_eq(pci_bus_cfg_read(bus, BDF, PCI_ROM_ADDRESS, 4), 0);
	ck_assert_uint_eq(pci_bus_cfg_read(bus, BDF, PCI_SUBSYSTEM_ID, 2), 1);
	ck_assert_ptr_eq(fn->bars[0].desc.ops, BAR0);
	ck_assert_ptr_eq(fn->bars[0].desc.opaque, xp);
	ck_assert(fn->bars[1].desc.ram);
	ck_assert_ptr_null(fn->bars[1].desc.ops);
	ck_assert_uint_eq(fn->bars[1].desc.size, XEN_PLATFORM_BAR1_SIZE);
	ck_assert_ptr_null(xen_platform_create(bus, BDF, NULL)); /* taken */
}
END_TEST

START_TEST(test_unplug_handshake)
{
	struct xen_platform_stats st;

	ck_assert_uint_eq(port_in(LEG, 0, 2), XEN_PLATFORM_MAGIC);
	ck_assert_uint_eq(port_in(LEG, 2, 1), XEN_PLATFORM_PROTOCOL);
	port_out(LEG, 2, 3, 2);				/* product: Linux */
	port_out(LEG, 0, 0x12345678, 4);		/* build */
	ck_assert_uint_eq(port_in(LEG, 0, 2), XEN_PLATFORM_MAGIC);
	port_out(LEG, 0, XEN_UNPLUG_ALL_IDE_DISKS | XEN_UNPLUG_ALL_NICS, 2);
	xen_platform_get_stats(xp, &st);
	ck_assert_uint_eq(st.magic_reads, 2);
	ck_assert(st.product_set && st.product == 3);
	ck_assert(st.build_set && st.build == 0x12345678);
	ck_assert_uint_eq(st.unplug_mask, 3);
	ck_assert_uint_eq(st.unplug_writes, 1);
	port_out(LEG, 0, 0xfff8, 2);
	xen_platform_get_stats(xp, &st);
	ck_assert_uint_eq(st.unplug_mask, 0xfff8);
	ck_assert_uint_eq(st.unplug_writes, 2);
	ck_assert_int_eq(nlines, 0);
}
END_TEST

START_TEST(test_legacy_other)
{
	struct xen_platform_stats st;

	ck_assert_uint_eq(port_in(LEG, 0, 1), 0);		/* flags */
	port_out(LEG, 0, 0xff, 1);
	ck_assert_uint_eq(port_in(LEG, 0, 1), XEN_PFFLAG_ROM_LOCK);
	ck_assert_uint_eq(port_in(LEG, 0, 4), 0xffffffff);
	ck_assert_uint_eq(port_in(LEG, 1, 1), 0xff);
	ck_assert_uint_eq(port_in(LEG, 2, 2), 0xffff);
	for (unsigned int off = 3; off < 16; off++)
		ck_assert_uint_eq(port_in(LEG, off, 1), 0xff);
	/* Writes nobody defined change nothing. */
	port_out(LEG, 1, 0xff, 1);
	port_out(LEG, 2, 0xffffffff, 4);
	port_out(LEG, 4, 0x1, 2);
	port_out(LEG, 15, 0x1, 1);
	xen_platform_get_stats(xp, &st);
	ck_assert(!st.product_set && !st.build_set);
	ck_assert_uint_eq(st.unplug_writes, 0);
	ck_assert_uint_eq(st.flags, XEN_PFFLAG_ROM_LOCK);
	ck_assert_uint_eq(st.log_bytes, 0);
}
END_TEST

START_TEST(test_bar0)
{
	struct xen_platform_stats st;

	ck_assert_uint_eq(port_in(BAR0, 0, 1), 0);
	port_out(BAR0, 0, 0x03, 1);
	ck_assert_uint_eq(port_in(BAR0, 0, 1), 1);
	ck_assert_uint_eq(port_in(LEG, 0, 1), 1);	/* same flags */
	ck_assert_uint_eq(port_in(BAR0, 0, 4), 0xffffff01);
	ck_assert_uint_eq(port_in(BAR0, 0xff, 1), 0xff);
	port_out(BAR0, 4, 1, 4);			/* SUSE: outl(1, +4) */
	xen_platform_get_stats(xp, &st);
	ck_assert_uint_eq(st.unplug_mask, 3);
	port_out(BAR0, 8, 2, 1);			/* VMDP NICs */
	xen_platform_get_stats(xp, &st);
	ck_assert_uint_eq(st.unplug_mask, XEN_UNPLUG_ALL_NICS);
	port_out(BAR0, 8, 1, 1);
	xen_platform_get_stats(xp, &st);
	ck_assert_uint_eq(st.unplug_mask, XEN_UNPLUG_ALL_IDE_DISKS);
	ck_assert_uint_eq(st.unplug_writes, 3);
	port_out(BAR0, 4, 2, 1);
	port_out(BAR0, 8, 3, 1);
	xen_platform_get_stats(xp, &st);
	ck_assert_uint_eq(st.unplug_writes, 3);
}
END_TEST

START_TEST(test_log_lines)
{
	struct xen_platform_stats st;

	log_str("hello");
	ck_assert_int_eq(nlines, 0);			/* buffered */
	log_str(" world\r\n");
	ck_assert_int_eq(nlines, 1);
	ck_assert_str_eq(lines[0], "xen-platform: hello world");
	log_str("\n");
	ck_assert_str_eq(lines[1], "xen-platform: ");
	log_str("\x1b[2Jbell\a\xff\n");
	ck_assert_str_eq(lines[2], "xen-platform: .[2Jbell..");
	port_out(LEG, 2, 0, 1);				/* NUL */
	log_str("x\n");
	ck_assert_str_eq(lines[3], "xen-platform: .x");
	xen_platform_get_stats(xp, &st);
	ck_assert_uint_eq(st.log_lines, 4);
	ck_assert_uint_eq(st.log_bytes, 5 + 8 + 1 + 11 + 1 + 2);
}
END_TEST

START_TEST(test_log_long)
{
	char expect[XEN_PLATFORM_LOG_MAX + 1];

	for (int i = 0; i < 300; i++)
		port_out(LEG, 2, 'a' + i % 26, 1);
	ck_assert_int_eq(nlines, 1);
	for (int i = 0; i < XEN_PLATFORM_LOG_MAX; i++)
		expect[i] = (char)('a' + i % 26);
	expect[XEN_PLATFORM_LOG_MAX] = '\0';
	ck_assert_str_eq(lines[0] + strlen(XEN_PLATFORM_LOG_PREFIX), expect);
	ck_assert_int_eq(strncmp(lines[0], XEN_PLATFORM_LOG_PREFIX,
				 strlen(XEN_PLATFORM_LOG_PREFIX)), 0);
	log_str("\n");
	ck_assert_int_eq(nlines, 2);
	ck_assert_uint_eq(strlen(lines[1]),
			  strlen(XEN_PLATFORM_LOG_PREFIX) + 44);
	ck_assert_uint_eq(lines[1][strlen(XEN_PLATFORM_LOG_PREFIX)],
			  'a' + 256 % 26);
}
END_TEST

START_TEST(test_log_flush_on_destroy)
{
	log_str("partial");
	ck_assert_int_eq(nlines, 0);
	pci_bus_destroy(bus);
	ck_assert_int_eq(nlines, 1);
	ck_assert_str_eq(lines[0], "xen-platform: partial");
	bus = pci_bus_create(&(struct pci_bus_config){ .nbuses = 1 });
}
END_TEST

static uint64_t bar_addr[PCI_NUM_BARS];
static int bar_cb(struct pci_fn *fn, int bar, uint64_t old_addr,
		  uint64_t new_addr, bool enabled)
{
	ck_assert_ptr_eq(fn->bar_ctx, bar_addr);
	ck_assert_uint_eq(old_addr, bar_addr[bar]);
	bar_addr[bar] = enabled ? new_addr : PCI_BAR_UNMAPPED;
	return 0;
}

START_TEST(test_firmware_sequence)
{
	struct pci_fn *fn = xen_platform_fn(xp);

	for (int i = 0; i < PCI_NUM_BARS; i++)
		bar_addr[i] = PCI_BAR_UNMAPPED;
	pci_fn_set_bar_handler(fn, bar_cb, bar_addr);
	/* Size, assign, enable, as firmware does. */
	pci_bus_cfg_write(bus, BDF, 0x10, 0xffffffff, 4);
	pci_bus_cfg_write(bus, BDF, 0x14, 0xffffffff, 4);
	ck_assert_uint_eq(~(pci_bus_cfg_read(bus, BDF, 0x14, 4) & ~0xfu) + 1,
			  XEN_PLATFORM_BAR1_SIZE);
	pci_bus_cfg_write(bus, BDF, 0x10, 0xc100, 4);
	pci_bus_cfg_write(bus, BDF, 0x14, 0xc1000000, 4);
	ck_assert_uint_eq(bar_addr[0], PCI_BAR_UNMAPPED);
	pci_bus_cfg_write(bus, BDF, PCI_COMMAND,
			  PCI_COMMAND_IO | PCI_COMMAND_MEMORY, 2);
	ck_assert_uint_eq(bar_addr[0], 0xc100);
	ck_assert_uint_eq(bar_addr[1], 0xc1000000);
	pci_bus_cfg_write(bus, BDF, PCI_COMMAND, 0, 2);
	ck_assert_uint_eq(bar_addr[0], PCI_BAR_UNMAPPED);
	ck_assert_uint_eq(bar_addr[1], PCI_BAR_UNMAPPED);
}
END_TEST

START_TEST(test_hostile_ports)
{
	uint64_t r = 0x2545f4914f6cdd1dull;
	struct xen_platform_stats st;

	for (int i = 0; i < 100000; i++) {
		uint8_t d[8];
		const struct bus_ops *ops;
		uint32_t len;
		uint64_t off;

		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		ops = r & 1 ? LEG : BAR0;
		len = (uint32_t)(r >> 4) % 9;
		off = (r >> 8) % (ops == LEG ? 18 : 260);
		memcpy(d, &r, sizeof(d));
		if ((r >> 20) & 1)
			ops->write(xp, off, d, len);
		else
			ops->read(xp, off, d, len);
		if ((r >> 21) % 16 == 0)	/* log bytes often */
			port_out(LEG, 2, (uint8_t)(r >> 32), 1);
	}
	xen_platform_get_stats(xp, &st);
	ck_assert_uint_gt(st.log_lines, 16);
	ck_assert_uint_le(st.flags, 1);
	for (int i = 0; i < 16; i++)
		for (const char *p = lines[i]; *p; p++)
			ck_assert(*p >= 0x20 && *p < 0x7f);
	ck_assert_uint_eq(port_in(LEG, 0, 2), XEN_PLATFORM_MAGIC);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("xen_platform");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_add_test(core, test_identity);
	tcase_add_test(core, test_unplug_handshake);
	tcase_add_test(core, test_legacy_other);
	tcase_add_test(core, test_bar0);
	tcase_add_test(core, test_log_lines);
	tcase_add_test(core, test_log_long);
	tcase_add_test(core, test_log_flush_on_destroy);
	tcase_add_test(core, test_firmware_sequence);
	tcase_add_test(limits, test_hostile_ports);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	return unit_run(s);
}
