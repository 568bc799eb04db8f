// SPDX-License-Identifier: MIT
/* The config-space model of devices/pci/cfg.c: write masks, RW1C, BAR
 * sizing, capability chains, and the sequence of bar_changed reports
 * (including COMMAND toggles, 64-bit halves, probes and failed maps). */
#include <check.h>

#include "tests/unit/unit.h"
#include <stdlib.h>
#include <string.h>

#include "devices/pci/cfg.h"

struct event {
	int bar;
	uint64_t old_addr, new_addr;
	bool enabled;
};

static struct pci_fn *fn;
static struct event ev[64];
static int nev;
static int fail_maps;	/* fail this many upcoming map requests */

static int record(struct pci_fn *f, int bar, uint64_t old_addr,
		  uint64_t new_addr, bool enabled)
{
	ck_assert_ptr_eq(f, fn);
	ck_assert_int_lt(nev, 64);
	ev[nev++] = (struct event){ bar, old_addr, new_addr, enabled };
	if (enabled && fail_maps > 0) {
		fail_maps--;
		return -1;
	}
	return 0;
}

static const struct pci_fn_id test_id = {
	.vendor = 0x1234, .device = 0x5678,
	.subsys_vendor = 0x1af4, .subsys_id = 0x1100,
	.class_code = 0x020000, .revision = 7, .irq_pin = 2,
};

static void setup(void)
{
	fn = calloc(1, sizeof(*fn));
	ck_assert_ptr_nonnull(fn);
	ck_assert_int_eq(pci_fn_init(fn, calloc(1, PCI_CFG_SIZE), &test_id,
				     "test"), 0);
	pci_fn_set_bar_handler(fn, record, NULL);
	nev = 0;
	fail_maps = 0;
}

static void teardown(void)
{
	free(fn->cfg);
	free(fn);
}

static void add_bar(int idx, enum pci_bar_kind kind, uint64_t size, bool pf)
{
	struct pci_bar_desc d = { .kind = kind, .size = size, .prefetch = pf };

	ck_assert_int_eq(pci_fn_add_bar(fn, idx, &d), 0);
}

static uint32_t rd(unsigned int off, unsigned int len)
{
	return pci_fn_read(fn, off, len);
}

static void wr(unsigned int off, uint32_t val, unsigned int len)
{
	ck_assert_int_eq(pci_fn_write(fn, off, val, len), 0);
}

static void expect(int i, int bar, uint64_t old_addr, uint64_t new_addr,
		   bool enabled)
{
	ck_assert_int_gt(nev, i);
	ck_assert_int_eq(ev[i].bar, bar);
	ck_assert_uint_eq(ev[i].old_addr, old_addr);
	ck_assert_uint_eq(ev[i].new_addr, new_addr);
	ck_assert_int_eq(ev[i].enabled, enabled);
}

START_TEST(test_header)
{
	struct pci_fn f2;
	uint8_t page[PCI_CFG_SIZE];
	struct pci_fn_id bad = test_id;

	ck_assert_uint_eq(rd(PCI_VENDOR_ID, 2), 0x1234);
	ck_assert_uint_eq(rd(PCI_DEVICE_ID, 2), 0x5678);
	ck_assert_uint_eq(rd(PCI_VENDOR_ID, 4), 0x56781234);
	ck_assert_uint_eq(rd(PCI_REVISION_ID, 4), 0x02000007);
	ck_assert_uint_eq(rd(PCI_SUBSYSTEM_VENDOR_ID, 4), 0x11001af4);
	ck_assert_uint_eq(rd(PCI_INTERRUPT_PIN, 1), 2);
	ck_assert_uint_eq(rd(PCI_HEADER_TYPE, 1), 0);
	ck_assert_uint_eq(rd(PCI_COMMAND, 4), 0);
	ck_assert_uint_eq(rd(PCI_CAPABILITY_LIST, 1), 0);
	bad.irq_pin = 5;
	ck_assert_int_eq(pci_fn_init(&f2, page, &bad, "x"), -1);
	ck_assert_int_eq(pci_fn_init(&f2, NULL, &test_id, "x"), -1);
}
END_TEST

