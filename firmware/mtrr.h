/* SPDX-License-Identifier: MIT */
/*
 * MTRRs: the layout (firmware/lib/mtrr_layout.c) for this machine turned
 * into one list of MSR writes in the AP page, which every CPU applies
 * unchanged, so all CPUs end up identical: the boot CPU with
 * mtrr_apply(), the APs in their real-mode trampoline (smp.c).
 *
 *   mtrr_cpu_read()  ring 0: CPUID MTRR bit, MTRRcap, physical bits.
 *   mtrr_plan()      ring 3: layout and list; a layout that does not fit
 *                    VCNT (or bad input) ends the VM with
 *                    ABI_FW_FAIL_MTRR and a console line, never a
 *                    partial layout.
 *   mtrr_apply()     ring 0: the list on this CPU.
 */
#ifndef FW_MTRR_H
#define FW_MTRR_H

#include <stdint.h>

#include "firmware/lib/bar_alloc.h"
#include "firmware/machine.h"

/* One MSR write; the list ends with msr 0.  Read by the AP trampoline
 * (ap.S): keep the layout. */
struct mtrr_msr {
	uint32_t msr;
	uint32_t lo;
	uint32_t hi;
};

struct mtrr_cpu {
	unsigned int vcnt;		/* MTRRcap.VCNT */
	unsigned int phys_bits;		/* CPUID 0x80000008 EAX[7:0] */
};

void mtrr_cpu_read(struct mtrr_cpu *c);
void mtrr_plan(const struct machine *m, const struct bar_summary *s,
	       const struct mtrr_cpu *c);
void mtrr_apply(void);

#endif
