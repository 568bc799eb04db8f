// SPDX-License-Identifier: MIT
/*
 * PCI enumeration, BAR sizing and assignment (see pci.h).
 *
 * Costs on the target host: with minivmm's read-only ECAM window a config
 * read is a plain (emulated) load and a write one VM exit; through CF8/CFC
 * every access is two exits.  So: one read of the ID per slot, the header
 * and interrupt pin only for present functions, COMMAND written only when
 * decoding is on, and each BAR sized with one write and one read (the
 * type bits come back with the size; the original value is not needed,
 * the firmware assigns every BAR).
 */
#include "firmware/cpu.h"
#include "firmware/io.h"
#include "firmware/lib/abi.h"
#include "firmware/lib/pci_regs.h"
#include "firmware/pci.h"
#include "firmware/print.h"
#include "firmware/serial.h"

#define XEN_PLATFORM_VENDOR	0x5853
#define DECODE_BITS		(PCI_COMMAND_IO | PCI_COMMAND_MEMORY)

/* --- config access ---------------------------------------------------- */

static uint32_t ecam_read(const struct pci_access *a, uint16_t bdf,
			  unsigned int reg)
{
	return mmio_read32(a->ecam_base + ((uint64_t)bdf << 12) + reg);
}

static void ecam_write(const struct pci_access *a, uint16_t bdf,
		       unsigned int reg, uint32_t val)
{
	mmio_write32(a->ecam_base + ((uint64_t)bdf << 12) + reg, val);
}

static uint32_t cf8_read(const struct pci_access *a, uint16_t bdf,
			 unsigned int reg)
{
	(void)a;
	outl(PCI_CONF1_ADDR_PORT, PCI_CONF1_ENABLE | (uint32_t)bdf << 8 | reg);
	return inl(PCI_CONF1_DATA_PORT);
}

static void cf8_write(const struct pci_access *a, uint16_t bdf,
		      unsigned int reg, uint32_t val)
{
	(void)a;
	outl(PCI_CONF1_ADDR_PORT, PCI_CONF1_ENABLE | (uint32_t)bdf << 8 | reg);
	outl(PCI_CONF1_DATA_PORT, val);
}

static void access_init(struct pci_access *a, const struct machine_pci *pci)
{
	if (pci->has_ecam)
		*a = (struct pci_access){ ecam_read, ecam_write,
					  pci->ecam.start, "ECAM" };
	else
		*a = (struct pci_access){ cf8_read, cf8_write, 0, "CF8" };
}

/* --- scan and size ------------------------------------------------------ */

static struct bar_req *new_req(struct pci_state *p, struct pci_func *f,
			       unsigned int index)
{
	struct bar_req *r;

	if (p->n_reqs == PCI_MAX_BARS) {
		fw_printf("pci %02x:%02x.%x: more than %u BARs in all, "
			  "left disabled\n", PCI_BDF_BUS(f->bdf),
			  PCI_SLOT(f->bdf), PCI_FUNC(f->bdf), PCI_MAX_BARS);
		f->disabled = true;
		return NULL;
	}
	r = &p->reqs[p->n_reqs++];
	*r = (struct bar_req){ .bdf = f->bdf, .index = (uint8_t)index };
	if (f->vendor == XEN_PLATFORM_VENDOR)
		r->flags = BAR_F_XEN_PLATFORM;
	f->n_reqs++;
	return r;
}

/* Size of an I/O BAR from its probe value; devices that decode 16 bits
 * return zeros in the upper half. */
static uint64_t io_size(uint32_t v)
{
	uint32_t mask = v & PCI_BASE_ADDRESS_IO_MASK;

	if (!(mask >> 16))
		mask |= 0xffff0000u;
	return (uint32_t)(~mask + 1);
}

