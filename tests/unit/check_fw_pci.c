// SPDX-License-Identifier: MIT
/*
 * The firmware's PCI enumeration and BAR programming (firmware/pci.c) on
 * the host, against a fake configuration space reached through the
 * struct pci_access hooks: BAR sizing with decoding off, multi-function
 * devices, a bridge left alone, a BAR that does not fit (reported, device
 * left disabled, never overlapping), 64-bit BARs moved above 4 GiB when
 * the low window is short, the Xen platform BAR at the top of the 32-bit
 * window, decoding enabled per BAR kind, and the _PRT slot mask.
 */
#include <setjmp.h>
#include <stdarg.h>

#include "firmware/pci.c"

#include "tests/unit/unit.h"

#define GIB		(1ull << 30)
#define MAX_FAKE	8

/* One fake function: what sizing reads back follows from bar_size. */
struct fake {
	uint16_t bdf;
	uint32_t id;
	uint8_t header, pin;
	uint8_t line;			/* as written; 0 until then */
	unsigned int line_writes;
	uint64_t bar_size[6];		/* 0: not implemented */
	uint32_t bar_type[6];		/* low bits: IO, 64-bit, prefetch */
	uint32_t bar[6];		/* as written, masked */
	uint16_t command;
	bool decoding_while_sized;	/* a BAR probe with decode on */
};

static struct fake fakes[MAX_FAKE];
static unsigned int n_fakes;
static char out[4096];
static size_t out_len;

void fw_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out_len += (size_t)vsnprintf(out + out_len, sizeof(out) - out_len,
				     fmt, ap);
	va_end(ap);
	ck_assert_uint_lt(out_len, sizeof(out));
}

/* Ring changes and the console are the firmware's business. */
void user_call(void (*fn)(void *), void *arg)
{
	fn(arg);
}

void console_flush(void)
{
}

void fw_fail(uint32_t reason, const char *fmt, ...)
{
	(void)fmt;
	ck_abort_msg("fw_fail(%u)", reason);
	abort();
}

static struct fake *find(uint16_t bdf)
{
	for (unsigned int i = 0; i < n_fakes; i++)
		if (fakes[i].bdf == bdf)
			return &fakes[i];
	return NULL;
}

/* The size mask of BAR register i (a 64-bit BAR's upper half at i+1). */
static uint32_t bar_mask(const struct fake *f, unsigned int i)
{
	if (i > 0 && (f->bar_type[i - 1] & PCI_BASE_ADDRESS_MEM_TYPE_64))
		return (uint32_t)(~(f->bar_size[i - 1] - 1) >> 32);
	if (!f->bar_size[i])
		return 0;
	return (uint32_t)~(f->bar_size[i] - 1) &
	       (f->bar_type[i] & 1 ? ~3u : ~15u);
}

static uint32_t fake_read(const struct pci_access *a, uint16_t bdf,
			  unsigned int reg)
{
	const struct fake *f = find(bdf);

	(void)a;
	if (!f)
		return 0xffffffffu;
	switch (reg) {
	case PCI_VENDOR_ID:
		return f->id;
	case PCI_COMMAND:
		return f->command;
	case PCI_CACHE_LINE_SIZE:
		return (uint32_t)f->header << 16;
	case PCI_INTERRUPT_LINE:
		return (uint32_t)f->pin << 8 | f->line;
	}
	if (reg >= PCI_BASE_ADDRESS_0 && reg <= PCI_BASE_ADDRESS_5) {
		unsigned int i = (reg - PCI_BASE_ADDRESS_0) / 4;

		return f->bar[i] | (bar_mask(f, i) ? f->bar_type[i] : 0);
	}
	return 0;
}

static void fake_write(const struct pci_access *a, uint16_t bdf,
		       unsigned int reg, uint32_t v)
{
	struct fake *f = find(bdf);

	(void)a;
	ck_assert_ptr_nonnull(f);
	if (reg == PCI_COMMAND) {
		ck_assert_uint_eq(v >> 16, 0);	/* RW1C STATUS untouched */
		f->command = (uint16_t)v;
	} else if (reg == PCI_INTERRUPT_LINE) {
		ck_assert_uint_eq(v >> 8, 0);	/* pin etc. read-only anyway */
		f->line = (uint8_t)v;
		f->line_writes++;
	} else if (reg >= PCI_BASE_ADDRESS_0 && reg <= PCI_BASE_ADDRESS_5) {
		unsigned int i = (reg - PCI_BASE_ADDRESS_0) / 4;

		if (v == 0xffffffffu && (f->command & DECODE_BITS))
			f->decoding_while_sized = true;
		f->bar[i] = v & bar_mask(f, i);
	} else {
		ck_abort_msg("write to register 0x%x", reg);
	}
}

