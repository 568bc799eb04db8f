// SPDX-License-Identifier: MIT
/*
 * MTRR programming (see mtrr.h).  The order of the writes is the one
 * mtrr_layout.h prescribes: MTRRdefType = 0 (MTRRs off), the fixed
 * ranges, the variable pairs in use, every other pair up to VCNT cleared,
 * then MTRRdefType.  Caches are not flushed around the update: KVM
 * virtualises MTRRs without cache side effects, and nothing is cached
 * under the old types this early.
 */
#include "firmware/entry.h"
#include "firmware/io.h"
#include "firmware/lib/mtrr_fit.h"
#include "firmware/lib/mtrr_layout.h"
#include "firmware/mtrr.h"
#include "firmware/print.h"

#define CPUID1_EDX_MTRR		(1u << 12)
#define DEFAULT_PHYS_BITS	36	/* without CPUID 0x80000008 */
#define MTRR_LIST_MAX		((FW_AP_END - FW_AP_MSRS) / \
				 sizeof(struct mtrr_msr))

_Static_assert(sizeof(struct mtrr_msr) == 12, "ap.S reads 12-byte entries");
_Static_assert(MTRR_LIST_MAX >= 2 + MTRR_NR_FIXED + 2 * MTRR_MAX_VAR + 1,
	       "MTRR list does not fit the AP page");

#define fail(...)	fw_fail(ABI_FW_FAIL_MTRR, __VA_ARGS__)

void mtrr_cpu_read(struct mtrr_cpu *c)
{
	uint32_t r[4];
	uint64_t cap;

	cpuid(1, r);
	if (!(r[3] & CPUID1_EDX_MTRR))
		fail("the CPU has no MTRRs (CPUID.1:EDX[12])");
	cap = rdmsr(MTRR_MSR_CAP);
	if (!(cap & MTRR_CAP_FIX))
		fail("the CPU has no fixed-range MTRRs (MTRRcap 0x%llx)",
		     (unsigned long long)cap);
	c->vcnt = cap & MTRR_CAP_VCNT_MASK;
	if (c->vcnt > MTRR_MAX_VAR)
		c->vcnt = MTRR_MAX_VAR;		/* more than any layout needs */
	c->phys_bits = DEFAULT_PHYS_BITS;
	cpuid(0x80000000, r);
	if (r[0] >= 0x80000008) {
		cpuid(0x80000008, r);
		c->phys_bits = r[0] & 0xff;
	}
}

static void config(struct mtrr_config *cfg, const struct machine *m,
		   const struct bar_summary *s, const struct mtrr_cpu *c)
{
	const struct machine_pci *pci = &m->pci;
	uint64_t start = pci->mem32.start;
	uint64_t end = pci->mem32.start + pci->mem32.size;

	/* The hole: the 32-bit window and ECAM (never cacheable), and
	 * whatever lies between them. */
	if (pci->has_ecam) {
		if (pci->ecam.start < start)
			start = pci->ecam.start;
		if (pci->ecam.start + pci->ecam.size > end)
			end = pci->ecam.start + pci->ecam.size;
	}
	*cfg = (struct mtrr_config){
		.low_ram_end = m->low_ram_end,
		.high_ram_end = m->high_ram_end,
		.hole_start = start,
		.hole_end = end,
		.pci64 = { pci->mem64.start, pci->mem64.size },
		.phys_bits = c->phys_bits,
		.vcnt = c->vcnt,
	};
	if (s->wb_size) {	/* --xen-bar-mtrr=wb: the Xen BAR stays WB */
		cfg->wb[0] = (struct mtrr_range){ s->wb_base, s->wb_size };
		cfg->nr_wb = 1;
	}
}

static struct mtrr_msr *add(struct mtrr_msr *e, uint32_t msr, uint64_t v)
{
	*e = (struct mtrr_msr){ msr, (uint32_t)v, (uint32_t)(v >> 32) };
	return e + 1;
}

static void write_list(const struct mtrr_layout *l, unsigned int vcnt)
{
	struct mtrr_msr *e = phys_ptr(FW_AP_MSRS);

	e = add(e, MTRR_MSR_DEF_TYPE, 0);
	for (unsigned int i = 0; i < MTRR_NR_FIXED; i++)
		e = add(e, mtrr_fixed_msr(i), l->fixed[i]);
	for (unsigned int i = 0; i < vcnt; i++) {
		struct mtrr_var v = i < l->nr_var ? l->var[i]
						  : (struct mtrr_var){ 0, 0 };

		e = add(e, MTRR_MSR_PHYSBASE(i), v.base);
		e = add(e, MTRR_MSR_PHYSMASK(i), v.mask);
	}
	e = add(e, MTRR_MSR_DEF_TYPE, l->def_type);
	add(e, 0, 0);
}

void mtrr_plan(const struct machine *m, const struct bar_summary *s,
	       const struct mtrr_cpu *c)
{
	const struct mem_range *w64 = &m->pci.mem64;
	struct mtrr_config cfg;
	struct mtrr_layout l;
	int err;

	if (c->phys_bits < 32 || c->phys_bits > 52)
		fail("CPU reports %u physical address bits", c->phys_bits);
	if (w64->size && w64->start + w64->size > 1ull << c->phys_bits)
		fw_fail(ABI_FW_FAIL_WINDOW, "%s ends at 0x%llx, beyond the "
			"CPU's %u physical address bits", ABI_PROP_MEM64_WINDOW,
			(unsigned long long)(w64->start + w64->size),
			c->phys_bits);
	config(&cfg, m, s, c);
	/* Nothing lives between the hole and the APICs: the hole may end
	 * at a better boundary there (mtrr_fit.h). */
	err = mtrr_layout_fit(&cfg, MACHINE_MMIO_TOP, &l);
	if (err == MTRR_ENOSPC)
		fail("MTRR layout needs %u variable MTRRs, the CPU has %u",
		     l.nr_needed, c->vcnt);
	if (err)
		fail("MTRR layout: %s", mtrr_strerror(err));
	write_list(&l, c->vcnt);
	fw_printf("mtrr: default %s, %u of %u variable MTRRs\n",
		  (l.def_type & 0xff) == MTRR_TYPE_WB ? "WB" : "UC", l.nr_var,
		  c->vcnt);
}

void mtrr_apply(void)
{
	for (const struct mtrr_msr *e = phys_ptr(FW_AP_MSRS); e->msr; e++)
		wrmsr(e->msr, e->lo, e->hi);
}
