// SPDX-License-Identifier: MIT
/*
 * PCI function configuration-space model: masks, BARs, capabilities and
 * BAR mapping reports.  See cfg.h for the rules.
 */
#include <string.h>

#include "devices/pci/cfg.h"
#include "firmware/lib/le.h"

#define BAR_MEM64_MAX_SIZE	(1ull << 48)
#define BAR_MEM32_MAX_SIZE	(1ull << 31)
#define IO_SPACE_END		0x10000ull
#define RESET_VECTOR_BYTE	0xffffffffull

static bool range_ok(unsigned int off, unsigned int len)
{
	if (len != 1 && len != 2 && len != 4)
		return false;
	return off < PCI_CFG_SIZE && len <= PCI_CFG_SIZE - off;
}

static uint32_t all_ones(unsigned int len)
{
	return len == 1 ? 0xff : len == 2 ? 0xffff : 0xffffffffu;
}

void pci_fn_init_reg(struct pci_fn *fn, unsigned int off, unsigned int len,
		     uint32_t val, uint32_t wmask, uint32_t w1cmask)
{
	if (!range_ok(off, len))
		return;
	le_put(fn->cfg + off, val, len);
	le_put(fn->wmask + off, wmask, len);
	le_put(fn->w1cmask + off, w1cmask, len);
}

int pci_fn_init(struct pci_fn *fn, uint8_t *cfg, const struct pci_fn_id *id,
		const char *name)
{
	const uint32_t cmd_wmask = PCI_COMMAND_IO | PCI_COMMAND_MEMORY |
		PCI_COMMAND_MASTER | PCI_COMMAND_PARITY | PCI_COMMAND_SERR |
		PCI_COMMAND_INTX_DISABLE;

	if (!fn || !cfg || !id || id->irq_pin > 4)
		return -1;
	memset(fn, 0, sizeof(*fn));
	memset(cfg, 0, PCI_CFG_SIZE);
	fn->cfg = cfg;
	fn->name = name;
	fn->cap_end = PCI_STD_HEADER_SIZEOF;
	fn->ext_cap_end = PCI_EXT_CAP_START;

	pci_fn_init_reg(fn, PCI_VENDOR_ID, 2, id->vendor, 0, 0);
	pci_fn_init_reg(fn, PCI_DEVICE_ID, 2, id->device, 0, 0);
	pci_fn_init_reg(fn, PCI_COMMAND, 2, 0, cmd_wmask, 0);
	pci_fn_init_reg(fn, PCI_STATUS, 2, 0, 0, PCI_STATUS_ERROR_BITS);
	pci_fn_init_reg(fn, PCI_REVISION_ID, 1, id->revision, 0, 0);
	pci_fn_init_reg(fn, PCI_CLASS_PROG, 1, id->class_code & 0xff, 0, 0);
	pci_fn_init_reg(fn, PCI_CLASS_DEVICE, 2, id->class_code >> 8, 0, 0);
	pci_fn_init_reg(fn, PCI_CACHE_LINE_SIZE, 1, 0, 0xff, 0);
	pci_fn_init_reg(fn, PCI_HEADER_TYPE, 1, PCI_HEADER_TYPE_NORMAL, 0, 0);
	pci_fn_init_reg(fn, PCI_SUBSYSTEM_VENDOR_ID, 2, id->subsys_vendor, 0,
			0);
	pci_fn_init_reg(fn, PCI_SUBSYSTEM_ID, 2, id->subsys_id, 0, 0);
	pci_fn_init_reg(fn, PCI_INTERRUPT_LINE, 1, 0, 0xff, 0);
	pci_fn_init_reg(fn, PCI_INTERRUPT_PIN, 1, id->irq_pin, 0, 0);
	return 0;
}

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

static bool bar_slot_free(const struct pci_fn *fn, int idx)
{
	if (idx < 0 || idx >= PCI_NUM_BARS)
		return false;
	if (fn->bars[idx].desc.kind != PCI_BAR_NONE)
		return false;
	return idx == 0 || fn->bars[idx - 1].desc.kind != PCI_BAR_MEM64;
}

