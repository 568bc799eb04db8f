// SPDX-License-Identifier: MIT
/* fw_cfg (legacy I/O, the kvm-unit-tests' way: a 16-bit selector write,
 * byte reads) and QEMU's pc-testdev: scratch register widths, page
 * flushes, interrupt lines, the MMIO buffer. */
#include "tests/unit/unit.h"
#include "devices/fw_cfg.h"
#include "devices/test/pc_testdev.h"

static struct fw_cfg F;

static void sel(uint16_t key)
{
	uint8_t b[2] = { (uint8_t)key, (uint8_t)(key >> 8) };

	fw_cfg_ops.write(&F, 0, b, 2);
}

/* n bytes, one read each, little-endian as the suite assembles them. */
static uint64_t get(unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++) {
		uint8_t b = 0x55;

		fw_cfg_ops.read(&F, 1, &b, 1);
		v |= (uint64_t)b << 8 * i;
	}
	return v;
}

START_TEST(items)
{
	fw_cfg_init(&F, 3ull << 30, 7);
	sel(FW_CFG_SIGNATURE);
	ck_assert_uint_eq(get(4), 0x554d4551);		/* "QEMU" */
	ck_assert_uint_eq(get(4), 0);			/* past the end */
	sel(FW_CFG_ID);
	ck_assert_uint_eq(get(4), 1);
	sel(FW_CFG_RAM_SIZE);
	ck_assert_uint_eq(get(8), 3ull << 30);
	sel(FW_CFG_NB_CPUS);
	ck_assert_uint_eq(get(2), 7);
	sel(FW_CFG_NB_CPUS);				/* selecting rewinds */
	ck_assert_uint_eq(get(2), 7);
	sel(FW_CFG_MAX_CPUS);
	ck_assert_uint_eq(get(2), 7);
	sel(0x11);		/* the suite's "MAX_RAM": 0, no limit */
	ck_assert_uint_eq(get(8), 0);
	sel(FW_CFG_FILE_DIR);
	ck_assert_uint_eq(get(4), 0);
	sel(0x8000 | FW_CFG_RAM_SIZE);			/* arch-specific */
	ck_assert_uint_eq(get(8), 0);
	fw_cfg_destroy(&F);
}
END_TEST

START_TEST(odd_accesses)
{
	uint8_t b[4] = { FW_CFG_NB_CPUS, 0, 0, 0 };
	uint32_t w = 0;

	fw_cfg_init(&F, 1 << 20, 2);
	sel(FW_CFG_RAM_SIZE);
	fw_cfg_ops.write(&F, 0, b, 1);		/* 8-bit: not a selection */
	fw_cfg_ops.write(&F, 0, b, 4);		/* 32-bit: neither */
	fw_cfg_ops.write(&F, 1, b, 1);		/* data writes: ignored */
	ck_assert_uint_eq(get(3), 1 << 20);
	fw_cfg_ops.read(&F, 0, (uint8_t *)&w, 2);	/* the selector */
	ck_assert_uint_eq(w, 0xffff);
	sel(FW_CFG_SIGNATURE);
	fw_cfg_ops.read(&F, 1, (uint8_t *)&w, 4);	/* wider reads stream */
	ck_assert_uint_eq(w, 0x554d4551);
	for (int i = 0; i < 100; i++)
		get(8);				/* long past the end */
	ck_assert_uint_eq(get(1), 0);
	fw_cfg_destroy(&F);
}
END_TEST

/* ---- pc-testdev -------------------------------------------------------- */

static struct pc_testdev D;
static uint32_t lines[PC_TESTDEV_IRQ_LINES + 1];
static int line_calls;
static uint64_t flushed;
static int flushes;

static void on_line(void *ctx, uint32_t line, int level)
{
	(void)ctx;
	ck_assert_uint_lt(line, PC_TESTDEV_IRQ_LINES);
	lines[line] = (uint32_t)level;
	line_calls++;
}

