// SPDX-License-Identifier: MIT
/*
 * Finding the machine the way an OS does, nothing minivmm-specific unless
 * that fails: the ACPI RSDP (hvm_start_info, else the EBDA and
 * 0xE0000-0xFFFFF scans), XSDT or RSDT, MCFG for the ECAM base; PCI bus 0
 * through ECAM (else CF8/CFC) for the Xen platform device and its BAR1.
 *
 * Fallbacks, each reported in the BENCHINFO line: ECAM at 0xE0000000
 * (minivmm's layout) when no MCFG is found, and BAR1 placed by the payload
 * (bar1-at=, default the top 16 MiB of minivmm's 32-bit window) when the
 * firmware left it unassigned.
 */
#include "bench.h"

#define RSDP_SIG		"RSD PTR "
#define SCAN_LO			0xe0000u
#define SCAN_HI			0x100000u
#define EBDA_PTR		0x40eu
#define FALLBACK_ECAM		0xe0000000ull
#define FALLBACK_BAR1		0xdf000000ull
#define FOUR_GIB		0x100000000ull
#define SDT_HDR			36
#define MCFG_ENTRIES		44
#define XEN_VENDOR		0x5853
#define PCI_COMMAND_MEM		0x2
#define PCI_CF8_EN		0x80000000u

struct scan_args {
	uint64_t lo, hi, found;
};

static bool sum_ok(const uint8_t *p, uint32_t len)
{
	uint8_t s = 0;

	for (uint32_t i = 0; i < len; i++)
		s += p[i];
	return s == 0;
}

/* Ring 3: the scan reads memory natively instead of emulated. */
static void scan_rsdp(void *arg)
{
	struct scan_args *a = arg;

	for (uint64_t at = a->lo; at + 20 <= a->hi; at += 16) {
		const uint8_t *p = (const uint8_t *)(uintptr_t)at;

		if (!memcmp(p, RSDP_SIG, 8) && sum_ok(p, 20)) {
			a->found = at;
			return;
		}
	}
}

static uint64_t find_rsdp(const struct hvm_start_info *si, const char **from)
{
	struct scan_args a = { 0, 0, 0 };
	uintptr_t ptr = EBDA_PTR;
	uint64_t ebda;

	__asm__("" : "+r"(ptr));	/* a real address, not a null deref */
	ebda = (uint64_t)*(volatile uint16_t *)ptr << 4;

	*from = "start_info";
	if (start_info_valid(si) && si->rsdp_paddr &&
	    si->rsdp_paddr < FOUR_GIB - 36)
		return si->rsdp_paddr;
	*from = "scan";
	if (ebda >= 0x80000 && ebda < 0xa0000) {
		a = (struct scan_args){ ebda, ebda + 1024, 0 };
		run_user(scan_rsdp, &a);
	}
	if (!a.found) {
		a = (struct scan_args){ SCAN_LO, SCAN_HI, 0 };
		run_user(scan_rsdp, &a);
	}
	if (!a.found)
		*from = "none";
	return a.found;
}

static const uint8_t *table_at(uint64_t pa)
{
	const uint8_t *t = (const uint8_t *)(uintptr_t)pa;
	uint32_t len;

	if (!pa || pa >= FOUR_GIB - SDT_HDR)
		return NULL;
	memcpy(&len, t + 4, 4);
	if (len < SDT_HDR || len > 0x100000 || pa + len > FOUR_GIB ||
	    !sum_ok(t, len))
		return NULL;
	return t;
}

/* MCFG through the XSDT (revision >= 2) or the RSDT. */
static const uint8_t *find_mcfg(uint64_t rsdp)
{
	const uint8_t *r = (const uint8_t *)(uintptr_t)rsdp;
	uint32_t rsdt, len;
	uint64_t xsdt = 0;
	const uint8_t *sdt;
	unsigned int esz;

	memcpy(&rsdt, r + 16, 4);
	if (r[15] >= 2 && sum_ok(r, 36))
		memcpy(&xsdt, r + 24, 8);
	sdt = table_at(xsdt ? xsdt : rsdt);
	esz = xsdt ? 8 : 4;
	if (!sdt)
		return NULL;
	memcpy(&len, sdt + 4, 4);
	for (uint32_t off = SDT_HDR; off + esz <= len; off += esz) {
		uint64_t pa = 0;
		const uint8_t *t;

		memcpy(&pa, sdt + off, esz);
		t = table_at(pa);
		if (t && !memcmp(t, "MCFG", 4))
			return t;
	}
	return NULL;
}

