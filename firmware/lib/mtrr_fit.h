/* SPDX-License-Identifier: MIT */
/*
 * mtrr_fit: picks where the uncacheable PCI hole ends when the address
 * space above it is unused, so that the MTRR layout takes the fewest
 * variable MTRRs.  The exact end of ECAM is rarely a good boundary (a
 * 127-bus ECAM window needs 10 variable MTRRs, more than KVM's 8); ending
 * the hole at the next 8 MiB or 256 MiB boundary instead costs nothing,
 * since nothing lives there, and brings every bus count down to 6 with
 * the Xen BAR exception, 2 without.
 *
 * Pure; freestanding (<stdint.h>); no globals.  Uses mtrr_layout.
 */
#ifndef MINIVMM_MTRR_FIT_H
#define MINIVMM_MTRR_FIT_H

#include <stdint.h>

#include "firmware/lib/mtrr_layout.h"

/*
 * mtrr_layout_build() for cfg, with cfg->hole_end free to move up to
 * hole_end_max (all of [cfg->hole_end, hole_end_max) must be unused
 * address space): tries the given end and the end rounded up to each
 * power of two from 1 MiB to 4 GiB that stays within hole_end_max, and
 * keeps the layout with the fewest variable MTRRs (on a tie, the lowest
 * end).  Sets cfg->hole_end to the end chosen.  Returns like
 * mtrr_layout_build(): MTRR_ENOSPC only if no candidate fits VCNT (then
 * out->nr_needed is the smallest count found), MTRR_EINVAL if cfg is bad
 * or hole_end_max < cfg->hole_end.
 */
int mtrr_layout_fit(struct mtrr_config *cfg, uint64_t hole_end_max,
		    struct mtrr_layout *out);

#endif
