/* SPDX-License-Identifier: MIT */
/*
 * PCI segment 0: buses 0..nbuses-1 of 32 devices x 8 functions, the
 * configuration mechanisms that reach them (type-1 CF8/CFC ports and the
 * ECAM window), and the functions plugged into it.  The bus owns the added
 * functions and their config pages.  Pure C: the VMM registers
 * pci_bus_pio_ops / pci_bus_ecam_ops on its buses and maps
 * pci_bus_ecam_page() pages for a read-only ECAM window.
 *
 * Locking: one mutex serialises every config access (the pio and ecam
 * ops and pci_bus_cfg_*), so vCPUs may call them concurrently; CF8 itself
 * is shared machine state, as on hardware.  bar_changed callbacks run
 * under that mutex, inside the write handler: they may (un)register bus
 * ranges and memslots but must not access config space.  Set-up calls
 * (create, add_function, device creation) are not locked: make them
 * before vCPUs run.
 */
#ifndef MINIVMM_PCI_BUS_H
#define MINIVMM_PCI_BUS_H

#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>

#include "devices/pci/cfg.h"
#include "vmm/bus.h"

#define PCI_BUS_MAX		256
#define PCI_DEVFN_MAX		256

/* pci_bus_pio_ops covers one range: the address register (offsets 0-3)
 * and the data window (offsets 4-7). */
#define PCI_BUS_PIO_LEN		8

struct pci_bus_config {
	unsigned int nbuses;		/* 1..256 */
	/* Honour AMD's CF8 bits 27:24 as register bits 11:8 (extended
	 * space via CF8).  Intel chipsets ignore those bits; Linux only uses
	 * them on AMD CPUs (PCI_HAS_IO_ECS), so honouring them is harmless. */
	bool cf8_no_ext_reg;		/* false (default): honour them */
	/* Config pages: zeroed, 4 KiB, 4 KiB-aligned.  NULL: aligned_alloc. */
	void *(*alloc_page)(void *ctx);
	void (*free_page)(void *ctx, void *page);	/* may be NULL */
	void *page_ctx;
	/* Default BAR callback for added functions that have none. */
	pci_bar_changed_fn bar_changed;
	void *bar_ctx;
	/* Byte/word accesses to 0xCF8-0xCFB are not address-register
	 * accesses (as on PIIX/ICH); e.g. 0xCF9 is the reset control
	 * register.  They go here (off 0-3 from 0xCF8); NULL: reads
	 * all-ones, writes dropped. */
	void (*cf8_other)(void *ctx, unsigned int off, uint8_t *data,
			  uint32_t len, bool is_write);
	void *cf8_other_ctx;
};

struct pci_bus {
	struct pci_bus_config conf;
	pthread_mutex_t lock;		/* config accesses */
	uint32_t cf8;			/* address register */
	struct pci_fn **fns;		/* [bus * 256 + devfn] */
};

/* NULL on bad config or allocation failure. */
struct pci_bus *pci_bus_create(const struct pci_bus_config *conf);
/* Calls each function's release hook, then frees its page. */
void pci_bus_destroy(struct pci_bus *bus);

/* A zeroed config page from the allocator (NULL on failure), and its
 * release for a device whose creation failed before it was added. */
uint8_t *pci_bus_alloc_page(struct pci_bus *bus);
void pci_bus_free_page(struct pci_bus *bus, uint8_t *page);

/* Plug fn (initialised with a page from pci_bus_alloc_page) at bdf
 * (PCI_BDF(bus, dev, fn)).  Sets the multi-function bit in every function
 * of the device once it has more than one.  Gives fn the bus default BAR
 * callback if it has none.  -1 if bdf is out of range or taken. */
int pci_bus_add_function(struct pci_bus *bus, uint32_t bdf,
			 struct pci_fn *fn);
struct pci_fn *pci_bus_get(const struct pci_bus *bus, uint32_t bdf);

/* Config access by bdf and register (< 4096), any len (split into pieces
 * of 1, 2 or 4 bytes).  Absent functions and buses >= nbuses read
 * all-ones, writes are dropped.  Bytes past the function's page continue
 * in the next function's page, as the ECAM offset bdf << 12 | reg would. */
void pci_bus_cfg_access(struct pci_bus *bus, uint32_t bdf, unsigned int reg,
			uint8_t *data, uint32_t len, bool is_write);
uint32_t pci_bus_cfg_read(struct pci_bus *bus, uint32_t bdf,
			  unsigned int reg, unsigned int len);
void pci_bus_cfg_write(struct pci_bus *bus, uint32_t bdf, unsigned int reg,
		       uint32_t val, unsigned int len);

/* The CF8 address register, for snapshots; set refuses bits the register
 * never holds (-1). */
uint32_t pci_bus_get_cf8(struct pci_bus *bus);
int pci_bus_set_cf8(struct pci_bus *bus, uint32_t cf8);

/* Type-1 mechanism, opaque = bus, registered for PCI_BUS_PIO_LEN ports
 * at the address port (PCI_CONF1_ADDR_PORT on a PC).  Offset 0: dword
 * accesses read/write the address register (bits 31, 27:24 if enabled,
 * 23:2; others read 0); other accesses to offsets 0-3 go to cf8_other.
 * Offsets 4-7: the data window, 1/2/4-byte accesses at any offset
 * (clipped to the window); all-ones / dropped while bit 31 is clear.
 * cf8_other and bar_changed run under the bus mutex. */
extern const struct bus_ops pci_bus_pio_ops;

/* ECAM, opaque = bus, registered at the window base for
 * pci_bus_ecam_size(): offset = bus << 20 | devfn << 12 | reg.  1/2/4-byte
 * accesses; an 8-byte access is two dword accesses (low first); any other
 * length or a page-crossing access is split into 1/2/4-byte pieces. */
extern const struct bus_ops pci_bus_ecam_ops;
uint64_t pci_bus_ecam_size(const struct pci_bus *bus);

/* Host pointer of the config page of a present function, else NULL (the
 * VMM maps a shared all-ones page there).  The page stays valid and in
 * place until pci_bus_destroy. */
uint8_t *pci_bus_ecam_page(const struct pci_bus *bus, unsigned int bus_nr,
			   unsigned int devfn);

/* Host bridge at 00:00.0 (host_bridge.c): 1b36:0008, class 0x060000,
 * a PCI Express capability (root complex integrated endpoint) and a
 * Device Serial Number extended capability at 0x100.  NULL on failure. */
#define PCI_HOST_BRIDGE_VENDOR	0x1b36
#define PCI_HOST_BRIDGE_DEVICE	0x0008
#define PCI_HOST_BRIDGE_DSN	0x006d6d76696e696dull	/* bytes "minivmm\0" */
struct pci_fn *pci_host_bridge_create(struct pci_bus *bus);

#endif