START_TEST(test_masks)
{
	uint8_t before[PCI_CFG_SIZE];

	memcpy(before, fn->cfg, PCI_CFG_SIZE);
	/* Read-only identity: every byte written with all-ones. */
	for (unsigned int off = 0; off < 0x40; off += 4)
		if (off != PCI_COMMAND && off != PCI_CACHE_LINE_SIZE &&
		    off != PCI_INTERRUPT_LINE)
			wr(off, 0xffffffff, 4);
	for (unsigned int off = 0x40; off < PCI_CFG_SIZE; off++)
		wr(off, 0xff, 1);
	ck_assert_mem_eq(fn->cfg, before, PCI_CFG_SIZE);

	wr(PCI_COMMAND, 0xffff, 2);
	ck_assert_uint_eq(rd(PCI_COMMAND, 2),
			  PCI_COMMAND_IO | PCI_COMMAND_MEMORY |
			  PCI_COMMAND_MASTER | PCI_COMMAND_PARITY |
			  PCI_COMMAND_SERR | PCI_COMMAND_INTX_DISABLE);
	wr(PCI_CACHE_LINE_SIZE, 0xffffffff, 4);
	ck_assert_uint_eq(rd(PCI_CACHE_LINE_SIZE, 4), 0xff);
	wr(PCI_INTERRUPT_LINE, 0xffffffff, 4);
	ck_assert_uint_eq(rd(PCI_INTERRUPT_LINE, 4), 0x02ff);
	/* Unaligned word write straddling two dwords. */
	wr(PCI_INTERRUPT_LINE - 1, 0x0b00, 2);
	ck_assert_uint_eq(rd(PCI_INTERRUPT_LINE, 1), 0x0b);
}
END_TEST

START_TEST(test_rw1c)
{
	fn->cfg[PCI_STATUS + 1] = 0xf9;	/* device raised every error bit */
	fn->cfg[PCI_STATUS] = PCI_STATUS_CAP_LIST | PCI_STATUS_INTERRUPT;
	wr(PCI_STATUS, 0, 2);
	ck_assert_uint_eq(rd(PCI_STATUS, 2), 0xf918);
	wr(PCI_STATUS, PCI_STATUS_REC_MASTER_ABORT | PCI_STATUS_CAP_LIST, 2);
	ck_assert_uint_eq(rd(PCI_STATUS, 2), 0xd918);
	/* A byte write to the low byte cannot touch the high byte. */
	wr(PCI_STATUS, 0xff, 1);
	ck_assert_uint_eq(rd(PCI_STATUS, 2), 0xd918);
	/* Dword write: COMMAND gets MEM, STATUS loses bit 15 only. */
	wr(PCI_COMMAND, (uint32_t)PCI_STATUS_DETECTED_PARITY << 16 |
	   PCI_COMMAND_MEMORY, 4);
	ck_assert_uint_eq(rd(PCI_COMMAND, 4), 0x59180002);
	wr(PCI_STATUS + 1, 0xff, 1);
	ck_assert_uint_eq(rd(PCI_STATUS, 2), 0x0018);
}
END_TEST

START_TEST(test_bad_access)
{
	uint8_t before[PCI_CFG_SIZE];

	wr(PCI_INTERRUPT_LINE, 0x11, 1);
	memcpy(before, fn->cfg, PCI_CFG_SIZE);
	ck_assert_int_eq(pci_fn_write(fn, PCI_INTERRUPT_LINE, 0x22, 3), -1);
	ck_assert_int_eq(pci_fn_write(fn, PCI_INTERRUPT_LINE, 0x22, 0), -1);
	ck_assert_int_eq(pci_fn_write(fn, PCI_INTERRUPT_LINE, 0x22, 8), -1);
	ck_assert_int_eq(pci_fn_write(fn, 4095, 0xffff, 2), -1);
	ck_assert_int_eq(pci_fn_write(fn, 4093, 0xffffffff, 4), -1);
	ck_assert_int_eq(pci_fn_write(fn, 4096, 0xff, 1), -1);
	ck_assert_int_eq(pci_fn_write(fn, ~0u, 0xff, 1), -1);
	ck_assert_mem_eq(fn->cfg, before, PCI_CFG_SIZE);
	ck_assert_uint_eq(rd(PCI_INTERRUPT_LINE, 3), 0xffffffff);
	ck_assert_uint_eq(rd(4095, 2), 0xffff);
	ck_assert_uint_eq(rd(4096, 1), 0xff);
	ck_assert_uint_eq(rd(4092, 4), 0);
	ck_assert_int_eq(pci_fn_write(fn, 4095, 0, 1), 0);
}
END_TEST