/* The segment-0 entry that includes bus 0. */
static uint64_t ecam_from_mcfg(const uint8_t *mcfg)
{
	uint32_t len;

	memcpy(&len, mcfg + 4, 4);
	for (uint32_t off = MCFG_ENTRIES; off + 16 <= len; off += 16) {
		uint64_t base;
		uint16_t seg;

		memcpy(&base, mcfg + off, 8);
		memcpy(&seg, mcfg + off + 8, 2);
		if (seg == 0 && mcfg[off + 10] == 0 && base < FOUR_GIB)
			return base;
	}
	return 0;
}

/* ---- config access ---------------------------------------------------- */

static uint32_t pci_cf8_addr(uint32_t bdf, uint32_t off)
{
	return PCI_CF8_EN | bdf << 8 | (off & 0xfc);
}

static uint64_t pci_ecam_addr(const struct platform *p, uint32_t bdf,
			      uint32_t off)
{
	if (!p->ecam)
		return 0;
	return p->ecam + ((uint64_t)bdf << 12) + (off & 0xffc);
}

static uint32_t pci_read32(const struct platform *p, uint32_t bdf,
			   uint32_t off)
{
	if (p->ecam)
		return mmio_read32(pci_ecam_addr(p, bdf, off));
	if (!p->cf8)
		return 0xffffffffu;
	outl(0xcf8, pci_cf8_addr(bdf, off));
	return inl(0xcfc);
}

static void pci_write32(const struct platform *p, uint32_t bdf,
			uint32_t off, uint32_t v)
{
	if (p->ecam) {
		mmio_write32(pci_ecam_addr(p, bdf, off), v);
	} else if (p->cf8) {
		outl(0xcf8, pci_cf8_addr(bdf, off));
		outl(0xcfc, v);
	}
}

static bool cf8_works(void)
{
	uint32_t old = inl(0xcf8);
	bool ok;

	outl(0xcf8, PCI_CF8_EN);
	ok = inl(0xcf8) == PCI_CF8_EN;
	outl(0xcf8, old);
	return ok;
}

static uint32_t find_xen(const struct platform *p)
{
	for (uint32_t dev = 0; dev < 32; dev++) {
		uint32_t id = pci_read32(p, PCI_BDF_OF(0, dev, 0), 0);
		uint32_t nfn = 1;

		if ((id & 0xffff) == 0xffff || (id & 0xffff) == 0)
			continue;
		if (pci_read32(p, PCI_BDF_OF(0, dev, 0), 0xc) & 0x800000)
			nfn = 8;
		for (uint32_t fn = 0; fn < nfn; fn++) {
			uint32_t bdf = PCI_BDF_OF(0, dev, fn);

			id = fn ? pci_read32(p, bdf, 0) : id;
			if ((id & 0xffff) == XEN_VENDOR &&
			    (id >> 16 == 1 || id >> 16 == 2))
				return bdf;
		}
	}
	return BENCH_NO_BDF;
}

/* BAR1 as the firmware left it, or placed at `at` if unassigned.  Sized
 * with decode off, as Linux does, so the probe never moves a mapping. */
