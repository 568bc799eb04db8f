/* SPDX-License-Identifier: MIT */
/*
 * mtrr_layout: turns the machine's memory map into MTRR register values
 * (MTRRdefType, the 11 fixed-range MSRs, PHYSBASE/PHYSMASK pairs), and looks
 * up the effective type of an address in such a layout (Intel SDM rules).
 * Pure computation: the firmware writes the values on every CPU, the tests
 * check them on the host.
 *
 * Freestanding: <stdint.h>, <stddef.h>, <stdbool.h> only; no globals.
 *
 * What gets which type (mtrr_layout_build):
 *   [0, 1 MiB)                fixed ranges: WB, except 0xA0000-0xBFFFF UC
 *                             (0xC0000-0xFFFFF is plain RAM holding our
 *                             ACPI/SMBIOS tables, not a shadowed ROM, so WB
 *                             rather than SeaBIOS's WP).
 *   RAM [1 MiB, low_ram_end)  WB
 *   [hole_start, hole_end)    UC, except the wb[] ranges, which are WB
 *   [hole_end, 4 GiB)         WB (flash ROM, IOAPIC, LAPIC): as hvmloader
 *                             after reverting ea187c0b7a, because firmware
 *                             running from UC flash is slow; the APICs are
 *                             mapped UC- through PAT anyway.
 *   RAM [4 GiB, high_ram_end) WB
 *   pci64 window              WB unless pci64_uc (see below)
 *   everything else           "don't care": unused address space, which
 *                             the solver may make UC or WB, whichever needs
 *                             fewer variable MTRRs.
 *
 * Recommended input for the minivmm machine (vmm/layout.h):
 *   hole = [0xC0000000, ECAM base + ECAM size), i.e. the 32-bit PCI window
 *   plus ECAM (config space is never cacheable on real chipsets; OVMF q35
 *   does the same); 0xF0000000 for 256 buses.  The gap between low RAM and
 *   0xC0000000 is unused and left to the solver.  From bar_alloc()'s
 *   summary: hole_start = uc_base (the window base) and, if wb_size != 0
 *   (--xen-bar-mtrr=wb), wb[0] = {wb_base, wb_size}: the Xen platform BAR
 *   at the top of the 32-bit window.  With =uc there is no exception
 *   (hvmloader's legacy layout: the whole hole UC, BAR included).
 *   pci64_uc = false: SeaBIOS and OVMF leave the 64-bit window WB.  Any
 *   non-WB MTRR type makes Linux downgrade memremap(WB)/ioremap_cache() of
 *   BARs (pmem, ivshmem, grant frames) to UC-, while drivers wanting UC use
 *   ioremap() whose PAT UC- gives UC over a WB MTRR anyway; and a 64 GiB
 *   window at a 1 GiB boundary costs up to five MTRRs.  pci64_uc = true
 *   reproduces hvmloader (the solver then usually picks default UC).
 *
 * Fewest variable MTRRs: the solver finds the exact minimum over layouts of
 * power-of-two WB and UC blocks, both for "default WB, carve UC blocks"
 * (hvmloader, SeaBIOS) and for "default UC, cover WB with blocks, carve UC
 * out of them" (coreboot, OVMF's MtrrLib), and keeps the smaller; on a tie,
 * default WB.  If the minimum exceeds VCNT it fails (MTRR_ENOSPC) instead of
 * returning a partial layout (hvmloader silently leaves the rest WB).
 */
#ifndef MINIVMM_MTRR_LAYOUT_H
#define MINIVMM_MTRR_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

/* Memory types (SDM vol. 3, "Memory Type Range Registers"). */
#define MTRR_TYPE_UC		0
#define MTRR_TYPE_WC		1
#define MTRR_TYPE_WT		4
#define MTRR_TYPE_WP		5
#define MTRR_TYPE_WB		6
#define MTRR_TYPE_INVALID	0xff	/* lookup: undefined overlap/bad addr */