START_TEST(test_bar_sizing)
{
	add_bar(0, PCI_BAR_IO, 256, false);
	add_bar(1, PCI_BAR_MEM32, 16 << 20, true);
	add_bar(2, PCI_BAR_MEM64, 1ull << 30, true);
	add_bar(4, PCI_BAR_MEM64, 8ull << 30, false);
	for (unsigned int off = PCI_BASE_ADDRESS_0; off < 0x28; off += 4)
		wr(off, 0xffffffff, 4);
	ck_assert_uint_eq(rd(0x10, 4), 0xffffff01);
	ck_assert_uint_eq(rd(0x14, 4), 0xff000008);
	ck_assert_uint_eq(rd(0x18, 4), 0xc000000c);
	ck_assert_uint_eq(rd(0x1c, 4), 0xffffffff);
	ck_assert_uint_eq(rd(0x20, 4), 0x00000004);	/* > 4 GiB: low RO */
	ck_assert_uint_eq(rd(0x24, 4), 0xfffffffe);
	ck_assert_uint_eq(pci_fn_bar_addr(fn, 4), 0xfffffffe00000000ull);
	/* Restore, byte by byte this time. */
	for (unsigned int off = PCI_BASE_ADDRESS_0; off < 0x28; off++)
		wr(off, 0, 1);
	ck_assert_uint_eq(rd(0x10, 4), 1);
	ck_assert_uint_eq(rd(0x14, 4), 8);
	ck_assert_uint_eq(rd(0x18, 4), 0xc);
	ck_assert_uint_eq(rd(0x24, 4), 0);
	/* Flag bits survive any value; unaligned address bits are dropped. */
	wr(0x14, 0x12345670, 4);
	ck_assert_uint_eq(rd(0x14, 4), 0x12000008);
	wr(0x10, 0xabcd, 2);
	ck_assert_uint_eq(pci_fn_bar_addr(fn, 0), 0xab00);
	/* A function without BARs at 5 and the ROM: all read-only 0. */
	ck_assert_int_eq(nev, 0);
}
END_TEST

START_TEST(test_bar_unused)
{
	wr(PCI_BASE_ADDRESS_0, 0xffffffff, 4);
	wr(PCI_ROM_ADDRESS, 0xffffffff, 4);
	ck_assert_uint_eq(rd(PCI_BASE_ADDRESS_0, 4), 0);
	ck_assert_uint_eq(rd(PCI_ROM_ADDRESS, 4), 0);
	ck_assert_uint_eq(pci_fn_bar_addr(fn, 0), 0);
	ck_assert(!pci_fn_bar_decoded(fn, 0, NULL));
	ck_assert(!pci_fn_bar_decoded(fn, 6, NULL));
	ck_assert(!pci_fn_bar_decoded(fn, -1, NULL));
}
END_TEST

START_TEST(test_add_bar_invalid)
{
	struct pci_bar_desc d = { .kind = PCI_BAR_IO, .size = 512 };

	ck_assert_int_eq(pci_fn_add_bar(fn, 0, &d), -1);	/* I/O > 256 */
	d.size = 48;
	ck_assert_int_eq(pci_fn_add_bar(fn, 0, &d), -1);	/* not 2^n */
	d = (struct pci_bar_desc){ .kind = PCI_BAR_IO, .size = 16,
				   .prefetch = true };
	ck_assert_int_eq(pci_fn_add_bar(fn, 0, &d), -1);
	d = (struct pci_bar_desc){ .kind = PCI_BAR_MEM32, .size = 8 };
	ck_assert_int_eq(pci_fn_add_bar(fn, 0, &d), -1);
	d = (struct pci_bar_desc){ .kind = PCI_BAR_MEM32, .size = 1ull << 32 };
	ck_assert_int_eq(pci_fn_add_bar(fn, 0, &d), -1);
	d = (struct pci_bar_desc){ .kind = PCI_BAR_NONE, .size = 16 };
	ck_assert_int_eq(pci_fn_add_bar(fn, 0, &d), -1);
	d = (struct pci_bar_desc){ .kind = PCI_BAR_MEM64, .size = 4096 };
	ck_assert_int_eq(pci_fn_add_bar(fn, 5, &d), -1);	/* no room */
	ck_assert_int_eq(pci_fn_add_bar(fn, 6, &d), -1);
	ck_assert_int_eq(pci_fn_add_bar(fn, -1, &d), -1);
	ck_assert_int_eq(pci_fn_add_bar(fn, 1, &d), 0);
	ck_assert_int_eq(pci_fn_add_bar(fn, 2, &d), -1);	/* upper half */
	ck_assert_int_eq(pci_fn_add_bar(fn, 1, &d), -1);
	ck_assert_int_eq(pci_fn_add_bar(fn, 0, &d), -1);	/* overlaps 1 */
	d.kind = PCI_BAR_MEM32;
	ck_assert_int_eq(pci_fn_add_bar(fn, 0, &d), 0);
	ck_assert_int_eq(pci_fn_add_bar(fn, 0, NULL), -1);
}
END_TEST

