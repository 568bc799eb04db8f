// SPDX-License-Identifier: MIT
/*
 * The /pci node: config access (ECAM window, CF8/CFC), the bus range and
 * the windows BARs are placed in.  A missing property is a malformed tree
 * (ABI_FW_FAIL_FDT); a window that cannot work -- overlapping RAM, the
 * APICs or another window, misaligned, out of its address space -- is
 * ABI_FW_FAIL_WINDOW.  Checked here once, so the PCI, MTRR and ACPI code
 * can trust the numbers.
 */
#include <libfdt.h>

#include "firmware/lib/abi.h"
#include "firmware/dt_pci.h"
#include "firmware/dt_prop.h"
#include "firmware/machine.h"
#include "firmware/print.h"

#define fail(...)	fw_fail(ABI_FW_FAIL_FDT, __VA_ARGS__)
#define bad(...)	fw_fail(ABI_FW_FAIL_WINDOW, __VA_ARGS__)

#define FOUR_GIB	0x100000000ull
#define MIB		0x100000ull
#define IO_END		0x10000ull
#define PAGE		0x1000ull

static void window(const struct prop *p, struct mem_range *r, bool *seen)
{
	uint64_t v[2];

	prop_u64s(p, v, 2);
	*r = (struct mem_range){ v[0], v[1] };
	*seen = true;
}

void machine_pci_prop(struct machine *m, const struct prop *p,
		      struct pci_seen *seen)
{
	struct machine_pci *pci = &m->pci;

	if (prop_is(p, "compatible")) {
		if (!fdt_stringlist_contains(p->val, p->len, ABI_PCI_COMPATIBLE))
			fail("/%s is not compatible with \"%s\"", ABI_PCI_NODE,
			     ABI_PCI_COMPATIBLE);
		seen->compatible = true;
	} else if (prop_is(p, ABI_PROP_BUS_RANGE)) {
		if (p->len != 8)
			fail("%s must be <first last>", ABI_PROP_BUS_RANGE);
		if (fdt32_ld(p->val) != 0 ||
		    fdt32_ld((const fdt32_t *)p->val + 1) > 255)
			fail("%s must be <0 N>, N <= 255", ABI_PROP_BUS_RANGE);
		pci->bus_last = fdt32_ld((const fdt32_t *)p->val + 1);
		seen->bus_range = true;
	} else if (prop_is(p, ABI_PROP_ECAM)) {
		window(p, &pci->ecam, &pci->has_ecam);
	} else if (prop_is(p, ABI_PROP_PIO)) {
		pci->pio = prop_u32(p) != 0;
		seen->pio = true;
	} else if (prop_is(p, ABI_PROP_IO_WINDOW)) {
		window(p, &pci->io, &seen->io);
	} else if (prop_is(p, ABI_PROP_MEM32_WINDOW)) {
		window(p, &pci->mem32, &seen->mem32);
	} else if (prop_is(p, ABI_PROP_MEM64_WINDOW)) {
		window(p, &pci->mem64, &seen->mem64);
	}
}

static bool overlaps(const struct mem_range *a, const struct mem_range *b)
{
	return a->size && b->size && a->start < b->start + b->size &&
	       b->start < a->start + a->size;
}

static bool overlaps_ram(const struct machine *m, const struct mem_range *r)
{
	for (unsigned int i = 0; i < m->n_ram; i++) {
		struct mem_range ram = { m->ram[i].addr, m->ram[i].size };

		if (overlaps(&ram, r))
			return true;
	}
	return false;
}

/* A 32-bit MMIO range: non-empty, aligned to align, below the APICs, not
 * on RAM. */
