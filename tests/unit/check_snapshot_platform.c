// SPDX-License-Identifier: MIT
/* Snapshot state of the platform devices: the CMOS RTC, fw_cfg,
 * pc-testdev and pci-testdev.  Each round trip goes from one device into
 * a fresh one, which must then answer the guest as the first did; states
 * a device cannot be in are refused with nothing changed. */
#include "tests/unit/unit.h"
#include "devices/fw_cfg.h"
#include "devices/test/pc_testdev.h"
#include "devices/test/pci_testdev.h"
#include "devices/rtc.h"

static uint64_t fake_ns;

static uint64_t fake_now(void)
{
	return fake_ns;
}

static uint8_t cmos_rd(struct rtc *r, uint8_t reg)
{
	uint8_t v;

	rtc_ops.write(r, 0, &reg, 1);
	rtc_ops.read(r, 1, &v, 1);
	return v;
}

static void cmos_wr(struct rtc *r, uint8_t reg, uint8_t v)
{
	rtc_ops.write(r, 0, &reg, 1);
	rtc_ops.write(r, 1, &v, 1);
}

static int changed_calls;

static void on_changed(void *ctx)
{
	(void)ctx;
	changed_calls++;
}

START_TEST(rtc_state)
{
	struct rtc a, b;
	struct rtc_state s, t;
	uint8_t idx = 0x40, v;

	fake_ns = 1764547200ull * 1000000000ull;	/* 2025-12-01 */
	rtc_init(&a, fake_now, NULL, NULL, NULL);
	cmos_wr(&a, 0x0b, 0x82);			/* SET */
	cmos_wr(&a, 0x09, 0x42);			/* 2042 */
	cmos_wr(&a, 0x0b, 0x12);			/* UIE, 24 h */
	cmos_wr(&a, 0x40, 0x5c);
	rtc_ops.write(&a, 0, &idx, 1);
	rtc_get_state(&a, &s);

	fake_ns += 3600ull * 1000000000ull;	/* an hour on disk */
	rtc_init(&b, fake_now, NULL, on_changed, NULL);
	changed_calls = 0;
	ck_assert_int_eq(rtc_set_state(&b, &s), 0);
	ck_assert_int_eq(changed_calls, 1);
	rtc_ops.read(&b, 1, &v, 1);		/* the index came along */
	ck_assert_uint_eq(v, 0x5c);
	ck_assert_uint_eq(cmos_rd(&b, 0x09), 0x42);
	ck_assert_uint_eq(cmos_rd(&b, 0x0b), 0x12);
	/* The hour on disk passed for the clock (a battery clock), and an
	 * update ended meanwhile: UF is latched. */
	ck_assert_uint_eq(cmos_rd(&b, 0x0c) & RTC_C_UF, RTC_C_UF);

	t = s;
	t.reserved[3] = 1;
	ck_assert_int_eq(rtc_set_state(&b, &t), -1);
	t = s;
	t.cmos[RTC_REG_A] |= RTC_A_UIP;
	ck_assert_int_eq(rtc_set_state(&b, &t), -1);
	t = s;
	t.offset_s = INT64_MAX;
	ck_assert_int_eq(rtc_set_state(&b, &t), -1);
	ck_assert_uint_eq(cmos_rd(&b, 0x40), 0x5c);	/* unchanged */
	rtc_destroy(&a);
	rtc_destroy(&b);
}
END_TEST

START_TEST(fw_cfg_state)
{
	struct fw_cfg a, b;
	struct fw_cfg_state s, t;
	uint8_t sel[2] = { FW_CFG_SIGNATURE, 0 }, v[2];

	fw_cfg_init(&a, 256ull << 20, 2);
	fw_cfg_init(&b, 256ull << 20, 2);
	fw_cfg_ops.write(&a, 0, sel, 2);
	fw_cfg_ops.read(&a, 1, v, 2);
	ck_assert_int_eq(memcmp(v, "QE", 2), 0);
	fw_cfg_get_state(&a, &s);
	ck_assert_int_eq(fw_cfg_set_state(&b, &s), 0);
	fw_cfg_ops.read(&b, 1, v, 2);
	ck_assert_int_eq(memcmp(v, "MU", 2), 0);
	t = s;
	t.offset = FW_CFG_ITEM_MAX + 1;
	ck_assert_int_eq(fw_cfg_set_state(&b, &t), -1);
	t = s;
	t.reserved = 1;
	ck_assert_int_eq(fw_cfg_set_state(&b, &t), -1);
	fw_cfg_destroy(&a);
	fw_cfg_destroy(&b);
}
END_TEST

static uint32_t raised;

static void line(void *ctx, uint32_t n, int level)
{
	(void)ctx;
	if (level)
		raised |= 1u << n;
	else
		raised &= ~(1u << n);
}