static bool bar_desc_ok(const struct pci_bar_desc *d)
{
	if (!is_pow2(d->size))
		return false;
	switch (d->kind) {
	case PCI_BAR_IO:
		return d->size >= 4 && d->size <= 256 && !d->prefetch &&
		       !d->ram;
	case PCI_BAR_MEM32:
		return d->size >= 16 && d->size <= BAR_MEM32_MAX_SIZE;
	case PCI_BAR_MEM64:
		return d->size >= 16 && d->size <= BAR_MEM64_MAX_SIZE;
	default:
		return false;
	}
}

int pci_fn_add_bar(struct pci_fn *fn, int idx, const struct pci_bar_desc *d)
{
	unsigned int reg = PCI_BASE_ADDRESS_0 + 4 * (unsigned int)idx;
	uint64_t amask;
	uint32_t flags;

	if (!d || !bar_desc_ok(d) || !bar_slot_free(fn, idx))
		return -1;
	if (d->kind == PCI_BAR_MEM64 && !bar_slot_free(fn, idx + 1))
		return -1;

	amask = ~(d->size - 1);
	if (d->kind == PCI_BAR_IO) {
		flags = PCI_BASE_ADDRESS_SPACE_IO;
		amask &= PCI_BASE_ADDRESS_IO_MASK;
	} else {
		flags = d->kind == PCI_BAR_MEM64 ? PCI_BASE_ADDRESS_MEM_TYPE_64
						 : PCI_BASE_ADDRESS_MEM_TYPE_32;
		if (d->prefetch)
			flags |= PCI_BASE_ADDRESS_MEM_PREFETCH;
		amask &= ~0xfull;
	}
	/* Flag bits are read-only; size-aligned address bits are writable,
	 * so writing all-ones reads back the size mask with the flags. */
	pci_fn_init_reg(fn, reg, 4, flags, (uint32_t)amask, 0);
	if (d->kind == PCI_BAR_MEM64)
		pci_fn_init_reg(fn, reg + 4, 4, 0, (uint32_t)(amask >> 32), 0);
	fn->bars[idx].desc = *d;
	return 0;
}

int pci_fn_add_cap(struct pci_fn *fn, uint8_t id, unsigned int len)
{
	unsigned int off = fn->cap_end;
	uint16_t status;

	if (len < 2 || len > PCI_CFG_SPACE_SIZE ||
	    off + len > PCI_CFG_SPACE_SIZE)
		return -1;
	fn->cfg[off + PCI_CAP_LIST_ID] = id;
	fn->cfg[off + PCI_CAP_LIST_NEXT] = 0;
	if (fn->last_cap)
		fn->cfg[fn->last_cap + PCI_CAP_LIST_NEXT] = (uint8_t)off;
	else
		fn->cfg[PCI_CAPABILITY_LIST] = (uint8_t)off;
	fn->last_cap = (uint16_t)off;
	fn->cap_end = (uint16_t)((off + len + 3) & ~3u);
	status = le16_get(fn->cfg + PCI_STATUS);
	le16_put(fn->cfg + PCI_STATUS, status | PCI_STATUS_CAP_LIST);
	return (int)off;
}

int pci_fn_add_ext_cap(struct pci_fn *fn, uint16_t id, uint8_t version,
		       unsigned int len)
{
	unsigned int off = fn->ext_cap_end;
	uint32_t hdr;

	if (len < 4 || len > PCI_CFG_SIZE || off + len > PCI_CFG_SIZE)
		return -1;
	le32_put(fn->cfg + off, id | (uint32_t)(version & 0xf) << 16);
	if (fn->last_ext_cap) {
		hdr = le32_get(fn->cfg + fn->last_ext_cap);
		hdr = (hdr & 0x000fffffu) | (uint32_t)off << 20;
		le32_put(fn->cfg + fn->last_ext_cap, hdr);
	}
	fn->last_ext_cap = (uint16_t)off;
	fn->ext_cap_end = (uint16_t)((off + len + 3) & ~3u);
	return (int)off;
}

uint32_t pci_fn_read(const struct pci_fn *fn, unsigned int off,
		     unsigned int len)
{
	if (!range_ok(off, len))
		return all_ones(len);
	return (uint32_t)le_get(fn->cfg + off, len);
}

