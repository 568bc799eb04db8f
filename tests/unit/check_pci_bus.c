// SPDX-License-Identifier: MIT
/* devices/pci/bus.c and devices/pci/host_bridge.c: CF8/CFC and ECAM decoding, absent
 * and multi-function devices, the host bridge, PIO/ECAM equivalence, and a
 * hostile random sequence checked against invariants and a VMM shadow. */
#include <check.h>

#include "tests/unit/unit.h"
#include <stdlib.h>
#include <string.h>

#include "devices/pci/bus.h"
#include "devices/xen_platform.h"

#define EQ(a, b)	ck_assert_uint_eq(a, b)

/* Shadow of what a VMM would have mapped, fed by bar_changed; indexed by
 * bdf (buses 0-1), storing ~addr so that zeroed memory means unmapped. */
struct shadow {
	uint64_t naddr[512][PCI_NUM_BARS];
	int fail_every;			/* fail every Nth map; 0: never */
	unsigned long maps, events;
	uint64_t hash;			/* of the whole event sequence */
};

static int shadow_cb(struct pci_fn *fn, int bar, uint64_t old_addr,
		     uint64_t new_addr, bool enabled)
{
	struct shadow *sh = fn->bar_ctx;
	uint64_t *slot = &sh->naddr[fn->bdf][bar];
	bool fail = false;

	EQ(old_addr, ~*slot);
	sh->hash = (sh->hash * 31 + (fn->bdf << 8 | (unsigned int)bar)) * 31;
	sh->hash = (sh->hash + old_addr) * 31 + (new_addr ^ enabled);
	sh->events++;
	if (enabled)
		fail = sh->fail_every && ++sh->maps % sh->fail_every == 0;
	*slot = enabled && !fail ? ~new_addr : 0;
	return fail ? -1 : 0;
}

static void test_fn_release(struct pci_fn *fn)
{
	free(fn);
}

/* A function with an I/O, a 32-bit and a 64-bit prefetchable BAR. */
static struct pci_fn *add_test_fn(struct pci_bus *bus, uint32_t bdf)
{
	const struct pci_fn_id id = { .vendor = 0x1234, .device = 0x11,
				      .class_code = 0x020000, .irq_pin = 1 };
	const struct pci_bar_desc d[3] = {
		{ .kind = PCI_BAR_IO, .size = 64 },
		{ .kind = PCI_BAR_MEM32, .size = 4096 },
		{ .kind = PCI_BAR_MEM64, .size = 1 << 20, .prefetch = true },
	};
	struct pci_fn *fn = calloc(1, sizeof(*fn));

	ck_assert_int_eq(pci_fn_init(fn, pci_bus_alloc_page(bus), &id, "t"), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(pci_fn_add_bar(fn, i, &d[i]), 0);
	ck_assert_int_ge(pci_fn_add_cap(fn, PCI_CAP_ID_VNDR, 8), 0);
	fn->release = test_fn_release;
	ck_assert_int_eq(pci_bus_add_function(bus, bdf, fn), 0);
	return fn;
}

static const uint32_t bdfs[] = {
	PCI_BDF(0, 0, 0), PCI_BDF(0, 2, 0), PCI_BDF(0, 2, 3), PCI_BDF(0, 3, 0),
	PCI_BDF(1, 0, 0), PCI_BDF(0, 2, 1), PCI_BDF(0, 31, 7), PCI_BDF(1, 5, 0),
	PCI_BDF(2, 0, 0), PCI_BDF(255, 31, 7),
};
#define NBDFS	(sizeof(bdfs) / sizeof(bdfs[0]))	/* first 5 present */

static struct pci_bus *mkbus(struct shadow *sh, bool no_ext)
{
	struct pci_bus_config c = { .nbuses = 2, .cf8_no_ext_reg = no_ext,
				    .bar_changed = sh ? shadow_cb : NULL,
				    .bar_ctx = sh };
	struct pci_bus *bus = pci_bus_create(&c);