static void setup_bar1(struct platform *p, uint64_t at)
{
	uint32_t bdf = p->xen_bdf, bar = pci_read32(p, bdf, 0x14);
	uint32_t cmd = pci_read32(p, bdf, 0x4) & 0xffff, size;

	pci_write32(p, bdf, 0x04, cmd & ~PCI_COMMAND_MEM);
	pci_write32(p, bdf, 0x14, 0xffffffffu);
	size = pci_read32(p, bdf, 0x14) & ~0xfu;
	p->bar1_size = size ? (uint64_t)(~size + 1u) : 0;
	p->bar1_from = "firmware";
	if ((bar & ~0xfu) == 0) {
		bar = (uint32_t)at;
		p->bar1_from = "payload";
	}
	pci_write32(p, bdf, 0x14, bar);
	p->bar1 = pci_read32(p, bdf, 0x14) & ~0xfull;
	pci_write32(p, bdf, 0x04, cmd | PCI_COMMAND_MEM);
}

/* ---- memory map ------------------------------------------------------- */

static bool in_memmap(const struct hvm_start_info *si, uint64_t a,
		      uint64_t len, bool ram_only)
{
	uint32_t n;
	const struct hvm_memmap_table_entry *e = start_info_memmap(si, &n);

	for (uint32_t i = 0; e && i < n && i < 128; i++) {
		if (ram_only && e[i].type != HVM_MEMMAP_RAM)
			continue;
		if (ram_only ? (a >= e[i].addr && a + len <= e[i].addr +
				e[i].size) : (a < e[i].addr + e[i].size &&
					      e[i].addr < a + len))
			return true;
	}
	return false;
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

static void pick_addresses(struct platform *p, const struct hvm_start_info *si,
			   uint64_t buf_bytes)
{
	static const uint64_t null_cand[] = { 0x80000000ull, 0xc8000000ull,
					      0xf0000000ull };
	uint64_t sz = (buf_bytes + 0x1fffff) & ~0x1fffffull;

	for (unsigned int i = 0; i < 3 && !p->null_mmio; i++) {
		uint64_t a = null_cand[i];

		if (!in_memmap(si, a, 0x1000, false) &&
		    !overlaps(a, 0x1000, p->bar1, p->bar1_size) &&
		    !(p->ecam && overlaps(a, 0x1000, p->ecam, 0x10000000)))
			p->null_mmio = a;
	}
	for (uint64_t a = 0x2000000; sz && a + sz <= FOUR_GIB / 2;
	     a += 0x200000) {
		if (in_memmap(si, a, sz, true)) {
			p->ram_buf = a;
			p->ram_buf_size = sz;
			break;
		}
	}
	/* The virtio-blk buffers, clear of the bandwidth buffer. */
	for (uint64_t a = 0x4000000; a + BLK_BUF_BYTES <= FOUR_GIB / 2;
	     a += 0x200000) {
		if (in_memmap(si, a, BLK_BUF_BYTES, true) &&
		    !overlaps(a, BLK_BUF_BYTES, p->ram_buf, p->ram_buf_size)) {
			p->blk_buf = a;
			break;
		}
	}
}

static void platform_discover(struct platform *p,
			      const struct hvm_start_info *si,
			      uint64_t buf_bytes)
{
	const char *cmdline = start_info_cmdline(si);
	uint64_t bar1_at = FALLBACK_BAR1;
	const uint8_t *mcfg;

	memset(p, 0, sizeof(*p));
	p->xen_bdf = BENCH_NO_BDF;
	p->bar1_from = "none";
	cmdline_u64(cmdline, "bar1-at", &bar1_at);
	p->rsdp = find_rsdp(si, &p->rsdp_from);
	mcfg = p->rsdp ? find_mcfg(p->rsdp) : NULL;
	p->ecam = mcfg ? ecam_from_mcfg(mcfg) : 0;
	p->ecam_from = "mcfg";
	p->cf8 = cf8_works();
	if (!p->ecam) {
		p->ecam = FALLBACK_ECAM;
		p->ecam_from = "fallback";
		if ((pci_read32(p, 0, 0) & 0xffff) == 0xffff ||
		    (pci_read32(p, 0, 0) & 0xffff) == 0) {
			p->ecam = 0;
			p->ecam_from = "none";
		}
	}
	if (p->ecam || p->cf8)
		p->xen_bdf = find_xen(p);
	if (p->xen_bdf != BENCH_NO_BDF)
		setup_bar1(p, bar1_at);
	pick_addresses(p, si, buf_bytes);
}