/* Returns how many BAR registers the BAR at index takes (1 or 2). */
static unsigned int size_bar(struct pci_state *p, struct pci_func *f,
			     unsigned int index)
{
	const struct pci_access *a = &p->acc;
	unsigned int reg = PCI_BASE_ADDRESS_0 + 4 * index;
	uint32_t v, hi = 0xffffffffu;
	struct bar_req *r;
	bool is64;

	a->write(a, f->bdf, reg, 0xffffffffu);
	v = a->read(a, f->bdf, reg);
	if (!v)
		return 1;			/* not implemented */
	is64 = !(v & PCI_BASE_ADDRESS_SPACE_IO) &&
	       (v & PCI_BASE_ADDRESS_MEM_TYPE_MASK) ==
	       PCI_BASE_ADDRESS_MEM_TYPE_64 && index < PCI_NUM_BARS - 1;
	if (is64) {
		a->write(a, f->bdf, reg + 4, 0xffffffffu);
		hi = a->read(a, f->bdf, reg + 4);
	}
	r = new_req(p, f, index);
	if (!r)
		return is64 ? 2 : 1;
	if (v & PCI_BASE_ADDRESS_SPACE_IO) {
		r->is_io = true;
		r->size = io_size(v);
	} else {
		r->is_64 = is64;
		r->prefetchable = v & PCI_BASE_ADDRESS_MEM_PREFETCH;
		/* 32-bit: hi all-ones makes the 64-bit size come out right. */
		r->size = ~((uint64_t)hi << 32 | (v & PCI_BASE_ADDRESS_MEM_MASK))
			  + 1;
	}
	return is64 ? 2 : 1;
}

/* Decoding off, BARs sized.  Bridges are not modelled: left disabled. */
static void size_function(struct pci_state *p, struct pci_func *f)
{
	const struct pci_access *a = &p->acc;
	uint32_t cmd;

	f->first_req = (uint8_t)p->n_reqs;
	f->n_reqs = 0;
	cmd = a->read(a, f->bdf, PCI_COMMAND) & 0xffff;
	f->command = (uint16_t)(cmd & ~DECODE_BITS);
	if (cmd & DECODE_BITS)		/* STATUS half 0: RW1C bits kept */
		a->write(a, f->bdf, PCI_COMMAND, f->command);
	if (f->header != PCI_HEADER_TYPE_NORMAL) {
		f->disabled = true;
		return;
	}
	for (unsigned int i = 0; i < PCI_NUM_BARS; )
		i += size_bar(p, f, i);
}

/* --- enumerate (reads only: ring 3 when config space is memory) -------- */

static void add_function(struct pci_state *p, uint16_t bdf, uint32_t id,
			 uint8_t header)
{
	const struct pci_access *a = &p->acc;
	struct pci_func *f;

	if (p->n_fns == PCI_MAX_FNS) {
		fw_printf("pci %02x:%02x.%x %04x:%04x: more than %u functions,"
			  " left alone\n", PCI_BDF_BUS(bdf), PCI_SLOT(bdf),
			  PCI_FUNC(bdf), id & 0xffff, id >> 16, PCI_MAX_FNS);
		return;
	}
	f = &p->fns[p->n_fns++];
	*f = (struct pci_func){
		.bdf = bdf, .vendor = (uint16_t)id, .device = id >> 16,
		.header = header & PCI_HEADER_TYPE_MASK,
	};
	f->pin = (uint8_t)(a->read(a, bdf, PCI_INTERRUPT_LINE) >> 8);
	if (f->pin > 4)
		f->pin = 0;		/* not a pin: leave it alone */
	f->line = 0xff;
	if (f->pin && PCI_BDF_BUS(bdf) == 0) {
		p->prt_slots |= 1u << PCI_SLOT(bdf);
		f->line = (uint8_t)ABI_PCI_INTX_GSI(PCI_SLOT(bdf), f->pin - 1);
	}
}

static void scan_slot(struct pci_state *p, unsigned int bus, unsigned int dev)
{
	const struct pci_access *a = &p->acc;
	unsigned int nfn = 1;

	for (unsigned int fn = 0; fn < nfn; fn++) {
		uint16_t bdf = (uint16_t)PCI_BDF(bus, dev, fn);
		uint32_t id = a->read(a, bdf, PCI_VENDOR_ID);
		uint8_t header;

		if ((id & 0xffff) == 0xffff || (id & 0xffff) == 0)
			continue;
		header = (uint8_t)(a->read(a, bdf, PCI_CACHE_LINE_SIZE) >> 16);
		if (fn == 0 && (header & PCI_HEADER_TYPE_MFD))
			nfn = 8;
		add_function(p, bdf, id, header);
	}
}

/* Every slot of buses 0..p->bus_last through p->acc (a unit test's fake
 * config space comes in here). */
static void find_functions(void *arg)
{
	struct pci_state *p = arg;

	p->n_fns = 0;
	p->prt_slots = 0;
	for (unsigned int bus = 0; bus <= p->bus_last; bus++)
		for (unsigned int dev = 0; dev < 32; dev++)
			scan_slot(p, bus, dev);
}