START_TEST(test_caps)
{
	int a = pci_fn_add_cap(fn, PCI_CAP_ID_PM, 8);
	int b = pci_fn_add_cap(fn, PCI_CAP_ID_VNDR, 5);
	int c = pci_fn_add_cap(fn, PCI_CAP_ID_MSI, 10);
	uint8_t ids[3], n = 0;

	ck_assert_int_eq(a, 0x40);
	ck_assert_int_eq(b, 0x48);
	ck_assert_int_eq(c, 0x50);	/* dword aligned after 5 bytes */
	ck_assert(rd(PCI_STATUS, 2) & PCI_STATUS_CAP_LIST);
	for (unsigned int p = rd(PCI_CAPABILITY_LIST, 1); p && n < 3;
	     p = rd(p + PCI_CAP_LIST_NEXT, 1))
		ids[n++] = (uint8_t)rd(p + PCI_CAP_LIST_ID, 1);
	ck_assert_int_eq(n, 3);
	ck_assert_uint_eq(ids[0], PCI_CAP_ID_PM);
	ck_assert_uint_eq(ids[1], PCI_CAP_ID_VNDR);
	ck_assert_uint_eq(ids[2], PCI_CAP_ID_MSI);
	ck_assert_uint_eq(rd(c + PCI_CAP_LIST_NEXT, 1), 0);
	/* Chain is read-only to the guest. */
	wr(a, 0xffff, 2);
	ck_assert_uint_eq(rd(a + 1, 1), 0x48);
	ck_assert_int_eq(pci_fn_add_cap(fn, PCI_CAP_ID_VNDR, 1), -1);
	ck_assert_int_eq(pci_fn_add_cap(fn, PCI_CAP_ID_VNDR, 0xac), -1);
	ck_assert_int_eq(pci_fn_add_cap(fn, PCI_CAP_ID_VNDR, 0xa4), 0x5c);
	ck_assert_int_eq(pci_fn_add_cap(fn, PCI_CAP_ID_VNDR, 2), -1);
}
END_TEST

START_TEST(test_ext_caps)
{
	int a, b;
	uint32_t h;

	ck_assert_uint_eq(rd(PCI_EXT_CAP_START, 4), 0);
	a = pci_fn_add_ext_cap(fn, PCI_EXT_CAP_ID_DSN, 1, 12);
	b = pci_fn_add_ext_cap(fn, PCI_EXT_CAP_ID_VNDR, 1, 0x18);
	ck_assert_int_eq(a, 0x100);
	ck_assert_int_eq(b, 0x10c);
	h = rd(a, 4);
	ck_assert_uint_eq(PCI_EXT_CAP_ID(h), PCI_EXT_CAP_ID_DSN);
	ck_assert_uint_eq(PCI_EXT_CAP_VER(h), 1);
	ck_assert_uint_eq(PCI_EXT_CAP_NEXT(h), 0x10c);
	h = rd(b, 4);
	ck_assert_uint_eq(PCI_EXT_CAP_ID(h), PCI_EXT_CAP_ID_VNDR);
	ck_assert_uint_eq(PCI_EXT_CAP_NEXT(h), 0);
	ck_assert_int_eq(pci_fn_add_ext_cap(fn, 1, 1, 3), -1);
	ck_assert_int_eq(pci_fn_add_ext_cap(fn, 1, 1, 0x1000), -1);
	ck_assert_int_eq(pci_fn_add_ext_cap(fn, 1, 1, 0x1000 - 0x124), 0x124);
	ck_assert_int_eq(pci_fn_add_ext_cap(fn, 1, 1, 4), -1);
}
END_TEST

