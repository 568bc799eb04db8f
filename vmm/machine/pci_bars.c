// SPDX-License-Identifier: MIT
/* BAR moves applied to the buses and memslots (pci_bars.h). */
#include "vmm/machine/pci_bars.h"
#include "vmm/memory.h"

#include <errno.h>
#include <sys/mman.h>

void pci_bars_init(struct pci_bars *b, struct gmem *mem, struct bus *pio,
		   struct bus *mmio)
{
	*b = (struct pci_bars){ .mem = mem, .pio = pio, .mmio = mmio };
}

static const struct pci_ram_bar *ram_bar(const struct pci_bars *b,
					 const struct pci_fn *fn, int idx)
{
	for (unsigned int i = 0; i < b->nram; i++)
		if (b->ram[i].fn == fn && b->ram[i].idx == idx)
			return &b->ram[i];
	return NULL;
}

static bool is_io(const struct pci_bar *bar)
{
	return bar->desc.kind == PCI_BAR_IO;
}

static void unmap_bar(struct pci_bars *b, const struct pci_ram_bar *ram,
		      const struct pci_bar *bar, uint64_t addr)
{
	if (ram) {
		gmem_place_region(b->mem, ram->region, addr, false);
		return;
	}
	bus_unregister(is_io(bar) ? b->pio : b->mmio, addr, bar->desc.opaque);
}

/* A memory BAR may not cover guest memory or another MMIO range, and a
 * RAM-backed one may not cover MMIO ranges either (a memslot would hide
 * them from exits). */
static int map_bar(struct pci_bars *b, const struct pci_ram_bar *ram,
		   const struct pci_bar *bar, uint64_t addr)
{
	const struct pci_bar_desc *d = &bar->desc;

	if (ram) {
		if (bus_overlaps(b->mmio, addr, d->size))
			return -1;
		return gmem_place_region(b->mem, ram->region, addr, true);
	}
	if (is_io(bar))
		return bus_register(b->pio, addr, d->size, d->ops, d->opaque,
				    d->name);
	if (gmem_overlaps(b->mem, addr, d->size))
		return -1;
	return bus_register(b->mmio, addr, d->size, d->ops, d->opaque,
			    d->name);
}

int pci_bars_changed(struct pci_fn *fn, int idx, uint64_t old_addr,
		     uint64_t new_addr, bool enabled)
{
	struct pci_bars *b = fn->bar_ctx;
	const struct pci_bar *bar = &fn->bars[idx];
	const struct pci_ram_bar *ram = bar->desc.ram ?
					ram_bar(b, fn, idx) : NULL;

	if (old_addr != PCI_BAR_UNMAPPED)
		unmap_bar(b, ram, bar, old_addr);
	if (!enabled)
		return 0;
	/* A RAM BAR without its memory (pci_bars_back_ram not run) cannot
	 * decode: refused like an overlap. */
	if ((bar->desc.ram && !ram) || map_bar(b, ram, bar, new_addr) < 0) {
		b->refused++;
		return -1;
	}
	return 0;
}

/* Unmapped: the BAR decodes nowhere until the guest says. */
static int back_one(struct pci_bars *b, const struct pci_fn *fn, int idx)
{
	const struct pci_bar_desc *d = &fn->bars[idx].desc;
	struct pci_ram_bar *r = &b->ram[b->nram];
	void *host;

	if (b->nram == PCI_BARS_MAX_RAM) {
		errno = ENOSPC;
		return -1;
	}
	host = mmap(NULL, d->size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (host == MAP_FAILED)
		return -1;
	*r = (struct pci_ram_bar){ fn, idx, host, d->size, -1 };
	b->nram++;
	r->region = gmem_add_unmapped(b->mem, d->size, host, d->name);
	return r->region < 0 ? -1 : 0;
}

int pci_bars_back_ram(struct pci_bars *b, struct pci_bus *bus,
		      unsigned int nbuses)
{
	for (uint32_t bdf = 0; bdf < nbuses * 256u; bdf++) {
		const struct pci_fn *fn = pci_bus_get(bus, bdf);

		for (int i = 0; fn && i < PCI_NUM_BARS; i++)
			if (fn->bars[i].desc.ram && !ram_bar(b, fn, i) &&
			    back_one(b, fn, i) < 0)
				return -1;
	}
	return 0;
}

uint8_t *pci_bars_ram(const struct pci_bars *b, const struct pci_fn *fn,
		      int idx)
{
	const struct pci_ram_bar *r = ram_bar(b, fn, idx);

	return r ? r->host : NULL;
}

int pci_bars_check(struct pci_bus *bus, unsigned int nbuses, FILE *out)
{
	int problems = 0;

	for (uint32_t bdf = 0; bdf < nbuses * 256u; bdf++) {
		struct pci_fn *fn = pci_bus_get(bus, bdf);

		for (int i = 0; fn && i < PCI_NUM_BARS; i++) {
			const struct pci_bar *b = &fn->bars[i];
			uint64_t addr;
			bool dec = pci_fn_bar_decoded(fn, i, &addr);

			if (b->desc.kind == PCI_BAR_NONE || !b->mapped)
				continue;
			if (dec && b->map_addr == addr)
				continue;
			fprintf(out, "pci: %s BAR%d mapped at 0x%llx but decodes "
				"%s0x%llx\n", fn->name, i,
				(unsigned long long)b->map_addr,
				dec ? "at " : "nowhere, register ",
				(unsigned long long)addr);
			problems++;
		}
	}
	return problems;
}

void pci_bars_destroy(struct pci_bars *b)
{
	for (unsigned int i = 0; i < b->nram; i++)
		munmap(b->ram[i].host, b->ram[i].size);
	b->nram = 0;
}