START_TEST(pc_testdev_state)
{
	static struct pc_testdev a, b;
	static struct pc_testdev_state s;
	uint8_t one = 1, zero = 0;
	uint32_t scratch = 0xc0ffee11, v, mem = 0x600dcafe;

	pc_testdev_init(&a, line, NULL, NULL);
	pc_testdev_init(&b, line, NULL, NULL);
	pc_testdev_port_ops.write(&a, 0, (uint8_t *)&scratch, 4);
	pc_testdev_iomem_ops.write(&a, 0x100, (uint8_t *)&mem, 4);
	pc_testdev_irq_ops.write(&a, 10, &one, 1);
	pc_testdev_irq_ops.write(&a, 11, &one, 1);
	pc_testdev_irq_ops.write(&a, 11, &zero, 1);
	pc_testdev_get_state(&a, &s);
	ck_assert_uint_eq(s.levels, 1u << 10);

	raised = 0;			/* a fresh interrupt controller */
	ck_assert_int_eq(pc_testdev_set_state(&b, &s), 0);
	ck_assert_uint_eq(raised, 1u << 10);	/* asserted again */
	pc_testdev_port_ops.read(&b, 8, (uint8_t *)&v, 4);
	ck_assert_uint_eq(v, scratch);
	pc_testdev_iomem_ops.read(&b, 0x100, (uint8_t *)&v, 4);
	ck_assert_uint_eq(v, mem);
	s.levels = 1u << PC_TESTDEV_IRQ_LINES;
	ck_assert_int_eq(pc_testdev_set_state(&b, &s), -1);
	pc_testdev_destroy(&a);
	pc_testdev_destroy(&b);
}
END_TEST

/* pci-testdev: each function on its own bus, BAR 0 placed by hand. */
struct io_log {
	int assigned;
	uint64_t addr;
};

static int on_ioeventfd(void *ctx, const struct pci_testdev_ioeventfd *e,
			bool assign)
{
	struct io_log *l = ctx;

	l->assigned += assign ? 1 : -1;
	if (assign)
		l->addr = e->addr;
	return 0;
}

static uint32_t bar_rd(struct pci_fn *fn, uint64_t off)
{
	uint32_t v = 0;

	fn->bars[0].desc.ops->read(fn->bars[0].desc.opaque, off, (uint8_t *)&v,
				   4);
	return v;
}

static void bar_wr8(struct pci_fn *fn, uint64_t off, uint8_t v)
{
	fn->bars[0].desc.ops->write(fn->bars[0].desc.opaque, off, &v, 1);
}

START_TEST(pci_testdev_state)
{
	struct pci_bus_config conf = { .nbuses = 1 };
	struct pci_bus *ba = pci_bus_create(&conf), *bb = pci_bus_create(&conf);
	struct io_log la = { 0 }, lb = { 0 };
	struct pci_testdev_ops oa = { on_ioeventfd, &la }, ob = { on_ioeventfd,
								   &lb };
	struct pci_testdev *a = pci_testdev_create(ba, 0x20, &oa);
	struct pci_testdev *b = pci_testdev_create(bb, 0x20, &ob);
	struct pci_fn *fa = pci_bus_get(ba, 0x20), *fb = pci_bus_get(bb, 0x20);
	struct pci_testdev_state s, t;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	pci_testdev_bar_moved(a, 0, true, 0xc0000000);
	bar_wr8(fa, 0, 0);				/* test 0 */
	for (int i = 0; i < 5; i++)
		bar_wr8(fa, 0x800, PCI_TESTDEV_DATA);
	bar_wr8(fa, 0, 1);				/* wildcard eventfd */
	ck_assert_int_eq(la.assigned, 1);
	pci_testdev_get_state(a, &s);
	ck_assert_int_eq(s.current, 1);
	ck_assert_uint_eq(s.count[0], 5);

	/* As a restore does: the PCI function's section first (BAR 0
	 * decodes at its new place), then this one arms the test there. */
	pci_testdev_bar_moved(b, 0, true, 0xc1000000);
	ck_assert_int_eq(lb.assigned, 0);
	ck_assert_int_eq(pci_testdev_set_state(b, &s), 0);
	ck_assert_int_eq(lb.assigned, 1);
	ck_assert_uint_eq(lb.addr, 0xc1000000 + 0x801);
	bar_wr8(fb, 0, 0);
	ck_assert_int_eq(lb.assigned, 0);
	ck_assert_uint_eq(bar_rd(fb, 12), 5);
	t = s;
	t.current = 6;
	ck_assert_int_eq(pci_testdev_set_state(b, &t), -1);
	t.current = -2;
	ck_assert_int_eq(pci_testdev_set_state(b, &t), -1);
	pci_bus_destroy(ba);
	pci_bus_destroy(bb);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("snapshot_platform");
	TCase *t = tcase_create("state");

	tcase_add_test(t, rtc_state);
	tcase_add_test(t, fw_cfg_state);
	tcase_add_test(t, pc_testdev_state);
	tcase_add_test(t, pci_testdev_state);
	suite_add_tcase(s, t);
	return unit_run(s);
}
