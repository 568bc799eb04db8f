// SPDX-License-Identifier: MIT
/*
 * Random PCI abuse (see pci_fuzz.h).  Every random choice comes from one
 * xorshift64* stream, so a seed reproduces a run exactly.
 */
#include "guest.h"
#include "pci_access.h"
#include "pci_fuzz.h"

#define CF9_PORT	(PCI_CONF1_ADDR_PORT + 1)
#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

struct fuzz {
	const struct pci_fuzz_conf *c;
	struct pci_fuzz_stats *st;
	uint64_t state;
};

/* Memory BAR values: unassigned, the payload image, RAM, the end of RAM,
 * the PCI window, ECAM, IOAPIC/LAPIC, the reset vector, probes. */
static const uint32_t mem_spots[] = {
	0x00000000, 0x00100000, 0x01000000, 0x0f000000, 0x10000000,
	0xc0000000, 0xc1000000, 0xdf000000, 0xe0000000, 0xe0100000,
	0xfe000000, 0xfec00000, 0xfee00000, 0xff000000, 0xfffffff0,
	0xffffffff,
};

/* I/O BAR values: the fixed devices (Xen ports, test exit, UART, ACPI PM,
 * CF8), the PCI I/O window and its end, probes. */
static const uint32_t io_spots[] = {
	0x0001, 0x0011, 0x00f5, 0x0301, 0x03f9, 0x0601, 0x0cf9, 0xc001,
	0xc101, 0xff01, 0xfffd, 0xffffffff,
};

