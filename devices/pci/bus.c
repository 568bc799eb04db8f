// SPDX-License-Identifier: MIT
/*
 * PCI segment 0: function table, CF8/CFC and ECAM decoding.  Every access
 * ends up as an "ECAM offset" (bdf << 12 | reg) split into pieces of 1, 2
 * or 4 bytes that stay inside one function's page, so both mechanisms
 * share one path and give identical results.
 */
#include <stdlib.h>
#include <string.h>

#include "devices/pci/bus.h"
#include "firmware/lib/le.h"

/* Bits 1:0 are kept and ORed into the register offset, as QEMU does
 * (kvm-unit-tests read a device ID with CF8 = ... | 2 and a 16-bit CFC
 * read); reserved bits 30:28 read 0. */
#define CF8_BASE_MASK	(PCI_CONF1_ENABLE | 0x00ffffffu)

static void *default_alloc(void *ctx)
{
	void *p = aligned_alloc(PCI_CFG_SIZE, PCI_CFG_SIZE);

	(void)ctx;
	if (p)
		memset(p, 0, PCI_CFG_SIZE);
	return p;
}

static void default_free(void *ctx, void *page)
{
	(void)ctx;
	free(page);
}

static unsigned int nfns(const struct pci_bus *bus)
{
	return bus->conf.nbuses * PCI_DEVFN_MAX;
}

struct pci_bus *pci_bus_create(const struct pci_bus_config *conf)
{
	struct pci_bus *bus;

	if (!conf || conf->nbuses < 1 || conf->nbuses > PCI_BUS_MAX)
		return NULL;
	bus = calloc(1, sizeof(*bus));
	if (!bus)
		return NULL;
	bus->conf = *conf;
	if (!bus->conf.alloc_page) {
		bus->conf.alloc_page = default_alloc;
		bus->conf.free_page = default_free;
	}
	bus->fns = calloc(nfns(bus), sizeof(*bus->fns));
	if (!bus->fns) {
		free(bus);
		return NULL;
	}
	pthread_mutex_init(&bus->lock, NULL);
	return bus;
}

void pci_bus_destroy(struct pci_bus *bus)
{
	if (!bus)
		return;
	for (unsigned int i = 0; i < nfns(bus); i++) {
		struct pci_fn *fn = bus->fns[i];
		uint8_t *page;

		if (!fn)
			continue;
		page = fn->cfg;
		if (fn->release)
			fn->release(fn);
		pci_bus_free_page(bus, page);
	}
	pthread_mutex_destroy(&bus->lock);
	free(bus->fns);
	free(bus);
}

uint8_t *pci_bus_alloc_page(struct pci_bus *bus)
{
	return bus->conf.alloc_page(bus->conf.page_ctx);
}

void pci_bus_free_page(struct pci_bus *bus, uint8_t *page)
{
	if (page && bus->conf.free_page)
		bus->conf.free_page(bus->conf.page_ctx, page);
}

static void update_multifunction(struct pci_bus *bus, uint32_t bdf)
{
	uint32_t first = bdf & ~7u;
	int n = 0;

	for (uint32_t i = first; i < first + 8; i++)
		n += bus->fns[i] != NULL;
	if (n < 2)
		return;
	for (uint32_t i = first; i < first + 8; i++) {
		struct pci_fn *fn = bus->fns[i];

		if (fn)
			fn->cfg[PCI_HEADER_TYPE] |= PCI_HEADER_TYPE_MFD;
	}
}

int pci_bus_add_function(struct pci_bus *bus, uint32_t bdf,
			 struct pci_fn *fn)
{
	if (!fn || !fn->cfg || bdf >= nfns(bus) || bus->fns[bdf])
		return -1;
	bus->fns[bdf] = fn;
	fn->bdf = bdf;
	if (!fn->bar_changed)
		pci_fn_set_bar_handler(fn, bus->conf.bar_changed,
				       bus->conf.bar_ctx);
	update_multifunction(bus, bdf);
	return 0;
}