uint64_t pci_fn_bar_addr(const struct pci_fn *fn, int idx)
{
	unsigned int reg;
	uint64_t lo;

	if (idx < 0 || idx >= PCI_NUM_BARS)
		return 0;
	reg = PCI_BASE_ADDRESS_0 + 4 * (unsigned int)idx;
	lo = le32_get(fn->cfg + reg);
	switch (fn->bars[idx].desc.kind) {
	case PCI_BAR_IO:
		return lo & PCI_BASE_ADDRESS_IO_MASK;
	case PCI_BAR_MEM32:
		return lo & PCI_BASE_ADDRESS_MEM_MASK;
	case PCI_BAR_MEM64:
		return (lo & PCI_BASE_ADDRESS_MEM_MASK) |
		       (uint64_t)le32_get(fn->cfg + reg + 4) << 32;
	default:
		return 0;
	}
}

static bool bar_probing(const struct pci_fn *fn, int idx)
{
	if (fn->bar_ones[idx] == 0xf)
		return true;
	return fn->bars[idx].desc.kind == PCI_BAR_MEM64 &&
	       fn->bar_ones[idx + 1] == 0xf;
}

static bool bar_fits(enum pci_bar_kind kind, uint64_t addr, uint64_t size)
{
	if (kind == PCI_BAR_IO)
		return addr <= IO_SPACE_END - size;
	if (addr <= RESET_VECTOR_BYTE && RESET_VECTOR_BYTE - addr < size)
		return false;
	return addr <= PCI_BAR_ADDR_LIMIT - size;
}

bool pci_fn_bar_decoded(const struct pci_fn *fn, int idx, uint64_t *addr)
{
	const struct pci_bar_desc *d;
	uint64_t a = pci_fn_bar_addr(fn, idx);
	uint16_t cmd, bit;

	if (addr)
		*addr = a;
	if (idx < 0 || idx >= PCI_NUM_BARS)
		return false;
	d = &fn->bars[idx].desc;
	if (d->kind == PCI_BAR_NONE)
		return false;
	cmd = le16_get(fn->cfg + PCI_COMMAND);
	bit = d->kind == PCI_BAR_IO ? PCI_COMMAND_IO : PCI_COMMAND_MEMORY;
	if (!(cmd & bit) || bar_probing(fn, idx) || a == 0)
		return false;
	return bar_fits(d->kind, a, d->size);
}

/* Report a change of BAR idx's decoded mapping, if any.  A failed map is
 * not retried until the guest changes the address or the decode state, so
 * a hostile guest cannot turn every config write into a failing map. */
static void update_bar(struct pci_fn *fn, int idx)
{
	struct pci_bar *b = &fn->bars[idx];
	uint64_t addr, old;
	bool en = pci_fn_bar_decoded(fn, idx, &addr);
	int ret = 0;

	if (en == b->req_enabled && (!en || addr == b->req_addr))
		return;
	b->req_enabled = en;
	b->req_addr = addr;
	old = b->mapped ? b->map_addr : PCI_BAR_UNMAPPED;
	if (!en && old == PCI_BAR_UNMAPPED)
		return;
	if (fn->bar_changed)
		ret = fn->bar_changed(fn, idx, old, addr, en);
	b->mapped = en && ret == 0;
	b->map_addr = b->mapped ? addr : 0;
	if (fn->bar_moved)
		fn->bar_moved(fn, idx, b->mapped, addr);
}

static void track_bar_bytes(struct pci_fn *fn, unsigned int o, uint8_t b)
{
	unsigned int d, bit;

	if (o < PCI_BASE_ADDRESS_0 ||
	    o >= PCI_BASE_ADDRESS_0 + 4 * PCI_NUM_BARS)
		return;
	d = (o - PCI_BASE_ADDRESS_0) / 4;
	bit = 1u << (o & 3);
	if (b == 0xff)
		fn->bar_ones[d] |= (uint8_t)bit;
	else
		fn->bar_ones[d] &= (uint8_t)~bit;
}