static uint64_t rnd(struct fuzz *f)
{
	uint64_t x = f->state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	f->state = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* Mostly a target, else any function on the buses or one bus past. */
static uint32_t pick_bdf(const struct fuzz *f, uint64_t r)
{
	unsigned int nbus = f->c->buses < 256 ? f->c->buses + 1 : 256;

	if ((r & 3) && f->c->ntargets)
		return f->c->targets[(r >> 2) % f->c->ntargets];
	return PCI_BDF((r >> 8) % nbus, r >> 19, r >> 24);
}

/* Half the header, then capabilities, then extended space. */
static unsigned int pick_reg(uint64_t r)
{
	switch (r & 3) {
	case 0:
	case 1:	return (r >> 2) & 0x3f;
	case 2:	return (r >> 2) & 0xff;
	default: return (r >> 2) & 0xfff;
	}
}

static uint64_t pick_val(uint64_t r, uint64_t v)
{
	switch (r & 3) {
	case 0:	return ~0ull;
	case 1:	return 0;
	default: return v;
	}
}

static void cf8_op(struct fuzz *f)
{
	uint64_t r = rnd(f), v = rnd(f);
	unsigned int len = 1u << ((r >> 40) % 3);
	unsigned int reg = pick_reg(r >> 32) & ~(len - 1);
	uint32_t bdf = pick_bdf(f, r);

	f->st->cf8++;
	if ((r >> 44) & 3)
		pci_cf8_write(bdf, reg, (uint32_t)pick_val(r >> 48, v), len);
	else
		(void)pci_cf8_read(bdf, reg, len);
}

static void mmio_op(uint64_t a, unsigned int len, bool write, uint64_t v)
{
	switch (len | (write ? 0x10 : 0)) {
	case 0x01: (void)mmio_read8(a); break;
	case 0x02: (void)mmio_read16(a); break;
	case 0x04: (void)mmio_read32(a); break;
	case 0x08: (void)mmio_read64(a); break;
	case 0x11: mmio_write8(a, (uint8_t)v); break;
	case 0x12: mmio_write16(a, (uint16_t)v); break;
	case 0x14: mmio_write32(a, (uint32_t)v); break;
	default: mmio_write64(a, v); break;
	}
}

/* Inside the window or one page past its end; one in eight unaligned. */
static void ecam_op(struct fuzz *f, unsigned int len)
{
	uint64_t r = rnd(f), v = rnd(f);
	uint64_t limit = f->c->ecam_size + 4096;
	uint64_t off = (uint64_t)pick_bdf(f, r) << 12 | pick_reg(r >> 32);

	if (off >= limit)
		off = f->c->ecam_size + (off & 0xfff);
	if ((r >> 46) & 7)
		off &= ~(uint64_t)(len - 1);
	f->st->ecam++;
	mmio_op(PCI_ECAM_BASE + off, len, (r >> 50) & 3,
		pick_val(r >> 52, v));
}

static void cfg_write(const struct fuzz *f, bool ecam, uint32_t bdf,
		      unsigned int reg, uint32_t v, unsigned int len)
{
	if (ecam && f->c->ecam_size)
		pci_ecam_write(bdf, reg, v, len);
	else
		pci_cf8_write(bdf, reg, v, len);
}

static uint32_t target(const struct fuzz *f, uint64_t r)
{
	return f->c->ntargets ? f->c->targets[r % f->c->ntargets] : 0;
}

/* A BAR gets an interesting value, sometimes only one byte or word of
 * it (the BAR then decodes at an intermediate address). */
static void bar_op(struct fuzz *f)
{
	uint64_t r = rnd(f), v = rnd(f);
	unsigned int reg = PCI_BASE_ADDRESS_0 + 4 * ((r >> 8) % PCI_NUM_BARS);
	unsigned int len = 4;
	uint32_t val;

	switch ((r >> 12) & 3) {
	case 0:	val = mem_spots[(r >> 16) % ARRAY_LEN(mem_spots)]; break;
	case 1:	val = io_spots[(r >> 16) % ARRAY_LEN(io_spots)]; break;
	case 2:	val = 0xffffffffu; break;
	default: val = (uint32_t)v; break;
	}
	if (!((r >> 24) & 7)) {
		len = 1u << ((r >> 27) & 1);
		reg += (r >> 28) & (4 - len);
		val >>= 8 * (reg & 3);
	}
	f->st->bar++;
	cfg_write(f, (r >> 32) & 1, target(f, r), reg, val, len);
}

static void command_op(struct fuzz *f)
{
	uint64_t r = rnd(f);
	uint32_t cmd;

	switch (r & 3) {
	case 0:	cmd = PCI_COMMAND_IO | PCI_COMMAND_MEMORY; break;
	case 1:	cmd = 0; break;
	default: cmd = (uint32_t)(r >> 16) & 0xffff; break;
	}
	f->st->command++;
	cfg_write(f, (r >> 8) & 1, target(f, r >> 2), PCI_COMMAND, cmd, 2);
}

static void port_op(uint16_t port, unsigned int len, bool write, uint32_t v)
{
	switch (len | (write ? 0x10 : 0)) {
	case 0x01: (void)inb(port); break;
	case 0x02: (void)inw(port); break;
	case 0x04: (void)inl(port); break;
	case 0x11: outb(port, (uint8_t)v); break;
	case 0x12: outw(port, (uint16_t)v); break;
	default: outl(port, v); break;
	}
}

/* Any width at any of CF8-CFF, except writes that touch 0xCF9 other than
 * the dword address-register write. */
static void cf8_raw_op(struct fuzz *f)
{
	uint64_t r = rnd(f);
	uint16_t port = (uint16_t)(PCI_CONF1_ADDR_PORT + (r & 7));
	unsigned int len = 1u << ((r >> 3) % 3);
	bool write = (r >> 5) & 1;

	if (write && port <= CF9_PORT && port + len > CF9_PORT &&
	    !(port == PCI_CONF1_ADDR_PORT && len == 4))
		write = false;
	f->st->cf8++;
	port_op(port, len, write, (uint32_t)(r >> 32));
}

static void fixed_port_op(struct fuzz *f)
{
	uint64_t r = rnd(f);

	if (!f->c->port_len)
		return;
	f->st->ports++;
	port_op((uint16_t)(f->c->port + (r >> 8) % f->c->port_len),
		1u << ((r >> 3) % 3), (r >> 5) & 3, (uint32_t)(r >> 32));
}

/* Through a target's BAR, but only where a BAR can never hide RAM: the
 * PCI I/O window and the 32-bit PCI memory window. */
static void bar_window_op(struct fuzz *f)
{
	uint64_t r = rnd(f);
	unsigned int reg = PCI_BASE_ADDRESS_0 + 4 * ((r >> 8) % PCI_NUM_BARS);
	uint32_t bdf = target(f, r);
	uint32_t bar = pci_cf8_read(bdf, reg, 4);
	bool write = (r >> 5) & 3;

	if (bar == 0xffffffffu && f->c->ecam_size)
		bar = (uint32_t)pci_ecam_read(bdf, reg, 4);
	if (bar & PCI_BASE_ADDRESS_SPACE_IO) {
		uint32_t port = (bar & PCI_BASE_ADDRESS_IO_MASK) +
				((r >> 16) & 0xff);

		if (port < LAYOUT_PCI_IO_BASE || port > 0xfffc)
			return;
		f->st->ports++;
		port_op((uint16_t)port, 1u << ((r >> 3) % 3), write,
			(uint32_t)(r >> 32));
	} else {
		uint64_t a = (bar & PCI_BASE_ADDRESS_MEM_MASK) +
			     ((r >> 16) & 0xff8);

		if (a < LAYOUT_PCI32_BASE || a + 8 > LAYOUT_ECAM_BASE)
			return;
		f->st->ports++;
		mmio_op(a, 4u << ((r >> 3) & 1), write, r >> 24);
	}
}

static uint32_t canary(const struct pci_fuzz_conf *c, unsigned int i)
{
	return (uint32_t)(c->seed * 0x9e3779b97f4a7c15ull >> 32) ^ i;
}

/* Plants the canaries (check = false) or counts the changed ones. */
static unsigned int canaries(const struct pci_fuzz_conf *c, bool check)
{
	unsigned int bad = 0;

	for (unsigned int i = 0; i < 2 * c->canary_n; i++) {
		uint64_t a = c->canary_base + (i / 2) * c->canary_step +
			     (i & 1) * (c->canary_step / 2);

		if (!check)
			mmio_write32(a, canary(c, i));
		else
			bad += mmio_read32(a) != canary(c, i);
	}
	return bad;
}

void pci_fuzz_run(const struct pci_fuzz_conf *c, struct pci_fuzz_stats *st)
{
	struct fuzz f = { c, st, c->seed ? c->seed : 1 };

	memset(st, 0, sizeof(*st));
	canaries(c, false);
	for (uint64_t i = 0; i < c->count; i++) {
		switch (rnd(&f) & 15) {
		case 0: case 1: case 2: case 3:
			cf8_op(&f);
			break;
		case 4: case 5: case 6:
			ecam_op(&f, 1u << (rnd(&f) % 3));
			break;
		case 7:
			ecam_op(&f, 8);
			break;
		case 8: case 9: case 10:
			bar_op(&f);
			break;
		case 11:
			command_op(&f);
			break;
		case 12:
			cf8_raw_op(&f);
			break;
		case 13:
			fixed_port_op(&f);
			break;
		default:
			bar_window_op(&f);
			break;
		}
	}
	st->canaries_bad = canaries(c, true);
}