START_TEST(test_bar32_events)
{
	add_bar(1, PCI_BAR_MEM32, 16 << 20, true);
	wr(0x14, 0xc1000000, 4);		/* decode off: silent */
	ck_assert_int_eq(nev, 0);
	wr(PCI_COMMAND, PCI_COMMAND_IO, 2);	/* wrong decode bit */
	ck_assert_int_eq(nev, 0);
	wr(PCI_COMMAND, PCI_COMMAND_MEMORY, 2);
	expect(0, 1, PCI_BAR_UNMAPPED, 0xc1000000, true);
	wr(PCI_COMMAND, PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER, 2);
	ck_assert_int_eq(nev, 1);		/* no change, no report */
	wr(0x14, 0xc3000000, 4);
	expect(1, 1, 0xc1000000, 0xc3000000, true);
	wr(0x14, 0xffffffff, 4);		/* probe with decode on */
	expect(2, 1, 0xc3000000, 0xff000000, false);
	ck_assert_uint_eq(rd(0x14, 4), 0xff000008);
	wr(0x14, 0xc3000000, 4);
	expect(3, 1, PCI_BAR_UNMAPPED, 0xc3000000, true);
	wr(0x17, 0xc5, 1);			/* byte move */
	expect(4, 1, 0xc3000000, 0xc5000000, true);
	wr(PCI_COMMAND, 0, 2);
	expect(5, 1, 0xc5000000, 0xc5000000, false);
	wr(0x14, 0, 4);
	ck_assert_int_eq(nev, 6);
	wr(PCI_COMMAND, PCI_COMMAND_MEMORY, 2);	/* address 0: unassigned */
	ck_assert_int_eq(nev, 6);
	ck_assert(!pci_fn_bar_decoded(fn, 1, NULL));
}
END_TEST

START_TEST(test_io_events)
{
	add_bar(0, PCI_BAR_IO, 256, false);
	add_bar(1, PCI_BAR_MEM32, 4096, false);
	wr(0x10, 0xc000, 4);
	wr(0x14, 0xc0000000, 4);
	wr(PCI_COMMAND, PCI_COMMAND_IO | PCI_COMMAND_MEMORY, 2);
	ck_assert_int_eq(nev, 2);
	expect(0, 0, PCI_BAR_UNMAPPED, 0xc000, true);
	expect(1, 1, PCI_BAR_UNMAPPED, 0xc0000000, true);
	wr(PCI_COMMAND, PCI_COMMAND_MEMORY, 1);	/* IO off only */
	expect(2, 0, 0xc000, 0xc000, false);
	ck_assert_int_eq(nev, 3);
	wr(0x10, 0x10000, 4);			/* beyond port space */
	wr(PCI_COMMAND, PCI_COMMAND_IO | PCI_COMMAND_MEMORY, 2);
	ck_assert_int_eq(nev, 3);
	wr(0x10, 0xff00, 4);			/* top of port space: fine */
	expect(3, 0, PCI_BAR_UNMAPPED, 0xff00, true);
	wr(0x10, 0xffffffff, 4);		/* probe */
	expect(4, 0, 0xff00, 0xffffff00, false);
	ck_assert_uint_eq(rd(0x10, 4), 0xffffff01);
	ck_assert_int_eq(nev, 5);
}
END_TEST

START_TEST(test_bar64_events)
{
	add_bar(2, PCI_BAR_MEM64, 1 << 24, true);
	/* Linux: decode off while both halves are written. */
	wr(0x18, 0x3f000000, 4);
	wr(0x1c, 0x2, 4);
	ck_assert_int_eq(nev, 0);
	wr(PCI_COMMAND, PCI_COMMAND_MEMORY, 2);
	expect(0, 2, PCI_BAR_UNMAPPED, 0x23f000000ull, true);
	/* Low then high with decode on: the transient mapping is real. */
	wr(0x18, 0x40000000, 4);
	expect(1, 2, 0x23f000000ull, 0x240000000ull, true);
	wr(0x1c, 0x3, 4);
	expect(2, 2, 0x240000000ull, 0x340000000ull, true);
	/* Probe of the low half while high != 0: not reported as a map. */
	wr(0x18, 0xffffffff, 4);
	expect(3, 2, 0x340000000ull, 0x3ff000000ull, false);
	ck_assert_uint_eq(rd(0x18, 4), 0xff00000c);
	wr(0x18, 0x40000000, 4);
	expect(4, 2, PCI_BAR_UNMAPPED, 0x340000000ull, true);
	/* Probe of the high half in two word writes: the first half-write
	 * is an ordinary (if odd) move below 2^52, as on hardware. */
	wr(0x1c, 0xffff, 2);
	expect(5, 2, 0x340000000ull, 0xffff40000000ull, true);
	wr(0x1e, 0xffff, 2);
	expect(6, 2, 0xffff40000000ull, 0xffffffff40000000ull, false);
	ck_assert_uint_eq(rd(0x1c, 4), 0xffffffff);
	wr(0x1c, 0x3, 4);
	expect(7, 2, PCI_BAR_UNMAPPED, 0x340000000ull, true);
	ck_assert_int_eq(nev, 8);
}
END_TEST