static void check_mmio32(const struct machine *m, const char *what,
			 const struct mem_range *r, uint64_t align)
{
	if (!r->size || (r->start | r->size) & (align - 1) ||
	    r->start > MACHINE_MMIO_TOP || r->size > MACHINE_MMIO_TOP - r->start)
		bad("%s [0x%llx, +0x%llx) must be %llu KiB aligned and end "
		    "below 0x%x", what, (unsigned long long)r->start,
		    (unsigned long long)r->size,
		    (unsigned long long)(align >> 10), MACHINE_MMIO_TOP);
	if (overlaps_ram(m, r))
		bad("%s [0x%llx, +0x%llx) overlaps RAM", what,
		    (unsigned long long)r->start, (unsigned long long)r->size);
}

static void check_io(const struct machine_pci *pci)
{
	const struct mem_range *r = &pci->io;

	if (r->size < 4 || r->start < MACHINE_PCI_IO_MIN ||
	    r->start > IO_END || r->size > IO_END - r->start)
		bad("%s [0x%llx, +0x%llx) must lie in [0x%x, 0x10000)",
		    ABI_PROP_IO_WINDOW, (unsigned long long)r->start,
		    (unsigned long long)r->size, MACHINE_PCI_IO_MIN);
}

static void check_ecam(const struct machine *m)
{
	const struct machine_pci *pci = &m->pci;
	uint64_t need = (uint64_t)(pci->bus_last + 1) * MIB;

	check_mmio32(m, ABI_PROP_ECAM, &pci->ecam, MIB);
	if (pci->ecam.size < need)
		bad("%s is 0x%llx bytes, buses 0-%u need 0x%llx",
		    ABI_PROP_ECAM, (unsigned long long)pci->ecam.size,
		    pci->bus_last, (unsigned long long)need);
	if (overlaps(&pci->ecam, &pci->mem32))
		bad("%s overlaps %s", ABI_PROP_ECAM, ABI_PROP_MEM32_WINDOW);
}

static void check_mem64(const struct machine *m)
{
	const struct mem_range *r = &m->pci.mem64;
	uint64_t floor = m->high_ram_end > FOUR_GIB ? m->high_ram_end
						    : FOUR_GIB;

	if (!r->size)
		return;
	if ((r->start | r->size) & (PAGE - 1) || r->start < floor ||
	    r->size > UINT64_MAX - r->start)
		bad("%s [0x%llx, +0x%llx) must be page aligned, above 4 GiB "
		    "and above RAM", ABI_PROP_MEM64_WINDOW,
		    (unsigned long long)r->start, (unsigned long long)r->size);
}

void machine_pci_check(const struct machine *m, const struct pci_seen *s)
{
	const struct machine_pci *pci = &m->pci;

	if (!s->node)
		fail("no /%s node", ABI_PCI_NODE);
	if (!s->compatible)
		fail("/%s has no compatible \"%s\"", ABI_PCI_NODE,
		     ABI_PCI_COMPATIBLE);
	if (!s->bus_range || !s->pio || !s->io || !s->mem32 || !s->mem64)
		fail("/%s lacks one of %s, %s, %s, %s, %s", ABI_PCI_NODE,
		     ABI_PROP_BUS_RANGE, ABI_PROP_PIO, ABI_PROP_IO_WINDOW,
		     ABI_PROP_MEM32_WINDOW, ABI_PROP_MEM64_WINDOW);
	if (!pci->has_ecam && !pci->pio)
		fail("/%s offers neither ECAM nor CF8/CFC", ABI_PCI_NODE);
	check_io(pci);
	check_mmio32(m, ABI_PROP_MEM32_WINDOW, &pci->mem32, PAGE);
	if (pci->has_ecam)
		check_ecam(m);
	check_mem64(m);
	/* The MTRR hole runs from the lowest window up: no RAM above it
	 * below 4 GiB (mtrr.c). */
	if (m->low_ram_end > pci->mem32.start ||
	    (pci->has_ecam && m->low_ram_end > pci->ecam.start))
		bad("RAM below 4 GiB ends at 0x%llx, above the PCI windows",
		    (unsigned long long)m->low_ram_end);
}
