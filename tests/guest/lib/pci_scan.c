// SPDX-License-Identifier: MIT
/*
 * Whole-bus scans (see pci_scan.h).
 */
#include "guest.h"
#include "pci_scan.h"

#define ALL_ONES	0xffffffffu
#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

/* Sampled registers: the header, the capability area's end, extended
 * space's start, middle and end. */
static const uint16_t bus0_regs[] = {
	0x000, 0x004, 0x008, 0x00c, 0x010, 0x02c, 0x03c, 0x0fc, 0x100, 0x104,
	0x7fc, 0xffc,
};
static const uint16_t busn_regs[] = { 0x000, 0x100, 0xffc };

static void note_bad(struct pci_scan *s, uint32_t at, uint32_t v)
{
	if (v != ALL_ONES && !s->bad++) {
		s->first_bad = at;
		s->bad_val = v;
	}
}

static void absent_reg(struct pci_scan *s, uint32_t bdf, unsigned int reg)
{
	note_bad(s, bdf << 12 | reg, pci_cfg_read(s->m, bdf, reg, 4));
}

static int keep_index(const struct pci_scan *s, uint32_t bdf)
{
	for (unsigned int i = 0; i < s->nkeep; i++)
		if (s->keep[i] == bdf)
			return (int)i;
	return -1;
}

static void scan_fn(struct pci_scan *s, uint32_t bdf)
{
	int k = keep_index(s, bdf);
	uint32_t id = pci_cfg_read(s->m, bdf, 0, 4);

	s->nfns++;
	if (id != ALL_ONES && s->nfound < PCI_SCAN_MAX_FOUND)
		s->found[s->nfound++] = bdf;
	if (k >= 0) {
		for (unsigned int r = 0; r < PCI_SCAN_DWORDS; r++)
			s->snap[k][r] = pci_cfg_read(s->m, bdf, r * 4, 4);
	} else if (id != ALL_ONES) {
		return;		/* present: the caller judges s->found */
	} else if (s->full) {
		for (unsigned int r = 1; r < PCI_SCAN_DWORDS; r++)
			absent_reg(s, bdf, r * 4);
	} else if (PCI_BDF_BUS(bdf) == 0) {
		for (unsigned int i = 1; i < ARRAY_LEN(bus0_regs); i++)
			absent_reg(s, bdf, bus0_regs[i]);
	} else {
		for (unsigned int i = 1; i < ARRAY_LEN(busn_regs); i++)
			absent_reg(s, bdf, busn_regs[i]);
	}
}

/* Past the last bus: CF8 reaches the bus model; ECAM reaches nothing. */
static void past_end(struct pci_scan *s, uint32_t bdf)
{
	uint32_t v = s->m == PCI_MECH_ECAM ?
		     mmio_read32(pci_ecam_addr(bdf, 0)) :
		     pci_cf8_read(bdf, 0, 4);

	note_bad(s, bdf << 12, v);
}

void pci_scan_run(void *arg)
{
	struct pci_scan *s = arg;

	s->nfns = s->nfound = s->bad = 0;
	for (uint32_t bdf = 0; bdf < s->buses * 256u; bdf++)
		scan_fn(s, bdf);
	if (s->buses < 256) {
		past_end(s, PCI_BDF(s->buses, 0, 0));
		past_end(s, PCI_BDF(s->buses, 3, 0));
	}
}

unsigned int pci_snap_diff(const uint32_t *a, const uint32_t *b,
			   unsigned int *first)
{
	unsigned int diff = 0;

	for (unsigned int r = 0; r < PCI_SCAN_DWORDS; r++) {
		if (a[r] != b[r] && !diff++ && first)
			*first = r;
	}
	return diff;
}

unsigned int pci_snap_width_errors(enum pci_mech m, uint32_t bdf,
				   const uint32_t *snap, unsigned int len)
{
	const uint8_t *c = (const uint8_t *)snap;
	unsigned int bad = 0;

	for (unsigned int r = 0; r < len; r++) {
		bad += pci_cfg_read(m, bdf, r, 1) != c[r];
		if (!(r & 1))
			bad += pci_cfg_read(m, bdf, r, 2) !=
			       (uint32_t)(c[r] | c[r + 1] << 8);
		if (m == PCI_MECH_ECAM && !(r & 7))
			bad += pci_ecam_read(bdf, r, 8) !=
			       (snap[r / 4] | (uint64_t)snap[r / 4 + 1] << 32);
	}
	return bad;
}