struct pci_fn *pci_bus_get(const struct pci_bus *bus, uint32_t bdf)
{
	return bdf < nfns(bus) ? bus->fns[bdf] : NULL;
}

/* One piece: n is 1, 2 or 4 and [reg, reg+n) lies inside one page. */
static void piece(struct pci_bus *bus, uint64_t fidx, unsigned int reg,
		  uint8_t *data, unsigned int n, bool is_write)
{
	struct pci_fn *fn = fidx < nfns(bus) ? bus->fns[fidx] : NULL;

	if (is_write) {
		if (fn)
			pci_fn_write(fn, reg, (uint32_t)le_get(data, n), n);
		return;
	}
	if (fn)
		le_put(data, pci_fn_read(fn, reg, n), n);
	else
		memset(data, 0xff, n);
}

static void ecam_access(struct pci_bus *bus, uint64_t off, uint8_t *data,
			uint64_t len, bool is_write)
{
	while (len) {
		unsigned int reg = off & (PCI_CFG_SIZE - 1);
		unsigned int n = len >= 4 ? 4 : len >= 2 ? 2 : 1;

		while (reg + n > PCI_CFG_SIZE)
			n >>= 1;
		piece(bus, off >> 12, reg, data, n, is_write);
		off += n;
		data += n;
		len -= n;
	}
}

void pci_bus_cfg_access(struct pci_bus *bus, uint32_t bdf, unsigned int reg,
			uint8_t *data, uint32_t len, bool is_write)
{
	if (reg >= PCI_CFG_SIZE) {
		if (!is_write)
			memset(data, 0xff, len);
		return;
	}
	pthread_mutex_lock(&bus->lock);
	ecam_access(bus, (uint64_t)bdf << 12 | reg, data, len, is_write);
	pthread_mutex_unlock(&bus->lock);
}

uint32_t pci_bus_cfg_read(struct pci_bus *bus, uint32_t bdf,
			  unsigned int reg, unsigned int len)
{
	uint8_t data[4];

	if (len != 1 && len != 2 && len != 4)
		return 0xffffffffu;
	pci_bus_cfg_access(bus, bdf, reg, data, len, false);
	return (uint32_t)le_get(data, len);
}

void pci_bus_cfg_write(struct pci_bus *bus, uint32_t bdf, unsigned int reg,
		       uint32_t val, unsigned int len)
{
	uint8_t data[4];

	if (len != 1 && len != 2 && len != 4)
		return;
	le_put(data, val, len);
	pci_bus_cfg_access(bus, bdf, reg, data, len, true);
}

static uint32_t cf8_mask(const struct pci_bus *bus)
{
	return CF8_BASE_MASK |
	       (bus->conf.cf8_no_ext_reg ? 0 : PCI_CONF1_EXT_REG_MASK);
}

/* Offsets 0-3: the address register takes dword accesses only. */
static void cf8_access(struct pci_bus *bus, unsigned int off, uint8_t *data,
		       uint32_t len, bool is_write)
{
	if (off == 0 && len == 4) {
		if (is_write)
			bus->cf8 = le32_get(data) & cf8_mask(bus);
		else
			le32_put(data, bus->cf8);
		return;
	}
	if (len > 4 - off)
		len = 4 - off;
	if (bus->conf.cf8_other)
		bus->conf.cf8_other(bus->conf.cf8_other_ctx, off, data, len,
				    is_write);
	else if (!is_write)
		memset(data, 0xff, len);
}

/* Offsets 4-7: the data window onto the register CF8 selects. */
static void cfc_access(struct pci_bus *bus, unsigned int off, uint8_t *data,
		       uint32_t len, bool is_write)
{
	uint32_t a = bus->cf8;
	unsigned int reg;

	if (!(a & PCI_CONF1_ENABLE)) {
		if (!is_write)
			memset(data, 0xff, len);
		return;
	}
	reg = (a & PCI_CONF1_REG_MASK) | ((a & 3) | (off - 4)) |
	      ((a & PCI_CONF1_EXT_REG_MASK) >> PCI_CONF1_EXT_REG_SHIFT);
	ecam_access(bus, (uint64_t)((a >> 8) & 0xffff) << 12 | reg, data, len,
		    is_write);
}