static struct fake *add(unsigned int bus, unsigned int dev, unsigned int fn,
			uint32_t id, uint8_t header)
{
	struct fake *f = &fakes[n_fakes++];

	*f = (struct fake){ .bdf = (uint16_t)PCI_BDF(bus, dev, fn),
			    .id = id, .header = header };
	return f;
}

static void bar(struct fake *f, unsigned int i, uint64_t size,
		uint32_t type)
{
	f->bar_size[i] = size;
	f->bar_type[i] = type;
}

static struct machine m;
static struct pci_state st;

static void machine_defaults(bool xen_wb)
{
	m = (struct machine){ .xen_bar_wb = xen_wb };
	m.pci = (struct machine_pci){
		.bus_last = 1, .has_ecam = true,
		.io = { 0xc000, 0x4000 },
		.mem32 = { 0xc0000000, 0x20000000 },
		.mem64 = { 4 * GIB, 64 * GIB },
	};
}

static void run(void)
{
	out_len = 0;
	out[0] = '\0';
	st.acc = (struct pci_access){ fake_read, fake_write, 0, "fake" };
	st.bus_last = m.pci.bus_last;
	find_functions(&st);
	size_functions(&st);
	pci_assign(&st, &m);
	pci_program(&st);
}

static uint64_t bar_addr(const struct fake *f, unsigned int i)
{
	uint64_t a = f->bar[i];

	if (i + 1 < PCI_NUM_BARS &&
	    (f->bar_type[i] & PCI_BASE_ADDRESS_MEM_TYPE_64))
		a |= (uint64_t)f->bar[i + 1] << 32;
	return a;
}

/* The usual machine plus a device too big for the 32-bit window and a
 * 64-bit BAR that then has to go above 4 GiB. */
static void populate(void)
{
	struct fake *f;

	n_fakes = 0;
	add(0, 0, 0, 0x00081b36, 0);			/* host bridge */
	f = add(0, 3, 0, 0x00015853, 0);		/* Xen platform */
	f->pin = 1;
	f->command = PCI_COMMAND_IO | PCI_COMMAND_MEMORY; /* sized with it off */
	bar(f, 0, 0x100, PCI_BASE_ADDRESS_SPACE_IO);
	bar(f, 1, 0x1000000, PCI_BASE_ADDRESS_MEM_PREFETCH);
	f = add(0, 4, 0, 0x11111af4, 0x80);		/* multi-function */
	bar(f, 0, 0x1000, 0);
	bar(f, 2, 1 * GIB, PCI_BASE_ADDRESS_MEM_TYPE_64 |
	    PCI_BASE_ADDRESS_MEM_PREFETCH);
	f->pin = 2;
	f = add(0, 4, 2, 0x22221af4, 0);
	bar(f, 5, 0x10, 0);				/* 16 bytes: 4 KiB */
	f = add(0, 6, 0, 0x33331234, 0);		/* does not fit */
	bar(f, 0, 0x40000000, 0);
	bar(f, 1, 0x1000, 0);
	add(0, 7, 1, 0x44441234, 0);			/* fn 1, no fn 0 */
	f = add(1, 0, 0, 0x55558086, 1);		/* a bridge */
	f->pin = 1;
}

