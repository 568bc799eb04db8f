// SPDX-License-Identifier: MIT
/*
 * PCI configuration access for payloads: CF8/CFC, ECAM and BAR sizing.
 */
#include "guest.h"
#include "pci_access.h"

struct pci_ecam_counts pci_ecam_count;

static void cf8_select(uint32_t bdf, unsigned int reg)
{
	outl(PCI_CONF1_ADDR_PORT, PCI_CONF1_ADDRESS(PCI_BDF_BUS(bdf),
						    PCI_BDF_DEVFN(bdf), reg));
}

uint32_t pci_cf8_read(uint32_t bdf, unsigned int reg, unsigned int len)
{
	uint16_t port = (uint16_t)(PCI_CONF1_DATA_PORT + (reg & 3));

	cf8_select(bdf, reg);
	if (len == 1)
		return inb(port);
	if (len == 2)
		return inw(port);
	return inl(port);
}

void pci_cf8_write(uint32_t bdf, unsigned int reg, uint32_t val,
		   unsigned int len)
{
	uint16_t port = (uint16_t)(PCI_CONF1_DATA_PORT + (reg & 3));

	cf8_select(bdf, reg);
	if (len == 1)
		outb(port, (uint8_t)val);
	else if (len == 2)
		outw(port, (uint16_t)val);
	else
		outl(port, val);
}

uint64_t pci_ecam_read(uint32_t bdf, unsigned int reg, unsigned int len)
{
	uint64_t a = pci_ecam_addr(bdf, reg);

	pci_ecam_count.reads++;
	switch (len) {
	case 1:	return mmio_read8(a);
	case 2:	return mmio_read16(a);
	case 4:	return mmio_read32(a);
	default: return mmio_read64(a);
	}
}

void pci_ecam_write(uint32_t bdf, unsigned int reg, uint64_t val,
		    unsigned int len)
{
	uint64_t a = pci_ecam_addr(bdf, reg);

	pci_ecam_count.writes++;
	switch (len) {
	case 1:	mmio_write8(a, (uint8_t)val); break;
	case 2:	mmio_write16(a, (uint16_t)val); break;
	case 4:	mmio_write32(a, (uint32_t)val); break;
	default: mmio_write64(a, val); break;
	}
}

uint32_t pci_cfg_read(enum pci_mech m, uint32_t bdf, unsigned int reg,
		      unsigned int len)
{
	if (m == PCI_MECH_CF8)
		return pci_cf8_read(bdf, reg, len);
	return (uint32_t)pci_ecam_read(bdf, reg, len);
}

void pci_cfg_write(enum pci_mech m, uint32_t bdf, unsigned int reg,
		   uint32_t val, unsigned int len)
{
	if (m == PCI_MECH_CF8)
		pci_cf8_write(bdf, reg, val, len);
	else
		pci_ecam_write(bdf, reg, val, len);
}

/* Writes all-ones to one BAR dword, returns what reads back, restores. */
static uint32_t probe_dword(enum pci_mech m, uint32_t bdf, unsigned int reg)
{
	uint32_t saved = pci_cfg_read(m, bdf, reg, 4);
	uint32_t v;

	pci_cfg_write(m, bdf, reg, 0xffffffffu, 4);
	v = pci_cfg_read(m, bdf, reg, 4);
	pci_cfg_write(m, bdf, reg, saved, 4);
	return v;
}

int pci_bar_probe(enum pci_mech m, uint32_t bdf, int idx,
		  struct pci_bar_info *out)
{
	unsigned int reg = PCI_BASE_ADDRESS_0 + 4 * (unsigned int)idx;
	uint32_t lo = pci_cfg_read(m, bdf, reg, 4);
	uint64_t mask;

	memset(out, 0, sizeof(*out));
	out->raw_lo = probe_dword(m, bdf, reg);
	out->io = out->raw_lo & PCI_BASE_ADDRESS_SPACE_IO;
	if (out->io) {
		out->addr = lo & PCI_BASE_ADDRESS_IO_MASK;
		mask = out->raw_lo & PCI_BASE_ADDRESS_IO_MASK & 0xffffu;
		out->size = mask ? (~mask & 0xffffu) + 1 : 0;
		return 1;
	}
	out->prefetch = out->raw_lo & PCI_BASE_ADDRESS_MEM_PREFETCH;
	out->is64 = (out->raw_lo & PCI_BASE_ADDRESS_MEM_TYPE_MASK) ==
		    PCI_BASE_ADDRESS_MEM_TYPE_64 && idx < PCI_NUM_BARS - 1;
	out->addr = lo & PCI_BASE_ADDRESS_MEM_MASK;
	mask = out->raw_lo & PCI_BASE_ADDRESS_MEM_MASK;
	if (out->is64) {
		out->addr |= (uint64_t)pci_cfg_read(m, bdf, reg + 4, 4) << 32;
		out->raw_hi = probe_dword(m, bdf, reg + 4);
		mask |= (uint64_t)out->raw_hi << 32;
		out->size = mask ? ~mask + 1 : 0;
		return 2;
	}
	out->size = mask ? (~mask & 0xffffffffull) + 1 : 0;
	return 1;
}