static void on_flush(void *ctx, uint64_t gpa)
{
	(void)ctx;
	flushed = gpa;
	flushes++;
}

static uint32_t rd(uint64_t off, uint32_t len)
{
	uint32_t v = 0;

	pc_testdev_port_ops.read(&D, off, (uint8_t *)&v, len);
	return v;
}

static void wr(const struct bus_ops *ops, uint64_t off, uint32_t v,
	       uint32_t len)
{
	ops->write(&D, off, (uint8_t *)&v, len);
}

START_TEST(scratch)
{
	pc_testdev_init(&D, on_line, on_flush, NULL);
	wr(&pc_testdev_port_ops, 0, 0x11223344, 4);
	ck_assert_uint_eq(rd(0, 4), 0x11223344);
	wr(&pc_testdev_port_ops, 1, 0xaa, 1);
	ck_assert_uint_eq(rd(0, 4), 0x1122aa44);
	wr(&pc_testdev_port_ops, 2, 0xbbcc, 2);
	ck_assert_uint_eq(rd(0, 4), 0xbbccaa44);
	ck_assert_uint_eq(rd(3, 1), 0xbb);
	ck_assert_uint_eq(rd(0, 2), 0xaa44);
	/* 0xe8-0xeb alias the register byte by byte */
	ck_assert_uint_eq(rd(8, 1), 0x44);
	wr(&pc_testdev_port_ops, 9, 0x99, 1);
	ck_assert_uint_eq(rd(1, 1), 0x99);
	/* the flush port is not the register */
	ck_assert_uint_eq(rd(4, 1), 0xff);
	pc_testdev_destroy(&D);
}
END_TEST

START_TEST(flush_and_lines)
{
	pc_testdev_init(&D, on_line, on_flush, NULL);
	flushes = 0;
	wr(&pc_testdev_port_ops, 4, 0x12345678, 4);
	ck_assert_int_eq(flushes, 1);
	ck_assert_uint_eq(flushed, 0x12345000);
	wr(&pc_testdev_port_ops, 4, 0x1000, 2);		/* dword only */
	ck_assert_int_eq(flushes, 1);
	line_calls = 0;
	wr(&pc_testdev_irq_ops, 0x0e, 5, 1);
	ck_assert_uint_eq(lines[0x0e], 1);
	wr(&pc_testdev_irq_ops, 0x0e, 0, 1);
	ck_assert_uint_eq(lines[0x0e], 0);
	wr(&pc_testdev_irq_ops, 0x0b, 1, 4);		/* wider: ignored */
	wr(&pc_testdev_irq_ops, 24, 1, 1);		/* no such line */
	ck_assert_int_eq(line_calls, 2);
	pc_testdev_destroy(&D);
}
END_TEST

START_TEST(iomem)
{
	uint64_t v = 0;

	pc_testdev_init(&D, NULL, NULL, NULL);
	wr(&pc_testdev_iomem_ops, 0x100, 0xdeadbeef, 4);
	pc_testdev_iomem_ops.read(&D, 0x100, (uint8_t *)&v, 8);
	ck_assert_uint_eq(v, 0xdeadbeef);
	/* out of range: no access (the bus clips; this is the backstop) */
	pc_testdev_iomem_ops.read(&D, PC_TESTDEV_IOMEM_LEN - 2,
				  (uint8_t *)&v, 4);
	wr(&pc_testdev_iomem_ops, PC_TESTDEV_IOMEM_LEN, 1, 4);
	wr(&pc_testdev_irq_ops, 0, 1, 1);		/* no callback: fine */
	wr(&pc_testdev_port_ops, 4, 0x1000, 4);
	pc_testdev_destroy(&D);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("fw_cfg");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, items);
	tcase_add_test(tc, odd_accesses);
	tcase_add_test(tc, scratch);
	tcase_add_test(tc, flush_and_lines);
	tcase_add_test(tc, iomem);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
