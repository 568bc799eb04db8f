// SPDX-License-Identifier: MIT
/*
 * The Xen platform device from the guest side (see pci_xen.h).
 */
#include "guest.h"
#include "pci_xen.h"

static const uint32_t bar1_offs[] = {
	0, 0x1000, XEN_PLATFORM_BAR1_SIZE / 2 + 4, XEN_PLATFORM_BAR1_SIZE - 4,
};
#define NOFFS	(sizeof(bar1_offs) / sizeof(bar1_offs[0]))

void xen_platform_log(const char *s)
{
	while (*s)
		outb(XEN_PORT_PROTO, (uint8_t)*s++);
}

uint16_t xen_platform_unplug(uint16_t product, uint32_t build,
			     uint16_t mask)
{
	uint16_t magic;

	outw(XEN_PORT_PROTO, product);
	outl(XEN_PORT_MAGIC, build);
	magic = inw(XEN_PORT_MAGIC);
	outw(XEN_PORT_MAGIC, mask);
	return magic;
}

void xen_platform_place(enum pci_mech m, uint32_t bdf, uint16_t io,
			uint32_t mem)
{
	const uint32_t decode = PCI_COMMAND_IO | PCI_COMMAND_MEMORY;
	uint32_t cmd = pci_cfg_read(m, bdf, PCI_COMMAND, 2);

	pci_cfg_write(m, bdf, PCI_COMMAND, cmd & ~decode, 2);
	pci_cfg_write(m, bdf, PCI_BASE_ADDRESS_0, io, 4);
	pci_cfg_write(m, bdf, PCI_BASE_ADDRESS_0 + 4, mem, 4);
	pci_cfg_write(m, bdf, PCI_COMMAND, cmd | decode, 2);
}

static uint32_t pattern(uint32_t tag, unsigned int i)
{
	return 0xc0ffee00u ^ tag << 8 ^ i;
}

void xen_bar1_fill(uint64_t base, uint32_t tag)
{
	for (unsigned int i = 0; i < NOFFS; i++)
		mmio_write32(base + bar1_offs[i], pattern(tag, i));
}

int xen_bar1_match(uint64_t base, uint32_t tag)
{
	unsigned int hits = 0, ones = 0;

	for (unsigned int i = 0; i < NOFFS; i++) {
		uint32_t v = mmio_read32(base + bar1_offs[i]);

		hits += v == pattern(tag, i);
		ones += v == 0xffffffffu;
	}
	return hits == NOFFS ? 1 : ones == NOFFS ? 0 : -1;
}
