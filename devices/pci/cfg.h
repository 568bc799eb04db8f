/* SPDX-License-Identifier: MIT */
/*
 * PCI function configuration-space model.  Owns one function's 4 KiB config
 * page, its write masks, its BAR descriptions and the BAR mapping state
 * reported to the VMM.  Pure C: no KVM, no buses.
 *
 * The page `cfg` is exactly what every read returns.  Reads have no side
 * effects and nothing is computed at read time, because the VMM may map the
 * very same bytes read-only into the guest's ECAM window (KVM_MEM_READONLY):
 * guest reads then never exit and must see what a trapped read would.
 * Every change a write causes is made in `cfg` before the write returns.
 *
 * Writes (1, 2 or 4 bytes, any offset inside the page) change, per byte,
 *	new = (old & ~wmask) | (val & wmask);  new &= ~(w1cmask & val)
 * so read-only fields need no code, and RW1C bits (STATUS errors) clear on 1.
 *
 * BAR mapping.  After every write the model works out, per BAR, whether the
 * function decodes it and where (pci_fn_bar_decoded()).  When that differs
 * from what was last reported, it calls bar_changed().  A BAR is decoded iff
 *   (a) its COMMAND decode bit is set (IO for I/O BARs, MEMORY otherwise);
 *   (b) it is not being size-probed: no dword of it was last written with
 *       all-ones (0xff in each of its 4 bytes, whatever the access widths;
 *       a probe written in bytes or words passes through intermediate
 *       addresses, which are reported like any move, as hardware would
 *       decode them);
 *   (c) its address is not 0 (unassigned; as in QEMU);
 *   (d) it fits its address space: I/O BARs end at or below 0x10000; memory
 *       BARs never contain the byte at 0xffffffff (the reset vector; this is
 *       also where a 32-bit probe lands, as in QEMU) and end at or below
 *       2^52 (the architectural physical-address limit).
 * A 64-bit BAR is decoded at whatever its two dwords hold at each moment,
 * as hardware does: a guest that moves one with decode on (Linux turns
 * decode off first) causes a transient mapping at new-low:old-high, which
 * is reported like any move.  A probe of either half, or a half-written
 * probe, is never reported (rule b).
 */
#ifndef MINIVMM_PCI_CFG_H
#define MINIVMM_PCI_CFG_H

#include <stdbool.h>
#include <stdint.h>

#include "firmware/lib/pci_regs.h"
#include "vmm/bus.h"

#define PCI_CFG_SIZE		4096
/* old_addr value meaning "not mapped". Never a decodable address. */
#define PCI_BAR_UNMAPPED	UINT64_MAX
#define PCI_BAR_ADDR_LIMIT	(1ull << 52)

struct pci_fn;

/*
 * Called when a BAR's decoded mapping changes.  old_addr is where the BAR
 * is currently mapped by the VMM, or PCI_BAR_UNMAPPED; new_addr is the
 * BAR's address now; enabled says whether it must be mapped at new_addr.
 * The VMM must: release the mapping at old_addr (if any), then, if enabled,
 * map new_addr (bus_register / memslot; a move may use bus_move or
 * gmem_move_region).  Return 0 on success.  Non-zero means "could not map
 * at new_addr" (e.g. overlap with RAM): the VMM must then leave nothing
 * mapped for this BAR, not even at old_addr.  The register keeps the
 * guest's value; the BAR is simply unreachable until a later write changes
 * its address or decode bit, which is reported with old_addr UNMAPPED.
 * Called from inside a config write; it must not access config space.
 */
typedef int (*pci_bar_changed_fn)(struct pci_fn *fn, int bar,
				  uint64_t old_addr, uint64_t new_addr,
				  bool enabled);

enum pci_bar_kind {
	PCI_BAR_NONE = 0,	/* also the upper half of a 64-bit BAR */
	PCI_BAR_IO,
	PCI_BAR_MEM32,
	PCI_BAR_MEM64,		/* occupies this BAR index and the next */
};

/* What a device declares for one BAR. */
struct pci_bar_desc {
	enum pci_bar_kind kind;
	uint64_t size;		/* power of two; I/O 4..256, memory 16..2 GiB
				 * (32-bit) or 16..2^48 (64-bit) */
	bool prefetch;		/* memory BARs only */
	bool ram;		/* backed by RAM the VMM moves with the BAR */
	const struct bus_ops *ops;	/* register handlers (offset within
					 * the BAR), or NULL */
	void *opaque;		/* for ops */
	const char *name;	/* for --stats */
};

struct pci_bar {
	struct pci_bar_desc desc;	/* kind NONE: unused slot */
	/* Last state passed to bar_changed(): */
	bool req_enabled;
	uint64_t req_addr;
	/* What the VMM confirmed: mapped at map_addr. */
	bool mapped;
	uint64_t map_addr;
};