START_TEST(test_bar64_word_move)
{
	add_bar(0, PCI_BAR_MEM64, 1 << 24, false);
	wr(0x10, 0x41000000, 4);
	wr(0x14, 0x1, 4);
	wr(PCI_COMMAND, PCI_COMMAND_MEMORY, 2);
	expect(0, 0, PCI_BAR_UNMAPPED, 0x141000000ull, true);
	/* Last slot below a 4 GiB boundary is legitimate above 4 GiB. */
	wr(0x12, 0xff00, 2);
	expect(1, 0, 0x141000000ull, 0x1ff000000ull, true);
	/* ... but not the one containing 0xffffffff. */
	wr(0x14, 0, 4);
	expect(2, 0, 0x1ff000000ull, 0xff000000ull, false);
	/* Above the 2^52 limit: not decoded. */
	wr(0x14, 0x00100000, 4);
	ck_assert_int_eq(nev, 3);
	wr(0x14, 0x000fffff, 4);
	expect(3, 0, PCI_BAR_UNMAPPED, 0x000fffffff000000ull, true);
}
END_TEST

START_TEST(test_map_failure)
{
	add_bar(1, PCI_BAR_MEM32, 1 << 24, true);
	wr(0x14, 0x01000000, 4);	/* say the VMM finds RAM here */
	fail_maps = 1;
	wr(PCI_COMMAND, PCI_COMMAND_MEMORY, 2);
	expect(0, 1, PCI_BAR_UNMAPPED, 0x01000000, true);
	ck_assert(!fn->bars[1].mapped);
	ck_assert_uint_eq(rd(0x14, 4), 0x01000008);	/* guest value kept */
	ck_assert(pci_fn_bar_decoded(fn, 1, NULL));
	wr(PCI_CACHE_LINE_SIZE, 0x10, 1);	/* unrelated: no retry */
	ck_assert_int_eq(nev, 1);
	wr(PCI_COMMAND, 0, 2);			/* nothing mapped to undo */
	ck_assert_int_eq(nev, 1);
	wr(PCI_COMMAND, PCI_COMMAND_MEMORY, 2);
	expect(1, 1, PCI_BAR_UNMAPPED, 0x01000000, true);
	ck_assert(fn->bars[1].mapped);
	fail_maps = 1;
	wr(0x14, 0x02000000, 4);		/* failed move */
	expect(2, 1, 0x01000000, 0x02000000, true);
	ck_assert(!fn->bars[1].mapped);
	wr(0x14, 0xc0000000, 4);
	expect(3, 1, PCI_BAR_UNMAPPED, 0xc0000000, true);
	ck_assert(fn->bars[1].mapped);
	ck_assert_uint_eq(fn->bars[1].map_addr, 0xc0000000);
	ck_assert_int_eq(nev, 4);
}
END_TEST

START_TEST(test_no_handler)
{
	add_bar(0, PCI_BAR_IO, 16, false);
	pci_fn_set_bar_handler(fn, NULL, NULL);
	wr(0x10, 0x1000, 4);
	wr(PCI_COMMAND, PCI_COMMAND_IO, 2);
	ck_assert(fn->bars[0].mapped);
	ck_assert_uint_eq(fn->bars[0].map_addr, 0x1000);
	ck_assert_int_eq(nev, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pci_cfg");
	TCase *core = tcase_create("core"), *bars = tcase_create("bars");
	TCase *limits = tcase_create("limits");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_checked_fixture(bars, setup, teardown);
	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_add_test(core, test_header);
	tcase_add_test(core, test_masks);
	tcase_add_test(core, test_rw1c);
	tcase_add_test(core, test_caps);
	tcase_add_test(core, test_ext_caps);
	tcase_add_test(bars, test_bar_sizing);
	tcase_add_test(bars, test_bar32_events);
	tcase_add_test(bars, test_io_events);
	tcase_add_test(bars, test_bar64_events);
	tcase_add_test(bars, test_bar64_word_move);
	tcase_add_test(bars, test_map_failure);
	tcase_add_test(bars, test_no_handler);
	tcase_add_test(limits, test_bad_access);
	tcase_add_test(limits, test_bar_unused);
	tcase_add_test(limits, test_add_bar_invalid);
	suite_add_tcase(s, core);
	suite_add_tcase(s, bars);
	suite_add_tcase(s, limits);
	return unit_run(s);
}
