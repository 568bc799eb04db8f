// SPDX-License-Identifier: MIT
/* QEMU's pci-testdev as kvm-unit-tests' vmexit drives it: identity and
 * BARs, test selection through either BAR, the header, counting writes
 * (with and without data match), and the ioeventfd requests following
 * the BAR. */
#include "tests/unit/unit.h"
#include "devices/test/pci_testdev.h"

#include <sys/eventfd.h>

#define BDF	PCI_BDF(0, 4, 0)

static struct pci_bus *bus;
static struct pci_testdev *d;
static struct pci_fn *fn;
static struct pci_testdev_ioeventfd last;
static int assigned, calls;

static int on_ioeventfd(void *ctx, const struct pci_testdev_ioeventfd *e,
			bool assign)
{
	(void)ctx;
	last = *e;
	assigned += assign ? 1 : -1;
	calls++;
	return 0;
}

static void setup(void)
{
	struct pci_bus_config c = { .nbuses = 1 };
	struct pci_testdev_ops ops = { on_ioeventfd, NULL };

	bus = pci_bus_create(&c);
	d = pci_testdev_create(bus, BDF, &ops);
	ck_assert_ptr_nonnull(d);
	fn = pci_bus_get(bus, BDF);
	assigned = calls = 0;
}

static void teardown(void)
{
	pci_bus_destroy(bus);
}

static uint32_t bar_rd(int bar, uint64_t off, uint32_t len)
{
	uint32_t v = 0;

	fn->bars[bar].desc.ops->read(d, off, (uint8_t *)&v, len);
	return v;
}

static void bar_wr(int bar, uint64_t off, uint32_t v, uint32_t len)
{
	fn->bars[bar].desc.ops->write(d, off, (uint8_t *)&v, len);
}

START_TEST(identity)
{
	ck_assert_uint_eq(pci_fn_read(fn, 0, 4), 0x00051b36);
	ck_assert_int_eq(fn->bars[0].desc.kind, PCI_BAR_MEM32);
	ck_assert_uint_eq(fn->bars[0].desc.size, 0x1000);
	ck_assert_int_eq(fn->bars[1].desc.kind, PCI_BAR_IO);
	ck_assert_uint_eq(fn->bars[1].desc.size, 0x100);
	ck_assert_uint_eq(pci_fn_read(fn, PCI_INTERRUPT_PIN, 1), 0);
}
END_TEST

START_TEST(tests_and_counts)
{
	char name[32];

	ck_assert_uint_eq(bar_rd(0, 1, 1), 0);		/* nothing selected */
	bar_wr(0, 0, 0, 1);				/* mmio-no-eventfd */
	ck_assert_uint_eq(bar_rd(0, 1, 1), 1);		/* width */
	ck_assert_uint_eq(bar_rd(0, 4, 4), 0x800);	/* offset */
	ck_assert_uint_eq(bar_rd(0, 8, 4), PCI_TESTDEV_DATA);
	for (int i = 0; i < 16; i++)
		name[i] = (char)bar_rd(0, 16 + (uint64_t)i, 1);
	ck_assert(!memcmp(name, "mmio-no-eventfd", 16));
	for (int i = 0; i < 16; i++)
		bar_wr(0, 0x800, PCI_TESTDEV_DATA, 1);
	bar_wr(0, 0x800, 0x11, 1);			/* no match */
	bar_wr(0, 0x800, PCI_TESTDEV_DATA, 2);		/* wrong width */
	bar_wr(0, 0x801, PCI_TESTDEV_DATA, 1);		/* wrong place */
	ck_assert_uint_eq(bar_rd(0, 12, 4), 16);
	/* the wildcard test takes any value; the I/O BAR's tests */
	bar_wr(1, 0, 1, 1);				/* portio-wildcard */
	ck_assert_uint_eq(bar_rd(1, 4, 4), 0x84);
	ck_assert_uint_eq(bar_rd(1, 8, 4), PCI_TESTDEV_NOMATCH);
	ck_assert_int_eq(calls, 0);	/* the I/O BAR decodes nowhere yet */
	bar_wr(1, 3, 0, 1);		/* no such test: none selected */
	bar_wr(1, 0, 7, 1);
	ck_assert_uint_eq(bar_rd(1, 1, 1), 0);
	/* past the header and name: 0 */
	bar_wr(0, 0, 2, 1);
	ck_assert_uint_eq(bar_rd(0, 0x400, 4), 0);
}
END_TEST

START_TEST(eventfds_follow_the_bar)
{
	pci_testdev_bar_moved(d, 0, true, 0xc0000000);
	bar_wr(0, 0, 2, 1);				/* datamatch */
	ck_assert_int_eq(assigned, 1);
	ck_assert(!last.pio);
	ck_assert_uint_eq(last.addr, 0xc0000802);
	ck_assert(last.datamatch);
	ck_assert_uint_eq(last.data, PCI_TESTDEV_DATA);
	ck_assert_uint_eq(last.len, 1);
	/* the BAR moves: off at the old place, on at the new one */
	pci_testdev_bar_moved(d, 0, true, 0xc0010000);
	ck_assert_int_eq(assigned, 1);
	ck_assert_uint_eq(last.addr, 0xc0010802);
	pci_testdev_bar_moved(d, 0, false, 0);
	ck_assert_int_eq(assigned, 0);
	ck_assert_uint_eq(last.addr, 0xc0010802);
	/* another test: the no-eventfd one asks nothing */
	pci_testdev_bar_moved(d, 1, true, 0xc100);
	bar_wr(1, 0, 0, 1);
	ck_assert_int_eq(assigned, 0);
	bar_wr(1, 0, 1, 1);				/* portio-wildcard */
	ck_assert_int_eq(assigned, 1);
	ck_assert(last.pio && !last.datamatch);
	ck_assert_uint_eq(last.addr, 0xc184);
	bar_wr(0, 0, 9, 1);		/* selecting anything stops it */
	ck_assert_int_eq(assigned, 0);
	/* a pending eventfd count is drained by reading the header */
	bar_wr(1, 0, 1, 1);
	ck_assert(eventfd_write(last.fd, 1) == 0);
	bar_rd(1, 12, 4);
	{
		eventfd_t v;

		ck_assert_int_lt(eventfd_read(last.fd, &v), 0);
	}
}
END_TEST

/* No VMM relays BAR moves: the config-space model tells the device
 * (pci_fn.bar_moved) as the guest programs the BAR and COMMAND. */
START_TEST(the_function_reports_its_bars)
{
	pci_fn_write(fn, PCI_BASE_ADDRESS_0, 0xc0020000, 4);
	bar_wr(0, 0, 2, 1);				/* datamatch */
	ck_assert_int_eq(calls, 0);			/* decode is off */
	pci_fn_write(fn, PCI_COMMAND, PCI_COMMAND_MEMORY, 2);
	ck_assert_int_eq(assigned, 1);
	ck_assert_uint_eq(last.addr, 0xc0020802);
	pci_fn_write(fn, PCI_BASE_ADDRESS_0, 0xc0030000, 4);
	ck_assert_int_eq(assigned, 1);
	ck_assert_uint_eq(last.addr, 0xc0030802);
	pci_fn_write(fn, PCI_COMMAND, 0, 2);
	ck_assert_int_eq(assigned, 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("pci_testdev");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, identity);
	tcase_add_test(tc, tests_and_counts);
	tcase_add_test(tc, eventfds_follow_the_bar);
	tcase_add_test(tc, the_function_reports_its_bars);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
