// SPDX-License-Identifier: MIT
/* The pvpanic PCI device; see pvpanic.h. */
#include <stdlib.h>
#include <string.h>

#include "devices/pvpanic.h"

#define PCI_CLASS_SYSTEM_OTHER	0x088000
#define EVENTS	(PVPANIC_PANICKED | PVPANIC_CRASH_LOADED)

struct pvpanic {
	struct pci_fn fn;
	pvpanic_fn report;
	void *ctx;
};

static void bar_read(void *opaque, uint64_t off, uint8_t *data, uint32_t len)
{
	(void)opaque;
	memset(data, 0, len);
	if (off == 0)
		data[0] = EVENTS;
}

static void bar_write(void *opaque, uint64_t off, const uint8_t *data,
		      uint32_t len)
{
	struct pvpanic *p = opaque;
	uint8_t ev = data[0] & EVENTS;

	if (off == 0 && len && ev)
		p->report(p->ctx, ev);
}

static const struct bus_ops bar_ops = {
	.read = bar_read,
	.write = bar_write,
};

static void release(struct pci_fn *fn)
{
	free(fn->opaque);
}

int pvpanic_create(struct pci_bus *bus, uint32_t bdf, pvpanic_fn report,
		   void *ctx)
{
	const struct pci_fn_id id = {
		.vendor = PVPANIC_VENDOR, .device = PVPANIC_DEVICE,
		.subsys_vendor = 0x1af4, .subsys_id = 0x1100,
		.class_code = PCI_CLASS_SYSTEM_OTHER, .revision = 1,
	};
	struct pvpanic *p = calloc(1, sizeof(*p));
	uint8_t *page = pci_bus_alloc_page(bus);
	struct pci_bar_desc bar = {
		.kind = PCI_BAR_MEM32, .size = PVPANIC_BAR_SIZE,
		.ops = &bar_ops, .opaque = p, .name = "pvpanic",
	};

	if (!p || !page || pci_fn_init(&p->fn, page, &id, "pvpanic") ||
	    pci_fn_add_bar(&p->fn, 0, &bar))
		goto fail;
	p->report = report;
	p->ctx = ctx;
	p->fn.opaque = p;
	p->fn.release = release;
	if (pci_bus_add_function(bus, bdf, &p->fn) == 0)
		return 0;
fail:
	pci_bus_free_page(bus, page);
	free(p);
	return -1;
}