struct pci_fn {
	uint8_t *cfg;			/* PCI_CFG_SIZE bytes, caller-owned */
	uint8_t wmask[PCI_CFG_SIZE];	/* writable bits */
	uint8_t w1cmask[PCI_CFG_SIZE];	/* write-1-to-clear bits */
	struct pci_bar bars[PCI_NUM_BARS];
	uint8_t bar_ones[PCI_NUM_BARS];	/* per BAR dword: bytes last written
					 * as 0xff (bit n = byte n) */
	uint16_t last_cap;		/* 0: no capability yet */
	uint16_t last_ext_cap;		/* 0: no extended capability yet */
	uint16_t ext_cap_end;		/* next free offset >= 0x100 */
	uint16_t cap_end;		/* next free offset >= 0x40 */
	pci_bar_changed_fn bar_changed;	/* NULL: mappings always succeed */
	void *bar_ctx;			/* for the callback's owner */
	void *opaque;			/* for the device */
	void (*release)(struct pci_fn *fn);	/* called by pci_bus_destroy */
	/* Called at the end of every accepted guest write, after the BAR
	 * mappings were updated, for devices whose registers in config
	 * space have effects (MSI-X enable, INTx disable).  Runs under the
	 * bus mutex; it may change fn->cfg but must not access config space
	 * through the bus.  NULL: none. */
	void (*written)(struct pci_fn *fn, unsigned int off, unsigned int len);
	/* Called after each reported change of a BAR's mapping (and for each
	 * BAR pci_fn_set_state maps), once bar_changed has answered: the BAR
	 * now decodes at addr if mapped, nowhere otherwise.  For devices that
	 * follow their own BARs (pci-testdev's ioeventfds).  Runs under the
	 * bus mutex, like written.  NULL: none. */
	void (*bar_moved)(struct pci_fn *fn, int bar, bool mapped,
			  uint64_t addr);
	const char *name;
	uint32_t bdf;			/* set by pci_bus_add_function */
};

/* Identity set by the device at creation; all read-only to the guest. */
struct pci_fn_id {
	uint16_t vendor, device;
	uint16_t subsys_vendor, subsys_id;
	uint32_t class_code;	/* base << 16 | sub << 8 | prog-if */
	uint8_t revision;
	uint8_t irq_pin;	/* 0 none, 1..4 INTA..INTD */
};

/* Zero cfg and masks, write the type-0 header from id, set the standard
 * writable bits (COMMAND, cache line, interrupt line) and RW1C bits
 * (STATUS errors).  COMMAND starts at 0.  -1 if cfg is NULL or irq_pin > 4. */
int pci_fn_init(struct pci_fn *fn, uint8_t *cfg, const struct pci_fn_id *id,
		const char *name);

/* Declare BAR idx (a 64-bit BAR also takes idx + 1).  The BAR starts at 0,
 * with its flag bits read-only and size-aligned address bits writable.
 * -1 on a bad index, size or kind, or an occupied slot. */
int pci_fn_add_bar(struct pci_fn *fn, int idx, const struct pci_bar_desc *d);

/* Append a capability of len bytes (>= 2, dword-aligned placement from
 * 0x40); writes its ID, chains it, sets STATUS.CAP_LIST.  Returns its
 * offset, or -1 if it does not fit below 0x100. */
int pci_fn_add_cap(struct pci_fn *fn, uint8_t id, unsigned int len);
/* Same in extended space (from 0x100, header ID/version/next).  Returns
 * the offset or -1 if it does not fit. */
int pci_fn_add_ext_cap(struct pci_fn *fn, uint16_t id, uint8_t version,
		       unsigned int len);

/* Device-side initialisation of a 1/2/4-byte register: value and masks,
 * bypassing the guest write rules.  Ignored if out of range. */
void pci_fn_init_reg(struct pci_fn *fn, unsigned int off, unsigned int len,
		     uint32_t val, uint32_t wmask, uint32_t w1cmask);

/* Guest accesses.  len must be 1, 2 or 4 and [off, off+len) inside the
 * page; otherwise reads return all-ones (of len bytes, at most 4) and
 * writes are ignored (return -1).  Writes may call bar_changed. */
uint32_t pci_fn_read(const struct pci_fn *fn, unsigned int off,
		     unsigned int len);
int pci_fn_write(struct pci_fn *fn, unsigned int off, uint32_t val,
		 unsigned int len);

/* BAR queries.  Address = register contents without flag bits (64-bit
 * BARs combine both dwords); 0 for an unused index. */
uint64_t pci_fn_bar_addr(const struct pci_fn *fn, int idx);
/* Rules (a)-(d) above; *addr (optional) gets pci_fn_bar_addr(). */
bool pci_fn_bar_decoded(const struct pci_fn *fn, int idx, uint64_t *addr);

/* A function's guest-visible state, for snapshots: the config page, the
 * probe tracking and, per BAR, the mapping last requested and confirmed.
 * A fixed layout (the masks and BAR descriptions are the device's, set at
 * creation, and not part of it). */
struct pci_fn_bar_state {
	uint8_t req_enabled, mapped, reserved[6];
	uint64_t req_addr, map_addr;
};

struct pci_fn_state {
	uint8_t cfg[PCI_CFG_SIZE];
	uint8_t bar_ones[PCI_NUM_BARS];
	uint8_t reserved[2];
	struct pci_fn_bar_state bars[PCI_NUM_BARS];
};

void pci_fn_get_state(const struct pci_fn *fn, struct pci_fn_state *s);
/* Loads s into a function that maps nothing yet (just created), then
 * reports each BAR s has mapped through bar_changed (old_addr UNMAPPED),
 * so the VMM maps it where it was.  -1 if s is inconsistent (a mapped BAR
 * that its registers do not decode there, state for an unused BAR) or a
 * mapping fails. */
int pci_fn_set_state(struct pci_fn *fn, const struct pci_fn_state *s);

/* Set the BAR callback; takes effect at the next write. */
void pci_fn_set_bar_handler(struct pci_fn *fn, pci_bar_changed_fn cb,
			    void *ctx);

#endif