	ck_assert_ptr_nonnull(bus);
	ck_assert_ptr_nonnull(pci_host_bridge_create(bus));
	add_test_fn(bus, bdfs[1]);
	add_test_fn(bus, bdfs[2]);
	ck_assert_ptr_nonnull(xen_platform_create(bus, bdfs[3], NULL));
	add_test_fn(bus, bdfs[4]);
	return bus;
}

static struct pci_bus *bus;	/* the "core" fixture */
static void setup(void)
{
	bus = mkbus(NULL, false);
}

static void teardown(void)
{
	pci_bus_destroy(bus);
}

/* Host byte order is little-endian (x86 only), as the guest's. */
static uint64_t acc(const struct bus_ops *ops, struct pci_bus *bus,
		    uint64_t off, uint64_t v, unsigned int len, bool w)
{
	uint8_t d[8];

	memcpy(d, &v, 8);
	if (w)
		ops->write(bus, off, d, len);
	else
		ops->read(bus, off, d, len);
	memcpy(&v, d, 8);
	return len >= 8 ? v : v & ((1ull << 8 * len) - 1);
}
#define in(b, port, len) \
	(uint32_t)acc(&pci_bus_pio_ops, b, (port) - PCI_CONF1_ADDR_PORT, 0, \
		      len, 0)
#define out(b, port, v, len) \
	acc(&pci_bus_pio_ops, b, (port) - PCI_CONF1_ADDR_PORT, v, len, \
	    true)
#define ecam_rd(b, off, len)	acc(&pci_bus_ecam_ops, b, off, 0, len, false)
#define ecam_wr(b, off, v, len)	acc(&pci_bus_ecam_ops, b, off, v, len, true)
#define eoff(bdf, reg)		((uint64_t)(bdf) << 12 | (reg))

static uint32_t cf8(struct pci_bus *b, uint32_t bdf, unsigned int reg,
		    uint32_t v, unsigned int len, bool w)
{
	out(b, 0xcf8, PCI_CONF1_ADDRESS(PCI_BDF_BUS(bdf), bdf & 0xff, reg), 4);
	return (uint32_t)acc(&pci_bus_pio_ops, b, 4 + (reg & 3), v, len, w);
}
#define cf8_rd(b, bdf, reg, len)	cf8(b, bdf, reg, 0, len, false)
#define cf8_wr(b, bdf, reg, v, len)	cf8(b, bdf, reg, v, len, true)

static uint64_t rnd(void)
{
	static uint64_t x = 0x9e3779b97f4a7c15ull;	/* fixed seed */

	x ^= x << 13, x ^= x >> 7, x ^= x << 17;
	return x;
}

static unsigned int other[4];	/* calls, off, len, value written */
static void cf8_other(void *ctx, unsigned int off, uint8_t *data,
		      uint32_t len, bool is_write)
{
	ck_assert_ptr_eq(ctx, other);
	other[0]++, other[1] = off, other[2] = len;
	if (is_write)
		other[3] = data[0];
	else
		data[0] = 0x42;
}

START_TEST(test_create_limits)
{
	struct pci_bus_config c = { .nbuses = 0, .cf8_other = cf8_other,
				    .cf8_other_ctx = other };
	static const unsigned int want[4] = { 1, 1, 1, 0x06 };
	struct pci_bus *bus;
	struct pci_fn fn = { 0 };

	ck_assert_ptr_null(pci_bus_create(NULL));
	ck_assert_ptr_null(pci_bus_create(&c));
	c.nbuses = 257;
	ck_assert_ptr_null(pci_bus_create(&c));
	c.nbuses = 256;
	bus = pci_bus_create(&c);
	ck_assert_ptr_nonnull(bus);
	EQ(pci_bus_ecam_size(bus), 256ull << 20);
	ck_assert_int_eq(pci_bus_add_function(bus, 0, &fn), -1); /* no cfg */
	ck_assert_ptr_nonnull(pci_host_bridge_create(bus));
	ck_assert_ptr_null(pci_host_bridge_create(bus));	/* taken */
	add_test_fn(bus, PCI_BDF(255, 31, 7));
	fn.cfg = pci_bus_alloc_page(bus);
	ck_assert_int_eq(pci_bus_add_function(bus, 0x10000, &fn), -1);
	ck_assert_int_eq(pci_bus_add_function(bus, 0, &fn), -1);
	pci_bus_free_page(bus, fn.cfg);
	ck_assert_ptr_null(pci_bus_get(bus, 0x10000));
	ck_assert_ptr_nonnull(pci_bus_get(bus, PCI_BDF(255, 31, 7)));
	EQ(ecam_rd(bus, eoff(PCI_BDF(255, 31, 7), 0), 2), 0x1234);
	/* Non-dword accesses to 0xcf8-0xcfb go to the cf8_other hook. */
	out(bus, 0xcf9, 0x06, 1);			/* reset control */
	ck_assert_mem_eq(other, want, sizeof(want));
	EQ(in(bus, 0xcf9, 1), 0x42);
	out(bus, 0xcfa, 0, 4);		/* clipped to the two bytes left */
	EQ(other[2], 2);
	EQ(in(bus, 0xcf8, 4), 0);
	EQ(other[0], 3);
	pci_bus_destroy(bus);
}
END_TEST

/* CF8 bits 1:0 are ORed into the register (as in QEMU): the device ID
 * with CF8 = ... | 2 and a 16-bit CFC read, the kvm-unit-tests' way. */
START_TEST(test_cf8_low_bits)
{
	struct pci_fn *fn = pci_bus_get(bus, bdfs[1]);
	uint16_t dev;

	memcpy(&dev, fn->cfg + PCI_DEVICE_ID, 2);
	out(bus, 0xcf8, PCI_CONF1_ADDRESS(PCI_BDF_BUS(bdfs[1]),
					  bdfs[1] & 0xff, 0) | 2, 4);
	EQ(in(bus, 0xcfc, 2), dev);
	EQ(in(bus, 0xcf8, 4) & 3, 2);
	/* the byte lane of the port and bits 1:0 combine */
	out(bus, 0xcf8, PCI_CONF1_ADDRESS(PCI_BDF_BUS(bdfs[1]),
					  bdfs[1] & 0xff, 0) | 1, 4);
	EQ(in(bus, 0xcfe, 1), fn->cfg[3]);
	EQ(in(bus, 0xcfc, 1), fn->cfg[1]);
}
END_TEST

START_TEST(test_cf8_register)
{
	struct pci_bus *nx = mkbus(NULL, true);
	struct pci_fn *fn = pci_bus_get(bus, bdfs[1]);
	uint8_t before[PCI_CFG_SIZE];

	out(bus, 0xcf8, 0x80000000, 4);		/* Linux's conf1 probe */
	EQ(in(bus, 0xcf8, 4), 0x80000000);
	out(bus, 0xcfb, 0x01, 1);		/* not the address register */
	EQ(in(bus, 0xcf8, 4), 0x80000000);
	EQ(in(bus, 0xcf8, 1), 0xff);
	EQ(in(bus, 0xcfa, 2), 0xffff);
	out(bus, 0xcf8, 0xffffffff, 4);
	EQ(in(bus, 0xcf8, 4), 0x8fffffff);
	out(nx, 0xcf8, 0xffffffff, 4);
	EQ(in(nx, 0xcf8, 4), 0x80ffffff);
	pci_bus_destroy(nx);
	/* Enable bit clear: the data window reads all-ones, drops writes. */
	out(bus, 0xcf8, 0x7ffffffc, 4);
	EQ(in(bus, 0xcf8, 4), 0x0ffffffc);
	memcpy(before, fn->cfg, PCI_CFG_SIZE);
	out(bus, 0xcf8, PCI_CONF1_ADDRESS(0, 16, 0x3c) & ~PCI_CONF1_ENABLE, 4);
	for (unsigned int off = 0; off < 4; off++) {
		EQ(in(bus, 0xcfc + off, 1), 0xff);
		out(bus, 0xcfc + off, 0x55, 1);
	}
	EQ(in(bus, 0xcfc, 4), 0xffffffff);
	EQ(in(bus, 0xcfe, 2), 0xffff);
	out(bus, 0xcfc, 0x12345678, 4);
	ck_assert_mem_eq(fn->cfg, before, PCI_CFG_SIZE);
}
END_TEST


START_TEST(test_cfc_decode)
{
	static const unsigned int regs[] = { 0, 0x04, 0x08, 0x0c, 0x3c, 0x40 };

	/* Every function, register, window offset and width. */
	for (unsigned int i = 0; i < 5 * 6 * 4 * 3; i++) {
		unsigned int b = i / 72, reg = regs[i / 12 % 6] + i / 3 % 4;
		unsigned int len = 1u << (i % 3);

		if ((reg & 3) + len <= 4)
			EQ(cf8_rd(bus, bdfs[b], reg, len),
					  pci_fn_read(pci_bus_get(bus, bdfs[b]),
						      reg, len));
	}
	/* Writes at every window offset. */
	cf8_wr(bus, bdfs[1], PCI_INTERRUPT_LINE, 0x0a, 1);
	cf8_wr(bus, bdfs[1], PCI_CACHE_LINE_SIZE, 0x1020, 2);
	cf8_wr(bus, bdfs[1], PCI_COMMAND, 0x0003, 2);
	cf8_wr(bus, bdfs[1], 0x11, 0xc2, 1);		/* BAR0 byte 1 */
	cf8_wr(bus, bdfs[1], 0x16, 0xc100, 2);		/* BAR1 high word */
	cf8_wr(bus, bdfs[1], 0x1b, 0x80, 1);		/* BAR2 byte 3 */
	EQ(ecam_rd(bus, eoff(bdfs[1], 0x3c), 4), 0x0000010a);
	EQ(ecam_rd(bus, eoff(bdfs[1], 0x0c), 4), 0x00800020);
	EQ(ecam_rd(bus, eoff(bdfs[1], 0x04), 2), 3);
	EQ(ecam_rd(bus, eoff(bdfs[1], 0x10), 8), 0xc10000000000c201ull);
	EQ(ecam_rd(bus, eoff(bdfs[1], 0x18), 4), 0x8000000c);
	/* A dword at 0xcfd is clipped by the bus to 3 bytes. */
	out(bus, 0xcf8, PCI_CONF1_ADDRESS(0, 0, 0), 4);
	EQ(in(bus, 0xcfd, 3), 0x00081b);
	EQ(in(bus, 0xcfe, 4), 0xffff0008);
	/* CF8 bits 1:0 OR into the port's byte lane (test_cf8_low_bits). */
	out(bus, 0xcf8, PCI_CONF1_ADDRESS(0, 0, 0) | 3, 4);
	EQ(in(bus, 0xcfc, 1), 0x00);
	EQ(in(bus, 0xcfd, 1), 0x00);
}
END_TEST

START_TEST(test_absent)
{
	for (unsigned int b = 5; b < NBDFS; b++) {
		EQ(cf8_rd(bus, bdfs[b], 0, 4), 0xffffffff);
		EQ(cf8_rd(bus, bdfs[b], 0x3e, 2), 0xffff);
		EQ(ecam_rd(bus, eoff(bdfs[b], 0x100), 4), 0xffffffff);
		ck_assert_ptr_null(pci_bus_ecam_page(bus, PCI_BDF_BUS(bdfs[b]),
						     bdfs[b] & 0xff));
	}
	ck_assert_ptr_null(pci_bus_ecam_page(bus, 0, 256));
	ck_assert_ptr_null(pci_bus_ecam_page(bus, 2, 0));
	/* Beyond the window (2 buses): all-ones, writes dropped. */
	EQ(ecam_rd(bus, 2ull << 20, 4), 0xffffffff);
	EQ(ecam_rd(bus, (2ull << 20) - 2, 4), 0xffffffff);
	ecam_wr(bus, 2ull << 20, 0, 4);
	EQ(pci_bus_cfg_read(bus, 0, 0x1000, 4), 0xffffffff);
	EQ(pci_bus_cfg_read(bus, 0, 0, 3), 0xffffffff);
}
END_TEST

START_TEST(test_ecam_decode)
{
	struct pci_fn *fn = pci_bus_get(bus, bdfs[4]);
	uint8_t *page = pci_bus_ecam_page(bus, 1, 0);

	ck_assert_ptr_eq(page, fn->cfg);
	EQ(ecam_rd(bus, PCI_ECAM_OFFSET(1, 0, 0), 4), 0x00111234);
	EQ(ecam_rd(bus, PCI_ECAM_OFFSET(0, 0x18, 2), 2), XEN_PLATFORM_DEVICE);
	/* 8 bytes = two dwords. */
	EQ(ecam_rd(bus, PCI_ECAM_OFFSET(1, 0, 0), 8),
			  (uint64_t)pci_fn_read(fn, 4, 4) << 32 | 0x00111234);
	ecam_wr(bus, PCI_ECAM_OFFSET(1, 0, 0x38), 0x55ffffffffull << 32, 8);
	EQ(pci_fn_read(fn, 0x38, 4), 0);
	EQ(pci_fn_read(fn, 0x3c, 1), 0xff);
	/* Sizing through ECAM shows up in the page a read-only map serves. */
	ecam_wr(bus, PCI_ECAM_OFFSET(1, 0, 0x14), 0xffffffff, 4);
	EQ(page[0x14] | page[0x15] << 8, 0xf000);
	/* Crossing into the next (absent) function's page. */
	ecam_wr(bus, PCI_ECAM_OFFSET(1, 0, 0xffc), 0, 4);
	EQ(ecam_rd(bus, PCI_ECAM_OFFSET(1, 0, 0xffe), 4), 0xffff0000);
	EQ(ecam_rd(bus, PCI_ECAM_OFFSET(1, 0, 0xffd), 8),
			  0xffffffffff000000ull);
}
END_TEST

START_TEST(test_host_bridge)
{
	struct pci_fn *hb = pci_bus_get(bus, 0);
	struct pci_bus *nx = mkbus(NULL, true);
	unsigned int p, exp = 0;

	EQ(cf8_rd(bus, 0, 0, 4), 0x00081b36);
	EQ(cf8_rd(bus, 0, PCI_CLASS_DEVICE, 2), 0x0600);
	EQ(cf8_rd(bus, 0, PCI_CLASS_PROG, 1), 0);
	ck_assert(cf8_rd(bus, 0, PCI_STATUS, 2) & PCI_STATUS_CAP_LIST);
	for (p = cf8_rd(bus, 0, PCI_CAPABILITY_LIST, 1); p;
	     p = cf8_rd(bus, 0, p + 1, 1))
		if (cf8_rd(bus, 0, p, 1) == PCI_CAP_ID_EXP)
			exp = p;
	ck_assert_uint_ne(exp, 0);
	EQ(cf8_rd(bus, 0, exp + PCI_EXP_FLAGS, 2), 0x92);
	EQ(cf8_rd(bus, 0, exp + PCI_EXP_DEVCTL, 2), 0x2810);
	cf8_wr(bus, 0, exp + PCI_EXP_DEVCTL, 0xffff, 2);
	EQ(cf8_rd(bus, 0, exp + PCI_EXP_DEVCTL, 2), 0x79ff);
	hb->cfg[exp + PCI_EXP_DEVSTA] = 0x3f;	/* device reports errors */
	cf8_wr(bus, 0, exp + PCI_EXP_DEVSTA, 0x05, 2);
	EQ(cf8_rd(bus, 0, exp + PCI_EXP_DEVSTA, 2), 0x3a);
	EQ(cf8_rd(bus, 0, PCI_HEADER_TYPE, 1), 0);
	/* DSN at 0x100, through CF8 with AMD ECS bits and through ECAM. */
	EQ(cf8_rd(bus, 0, 0x100, 4), 0x00010003);
	EQ(cf8_rd(bus, 0, 0x104, 4), (uint32_t)PCI_HOST_BRIDGE_DSN);
	EQ(cf8_rd(bus, 0, 0x10a, 2), (uint16_t)(PCI_HOST_BRIDGE_DSN >> 48));
	EQ(ecam_rd(bus, 0x104, 8), PCI_HOST_BRIDGE_DSN);
	/* Without ECS the bits are dropped: 0x100 aliases 0x000. */
	EQ(cf8_rd(nx, 0, 0x100, 4), cf8_rd(nx, 0, 0, 4));
	cf8_wr(bus, bdfs[1], 0xf3c, 0xff, 1);	/* RO ext byte */
	EQ(cf8_rd(bus, bdfs[1], 0xf3c, 4), 0);
	EQ(cf8_rd(bus, bdfs[1], 0x3c, 1), 0);
	pci_bus_destroy(nx);
}
END_TEST

START_TEST(test_multifunction)
{
	EQ(cf8_rd(bus, bdfs[1], PCI_HEADER_TYPE, 1), 0x80);
	EQ(cf8_rd(bus, bdfs[2], PCI_HEADER_TYPE, 1), 0x80);
	EQ(cf8_rd(bus, bdfs[3], PCI_HEADER_TYPE, 1), 0);
	add_test_fn(bus, PCI_BDF(0, 9, 5));
	EQ(cf8_rd(bus, PCI_BDF(0, 9, 5), PCI_HEADER_TYPE, 1), 0);
	add_test_fn(bus, PCI_BDF(0, 9, 0));
	EQ(cf8_rd(bus, PCI_BDF(0, 9, 5), PCI_HEADER_TYPE, 1), 0x80);
	EQ(cf8_rd(bus, PCI_BDF(0, 9, 0), PCI_HEADER_TYPE, 1), 0x80);
	cf8_wr(bus, PCI_BDF(0, 9, 0), PCI_HEADER_TYPE, 0, 1);
	EQ(cf8_rd(bus, PCI_BDF(0, 9, 0), PCI_HEADER_TYPE, 1), 0x80);
}
END_TEST

START_TEST(test_pio_ecam_equivalence)
{
	static struct shadow sa, sb;
	struct pci_bus *a = mkbus(&sa, false), *b = mkbus(&sb, false);

	/* Accesses one CFC access can carry, biased towards the header and
	 * COMMAND (decode on); values biased towards all-ones and zero. */
	for (int i = 0; i < 20000; i++) {
		uint64_t r = rnd();
		unsigned int bdf = bdfs[r % NBDFS], len = 1u << ((r >> 32) % 3);
		unsigned int reg = (unsigned int)(r >> 16) &
				   ((r >> 8) & 1 ? 0x3c : 0xffc);
		uint32_t val = (r >> 40) % 4 == 0 ? 0xffffffff :
			       (r >> 40) % 4 == 1 ? 0 : (uint32_t)rnd();

		reg |= (unsigned int)(r >> 50) & (4 - len);
		if ((r >> 44) % 8 == 0) {
			reg = PCI_COMMAND;
			len = 2;
			val = (uint32_t)r | 3;
		}
		if (rnd() % 4 == 0) {
			EQ(cf8_rd(a, bdf, reg, len),
					  ecam_rd(b, eoff(bdf, reg), len));
			continue;
		}
		cf8_wr(a, bdf, reg, val, len);
		ecam_wr(b, eoff(bdf, reg), val, len);
	}
	ck_assert_uint_gt(sa.events, 50);
	EQ(sa.events, sb.events);
	EQ(sa.hash, sb.hash);
	for (unsigned int n = 0; n < NBDFS; n++) {
		for (unsigned int reg = 0; reg < PCI_CFG_SIZE; reg += 4) {
			uint32_t v = cf8_rd(a, bdfs[n], reg, 4);

			EQ(v, ecam_rd(b, eoff(bdfs[n], reg), 4));
			EQ(v, cf8_rd(b, bdfs[n], reg, 4));
			EQ(v, ecam_rd(a, eoff(bdfs[n], reg), 4));
		}
		if (n < 5)
			ck_assert_mem_eq(pci_bus_get(a, bdfs[n])->cfg,
					 pci_bus_get(b, bdfs[n])->cfg,
					 PCI_CFG_SIZE);
	}
	pci_bus_destroy(a);
	pci_bus_destroy(b);
}
END_TEST

static void check_invariants(struct pci_bus *bus, struct shadow *sh,
			     uint8_t (*init)[PCI_CFG_SIZE])
{
	for (unsigned int n = 0; n < 5; n++) {
		struct pci_fn *fn = pci_bus_get(bus, bdfs[n]);
		unsigned int o = (unsigned int)rnd() & 0xffc;

		unsigned int bad = 0;

		/* Plain C in the loop, one assertion after it: a Check
		 * assertion in fork mode writes to a pipe each time, and
		 * this runs for 4 KiB x 5 functions x 600 rounds. */
		for (unsigned int i = 0; i < PCI_CFG_SIZE; i++) {
			uint8_t ro = ~(fn->wmask[i] | fn->w1cmask[i]);

			bad += ((fn->cfg[i] ^ init[n][i]) & ro) != 0;
			bad += (fn->cfg[i] & fn->w1cmask[i] & ~init[n][i]) != 0;
		}
		ck_assert_msg(!bad, "%02x:%02x.%x: %u read-only or RW1C bytes "
			      "changed", PCI_BDF_BUS(fn->bdf),
			      (fn->bdf >> 3) & 0x1f, fn->bdf & 7, bad);
		EQ(ecam_rd(bus, eoff(bdfs[n], o), 4), pci_fn_read(fn, o, 4));
		for (int i = 0; i < PCI_NUM_BARS; i++) {
			struct pci_bar *b = &fn->bars[i];
			uint64_t a;
			bool dec = pci_fn_bar_decoded(fn, i, &a);

			/* The VMM's view is the model's; mapped means decoded
			 * there, at a size-aligned non-zero address. */
			EQ(~sh->naddr[fn->bdf][i],
			   b->mapped ? b->map_addr : PCI_BAR_UNMAPPED);
			ck_assert(!b->mapped || (dec && a == b->map_addr && a &&
						 !(a & (b->desc.size - 1))));
		}
	}
}

START_TEST(test_hostile_random)
{
	static struct shadow sh;
	static uint8_t init[5][PCI_CFG_SIZE];
	struct pci_bus *bus = mkbus(&sh, false);

	sh.fail_every = 7;
	for (unsigned int n = 0; n < 5; n++)
		memcpy(init[n], pci_bus_get(bus, bdfs[n])->cfg, PCI_CFG_SIZE);
	for (int i = 0; i < 40000; i++) {
		uint64_t r = rnd();
		uint64_t d = rnd();
		uint32_t len = (uint32_t)(r >> 8) % 9;
		bool w = r & 1;

		if ((r >> 4) % 4 == 0) {
			uint64_t off = (r >> 16) % 10;

			if (off == 0 && (r >> 24) % 2) {	/* aim at fns */
				d = PCI_CONF1_ADDRESS(PCI_BDF_BUS(bdfs[r % 5]),
						      bdfs[r % 5] & 0xff,
						      (unsigned int)(r >> 32));
				len = 4;
				w = true;
			}
			acc(&pci_bus_pio_ops, bus, off, d, len, w);
		} else {
			acc(&pci_bus_ecam_ops, bus, (r >> 16) % 2 ?
			    eoff(bdfs[r % 5], (r >> 32) & 0x7f) :
			    (r >> 16) % (3ull << 20), d, len, w);
		}
		if (i % 64 == 0)
			check_invariants(bus, &sh, init);
	}
	check_invariants(bus, &sh, init);
	ck_assert_uint_gt(sh.maps, 20);
	pci_bus_destroy(bus);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pci_bus");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits");

	tcase_add_test(core, test_cf8_register);
	tcase_add_test(core, test_cf8_low_bits);
	tcase_add_test(core, test_cfc_decode);
	tcase_add_test(core, test_absent);
	tcase_add_test(core, test_ecam_decode);
	tcase_add_test(core, test_host_bridge);
	tcase_add_test(core, test_multifunction);
	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_test(limits, test_pio_ecam_equivalence);
	tcase_add_test(limits, test_create_limits);
	tcase_add_test(limits, test_hostile_random);
	tcase_set_timeout(limits, 60);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	return unit_run(s);
}