/* MSR indices and bits. */
#define MTRR_MSR_CAP		0xfe
#define MTRR_MSR_DEF_TYPE	0x2ff
#define MTRR_MSR_PHYSBASE(n)	(0x200u + 2u * (n))
#define MTRR_MSR_PHYSMASK(n)	(0x201u + 2u * (n))
#define MTRR_CAP_VCNT_MASK	0xffu
#define MTRR_CAP_FIX		(1u << 8)
#define MTRR_CAP_WC		(1u << 10)
#define MTRR_DEF_TYPE_FE	(1u << 10)
#define MTRR_DEF_TYPE_E		(1u << 11)
#define MTRR_PHYSMASK_V		(1u << 11)

#define MTRR_NR_FIXED		11
#define MTRR_MAX_VAR		32	/* more than any CPU or VMM offers */
#define MTRR_MAX_WB		4	/* WB exceptions inside the hole */

/* Error codes returned by mtrr_layout_build(). */
#define MTRR_OK			0
#define MTRR_EINVAL		(-1)	/* inconsistent or unaligned input */
#define MTRR_ENOSPC		(-2)	/* needs more variable MTRRs than VCNT */

struct mtrr_range {
	uint64_t base;
	uint64_t size;
};

/* All addresses and sizes must be multiples of 4 KiB. */
struct mtrr_config {
	uint64_t low_ram_end;	/* RAM [0, low_ram_end); 1 MiB..hole_start */
	uint64_t high_ram_end;	/* RAM [4 GiB, high_ram_end); <= 4 GiB: none */
	uint64_t hole_start;	/* UC [hole_start, hole_end), may be empty */
	uint64_t hole_end;	/* <= 4 GiB; [hole_end, 4 GiB) stays WB */
	struct mtrr_range wb[MTRR_MAX_WB]; /* WB exceptions inside the hole */
	unsigned int nr_wb;
	struct mtrr_range pci64; /* 64-bit PCI window; size 0: none */
	bool pci64_uc;		/* make the 64-bit window UC (hvmloader) */
	unsigned int phys_bits;	/* CPUID 0x80000008 EAX[7:0], 32..52 */
	unsigned int vcnt;	/* MTRRcap[7:0]: variable MTRRs available */
};

/* One variable MTRR, as the two MSR values to write. */
struct mtrr_var {
	uint64_t base;		/* PHYSBASE: base | type */
	uint64_t mask;		/* PHYSMASK: mask | MTRR_PHYSMASK_V */
};

struct mtrr_layout {
	uint64_t def_type;	/* MTRRdefType: E | FE | default type */
	uint64_t fixed[MTRR_NR_FIXED]; /* in mtrr_fixed_msr(i) order */
	struct mtrr_var var[MTRR_MAX_VAR]; /* var[0..nr_var) in use */
	unsigned int nr_var;
	unsigned int nr_needed;	/* minimum found, also set on MTRR_ENOSPC */
	unsigned int phys_bits;
};

/*
 * Computes the layout for cfg into *out.  Returns MTRR_OK, MTRR_EINVAL or
 * MTRR_ENOSPC.  On error *out is zeroed (def_type 0: do not program it)
 * except nr_needed, which on MTRR_ENOSPC says how many would be needed.
 * The caller writes def_type = 0 first, then fixed[] and var[0..nr_var),
 * zeroes PHYSMASK for nr_var..VCNT-1, then writes def_type, identically on
 * every CPU.
 */
int mtrr_layout_build(const struct mtrr_config *cfg, struct mtrr_layout *out);

/* MSR index of fixed[i] (0x250, 0x258, 0x259, 0x268..0x26f); 0 if i >= 11. */
uint32_t mtrr_fixed_msr(unsigned int i);

/*
 * Effective MTRR type of physical address addr: UC if disabled; fixed ranges
 * below 1 MiB when enabled; else the matching variable ranges (UC wins, WT
 * beats WB, one match gives its type), else the default type.
 * MTRR_TYPE_INVALID for an undefined overlap or addr >= 2^phys_bits.
 */
uint8_t mtrr_layout_lookup(const struct mtrr_layout *l, uint64_t addr);

/* Short description of an error code, for the firmware's log. */
const char *mtrr_strerror(int err);

#endif