START_TEST(test_assign)
{
	const struct fake *xen, *mf, *mf2, *big;

	machine_defaults(true);
	populate();
	run();
	xen = find(PCI_BDF(0, 3, 0));
	mf = find(PCI_BDF(0, 4, 0));
	mf2 = find(PCI_BDF(0, 4, 2));
	big = find(PCI_BDF(0, 6, 0));

	/* Sizing with decoding off, then decoding per BAR kind. */
	ck_assert(!xen->decoding_while_sized);
	ck_assert_uint_eq(xen->command, PCI_COMMAND_IO | PCI_COMMAND_MEMORY);
	ck_assert_uint_eq(bar_addr(xen, 0), 0xc000);
	ck_assert_uint_eq(bar_addr(xen, 1), 0xdf000000);  /* top, for WB */
	ck_assert_uint_eq(mf->command, PCI_COMMAND_MEMORY);
	ck_assert_uint_eq(bar_addr(mf, 2), 4 * GIB);	/* went high */
	ck_assert_uint_ge(bar_addr(mf, 0), 0xc0000000);
	ck_assert_uint_eq(mf2->command, PCI_COMMAND_MEMORY);
	ck_assert_uint_ne(bar_addr(mf2, 5), 0);
	/* The 1 GiB 32-bit BAR: no room, device off, BARs cleared. */
	ck_assert_uint_eq(big->command & DECODE_BITS, 0);
	ck_assert_uint_eq(bar_addr(big, 0), 0);
	ck_assert_uint_eq(bar_addr(big, 1), 0);
	ck_assert_msg(strstr(out, "pci 00:06.0 1234:3333 BAR0 mem32 "
			     "+0x40000000: no room, device disabled\n"), "%s",
		      out);
	/* Not scanned: fn 1 without fn 0.  Bridge: listed, disabled. */
	ck_assert_ptr_null(strstr(out, "00:07.1"));
	ck_assert_msg(strstr(out, "pci 01:00.0 8086:5555 header type not "
			     "supported, disabled\n"), "%s", out);
	ck_assert_uint_eq(find(PCI_BDF(1, 0, 0))->command, 0);
	ck_assert_msg(strstr(out, "pci 00:03.0 5853:0001 BAR1 mem32 pref "
			     "0xdf000000+0x1000000\n"), "%s", out);
	ck_assert_msg(strstr(out, "pci 00:04.0 1af4:1111 BAR2 mem64 pref "
			     "0x100000000+0x40000000\n"), "%s", out);
	ck_assert_uint_eq(st.prt_slots, 1u << 3 | 1u << 4);
	/* Interrupt Line = the _PRT's GSI: 16 + ((slot + pin - 1) & 3);
	 * off bus 0 (no route) 0xff; no pin, no write. */
	ck_assert_uint_eq(xen->line, 16 + ((3 + 0) & 3));
	ck_assert_uint_eq(mf->line, 16 + ((4 + 1) & 3));
	ck_assert_uint_eq(find(PCI_BDF(1, 0, 0))->line, 0xff);
	ck_assert_uint_eq(mf2->line_writes, 0);
	ck_assert_uint_eq(xen->line_writes, 1);
	ck_assert_uint_eq(st.sum.wb_base, 0xdf000000);
	ck_assert_uint_eq(st.sum.wb_size, 0x1000000);
}
END_TEST

/* Placed memory BARs never overlap, whatever the mix. */
START_TEST(test_no_overlap)
{
	machine_defaults(false);
	populate();
	run();
	for (unsigned int i = 0; i < st.n_reqs; i++) {
		const struct bar_req *a = &st.reqs[i];

		if (a->status != BAR_PLACED)
			continue;
		for (unsigned int j = 0; j < i; j++) {
			const struct bar_req *b = &st.reqs[j];

			if (b->status != BAR_PLACED || a->is_io != b->is_io)
				continue;
			ck_assert_msg(a->addr + a->size <= b->addr ||
				      b->addr + b->size <= a->addr,
				      "BARs %u and %u overlap", i, j);
		}
	}
	/* uc: the Xen BAR is packed like any other, largest first. */
	ck_assert_uint_eq(bar_addr(find(PCI_BDF(0, 3, 0)), 1), 0xc0000000);
	ck_assert_uint_eq(st.sum.wb_size, 0);
}
END_TEST

/* Everything fits: 64-bit BARs stay below 4 GiB (SeaBIOS rule). */
START_TEST(test_low_64bit)
{
	machine_defaults(true);
	populate();
	n_fakes -= 3;			/* drop 00:06.0, 00:07.1, the bridge */
	find(PCI_BDF(0, 4, 0))->bar_size[2] = 0x4000000;	/* 64 MiB */
	run();
	ck_assert_uint_lt(bar_addr(find(PCI_BDF(0, 4, 0)), 2), 4 * GIB);
	ck_assert_uint_ge(bar_addr(find(PCI_BDF(0, 4, 0)), 2), 0xc0000000);
	ck_assert_ptr_null(strstr(out, "disabled"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fw_pci");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_assign);
	tcase_add_test(tc, test_no_overlap);
	tcase_add_test(tc, test_low_64bit);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