static void size_functions(struct pci_state *p)
{
	p->n_reqs = 0;
	for (unsigned int i = 0; i < p->n_fns; i++)
		size_function(p, &p->fns[i]);
}

/* An ECAM read is a load that never exits with minivmm's read-only
 * window: ring 3 runs the 32 loads per bus natively (~7 times faster than
 * emulated ring 0 here; it matters with many buses).  CF8/CFC is port
 * I/O, ring 0 only. */
void pci_scan(struct pci_state *p, const struct machine *m)
{
	access_init(&p->acc, &m->pci);
	p->bus_last = m->pci.bus_last;
	if (m->pci.has_ecam)
		user_call(find_functions, p);
	else
		find_functions(p);
	console_flush();
	size_functions(p);
}

/* --- assign (ring 3) ---------------------------------------------------- */

static const char *bar_kind(const struct bar_req *r)
{
	return r->is_io ? "io" : r->is_64 ? "mem64" : "mem32";
}

static void log_function(const struct pci_func *f, const struct bar_req *reqs)
{
	unsigned int bus = PCI_BDF_BUS(f->bdf), dev = PCI_SLOT(f->bdf);
	unsigned int fn = PCI_FUNC(f->bdf);

	if (f->n_reqs == 0)
		fw_printf("pci %02x:%02x.%x %04x:%04x%s\n", bus, dev, fn,
			  f->vendor, f->device, f->header ?
			  " header type not supported, disabled" : "");
	for (unsigned int i = 0; i < f->n_reqs; i++) {
		const struct bar_req *r = &reqs[f->first_req + i];

		fw_printf("pci %02x:%02x.%x %04x:%04x BAR%u %s%s ", bus, dev,
			  fn, f->vendor, f->device, r->index, bar_kind(r),
			  r->prefetchable ? " pref" : "");
		if (r->status == BAR_PLACED)
			fw_printf("0x%llx+0x%llx\n",
				  (unsigned long long)r->addr,
				  (unsigned long long)r->size);
		else
			fw_printf("+0x%llx: %s, device disabled\n",
				  (unsigned long long)r->size,
				  bar_status_str(r->status));
	}
}

void pci_assign(struct pci_state *p, const struct machine *m)
{
	const struct machine_pci *pci = &m->pci;
	struct bar_windows w = {
		.io = { pci->io.start, pci->io.size },
		.mem32 = { pci->mem32.start, pci->mem32.size },
		.mem64 = { pci->mem64.start, pci->mem64.size },
		.xen_bar_wb = m->xen_bar_wb,
	};

	if (bar_alloc(p->reqs, p->n_reqs, &w, &p->sum) != BAR_OK)
		fw_fail(ABI_FW_FAIL_WINDOW, "PCI windows rejected by the BAR "
			"allocator");
	for (unsigned int i = 0; i < p->n_fns; i++) {
		struct pci_func *f = &p->fns[i];

		for (unsigned int j = 0; j < f->n_reqs; j++)
			if (p->reqs[f->first_req + j].status != BAR_PLACED)
				f->disabled = true;
		log_function(f, p->reqs);
	}
}

/* --- program (ring 0) ---------------------------------------------------- */

static void program_function(const struct pci_access *a,
			     const struct pci_func *f,
			     const struct bar_req *reqs)
{
	uint16_t cmd = f->command;

	for (unsigned int i = 0; i < f->n_reqs; i++) {
		const struct bar_req *r = &reqs[f->first_req + i];
		unsigned int reg = PCI_BASE_ADDRESS_0 + 4 * r->index;
		uint64_t addr = f->disabled ? 0 : r->addr;

		a->write(a, f->bdf, reg, (uint32_t)addr);
		if (r->is_64)
			a->write(a, f->bdf, reg + 4, (uint32_t)(addr >> 32));
		cmd |= r->is_io ? PCI_COMMAND_IO : PCI_COMMAND_MEMORY;
	}
	if (!f->disabled && cmd != f->command)
		a->write(a, f->bdf, PCI_COMMAND, cmd);
	/* The pin and the bytes above it are read-only. */
	if (f->pin)
		a->write(a, f->bdf, PCI_INTERRUPT_LINE, f->line);
}

void pci_program(struct pci_state *p)
{
	for (unsigned int i = 0; i < p->n_fns; i++)
		program_function(&p->acc, &p->fns[i], p->reqs);
}