static void pio_access(void *opaque, uint64_t off, uint8_t *data,
		       uint32_t len, bool is_write)
{
	struct pci_bus *bus = opaque;

	if (off >= PCI_BUS_PIO_LEN || len == 0) {
		if (!is_write)
			memset(data, 0xff, len);
		return;
	}
	if (len > PCI_BUS_PIO_LEN - off) {
		/* Clip to the window; the rest reads as nothing there. */
		if (!is_write)
			memset(data, 0xff, len);
		len = (uint32_t)(PCI_BUS_PIO_LEN - off);
	}
	pthread_mutex_lock(&bus->lock);
	if (off < 4)
		cf8_access(bus, (unsigned int)off, data, len, is_write);
	else
		cfc_access(bus, (unsigned int)off, data, len, is_write);
	pthread_mutex_unlock(&bus->lock);
}

static void pio_read(void *opaque, uint64_t off, uint8_t *data, uint32_t len)
{
	pio_access(opaque, off, data, len, false);
}

static void pio_write(void *opaque, uint64_t off, const uint8_t *data,
		      uint32_t len)
{
	uint8_t buf[8];

	/* Handlers below take one buffer for both directions. */
	if (len > sizeof(buf))
		len = sizeof(buf);
	memcpy(buf, data, len);
	pio_access(opaque, off, buf, len, true);
}

const struct bus_ops pci_bus_pio_ops = {
	.read = pio_read,
	.write = pio_write,
};

uint64_t pci_bus_ecam_size(const struct pci_bus *bus)
{
	return (uint64_t)bus->conf.nbuses << PCI_ECAM_BUS_SHIFT;
}

static void ecam_read(void *opaque, uint64_t off, uint8_t *data, uint32_t len)
{
	struct pci_bus *bus = opaque;

	if (off >= pci_bus_ecam_size(bus) ||
	    len > pci_bus_ecam_size(bus) - off) {
		memset(data, 0xff, len);
		if (off >= pci_bus_ecam_size(bus))
			return;
		len = (uint32_t)(pci_bus_ecam_size(bus) - off);
	}
	pthread_mutex_lock(&bus->lock);
	ecam_access(bus, off, data, len, false);
	pthread_mutex_unlock(&bus->lock);
}

static void ecam_write(void *opaque, uint64_t off, const uint8_t *data,
		       uint32_t len)
{
	struct pci_bus *bus = opaque;
	uint8_t buf[8];

	if (off >= pci_bus_ecam_size(bus))
		return;
	if (len > pci_bus_ecam_size(bus) - off)
		len = (uint32_t)(pci_bus_ecam_size(bus) - off);
	if (len > sizeof(buf))
		len = sizeof(buf);
	memcpy(buf, data, len);
	pthread_mutex_lock(&bus->lock);
	ecam_access(bus, off, buf, len, true);
	pthread_mutex_unlock(&bus->lock);
}

const struct bus_ops pci_bus_ecam_ops = {
	.read = ecam_read,
	.write = ecam_write,
};

uint8_t *pci_bus_ecam_page(const struct pci_bus *bus, unsigned int bus_nr,
			   unsigned int devfn)
{
	struct pci_fn *fn;

	if (bus_nr >= bus->conf.nbuses || devfn >= PCI_DEVFN_MAX)
		return NULL;
	fn = bus->fns[bus_nr * PCI_DEVFN_MAX + devfn];
	return fn ? fn->cfg : NULL;
}

uint32_t pci_bus_get_cf8(struct pci_bus *bus)
{
	uint32_t v;

	pthread_mutex_lock(&bus->lock);
	v = bus->cf8;
	pthread_mutex_unlock(&bus->lock);
	return v;
}

int pci_bus_set_cf8(struct pci_bus *bus, uint32_t cf8)
{
	if (cf8 & ~cf8_mask(bus))
		return -1;
	pthread_mutex_lock(&bus->lock);
	bus->cf8 = cf8;
	pthread_mutex_unlock(&bus->lock);
	return 0;
}