int pci_fn_write(struct pci_fn *fn, unsigned int off, uint32_t val,
		 unsigned int len)
{
	if (!range_ok(off, len))
		return -1;
	for (unsigned int i = 0; i < len; i++) {
		unsigned int o = off + i;
		uint8_t b = (uint8_t)(val >> (8 * i));
		uint8_t n = (fn->cfg[o] & ~fn->wmask[o]) | (b & fn->wmask[o]);

		fn->cfg[o] = n & ~(fn->w1cmask[o] & b);
		track_bar_bytes(fn, o, b);
	}
	/* Only COMMAND and the BARs affect decoding; checking all six BARs
	 * after every write is cheap and leaves no case to forget. */
	for (int i = 0; i < PCI_NUM_BARS; i++)
		if (fn->bars[i].desc.kind != PCI_BAR_NONE)
			update_bar(fn, i);
	if (fn->written)
		fn->written(fn, off, len);
	return 0;
}

void pci_fn_set_bar_handler(struct pci_fn *fn, pci_bar_changed_fn cb,
			    void *ctx)
{
	fn->bar_changed = cb;
	fn->bar_ctx = ctx;
}

void pci_fn_get_state(const struct pci_fn *fn, struct pci_fn_state *s)
{
	memset(s, 0, sizeof(*s));
	memcpy(s->cfg, fn->cfg, PCI_CFG_SIZE);
	memcpy(s->bar_ones, fn->bar_ones, sizeof(s->bar_ones));
	for (int i = 0; i < PCI_NUM_BARS; i++) {
		const struct pci_bar *b = &fn->bars[i];

		s->bars[i] = (struct pci_fn_bar_state){
			.req_enabled = b->req_enabled, .mapped = b->mapped,
			.req_addr = b->req_addr, .map_addr = b->map_addr,
		};
	}
}

/* A BAR's state agrees with the registers in s (as loaded into fn). */
static bool bar_state_ok(const struct pci_fn *fn, int i,
			 const struct pci_fn_bar_state *b)
{
	uint64_t addr;
	bool dec = pci_fn_bar_decoded(fn, i, &addr);

	if (b->req_enabled > 1 || b->mapped > 1)
		return false;
	for (unsigned int k = 0; k < sizeof(b->reserved); k++)
		if (b->reserved[k])
			return false;
	if (fn->bars[i].desc.kind == PCI_BAR_NONE)
		return !b->req_enabled && !b->mapped && !b->req_addr &&
		       !b->map_addr;
	if (b->mapped)
		return dec && b->req_enabled && b->map_addr == addr &&
		       b->req_addr == addr;
	return !b->map_addr && b->req_enabled == dec &&
	       (!dec || b->req_addr == addr);
}

int pci_fn_set_state(struct pci_fn *fn, const struct pci_fn_state *s)
{
	uint8_t old[PCI_CFG_SIZE], old_ones[PCI_NUM_BARS];

	for (int i = 0; i < PCI_NUM_BARS; i++)
		if (fn->bars[i].mapped || s->bar_ones[i] > 0xf)
			return -1;
	if (s->reserved[0] || s->reserved[1])
		return -1;
	memcpy(old, fn->cfg, PCI_CFG_SIZE);
	memcpy(old_ones, fn->bar_ones, sizeof(old_ones));
	memcpy(fn->cfg, s->cfg, PCI_CFG_SIZE);
	memcpy(fn->bar_ones, s->bar_ones, sizeof(fn->bar_ones));
	for (int i = 0; i < PCI_NUM_BARS; i++) {
		if (!bar_state_ok(fn, i, &s->bars[i])) {
			memcpy(fn->cfg, old, PCI_CFG_SIZE);
			memcpy(fn->bar_ones, old_ones, sizeof(old_ones));
			return -1;
		}
	}
	for (int i = 0; i < PCI_NUM_BARS; i++) {
		struct pci_bar *b = &fn->bars[i];
		bool ok;

		b->req_enabled = s->bars[i].req_enabled;
		b->req_addr = s->bars[i].req_addr;
		if (!s->bars[i].mapped)
			continue;
		ok = !fn->bar_changed || !fn->bar_changed(fn, i,
				PCI_BAR_UNMAPPED, b->req_addr, true);
		if (fn->bar_moved)
			fn->bar_moved(fn, i, ok, b->req_addr);
		if (!ok)
			return -1;
		b->mapped = true;
		b->map_addr = b->req_addr;
	}
	return 0;
}
