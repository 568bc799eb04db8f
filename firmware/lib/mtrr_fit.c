// SPDX-License-Identifier: MIT
/* Where the UC hole ends; see mtrr_fit.h. */
#include "firmware/lib/mtrr_fit.h"

#define MIB1		0x100000ull
#define GIB4		0x100000000ull

int mtrr_layout_fit(struct mtrr_config *cfg, uint64_t hole_end_max,
		    struct mtrr_layout *out)
{
	uint64_t start = cfg->hole_end, best_end = start, last = 0;
	unsigned int best = ~0u;
	struct mtrr_layout l;
	int rc;

	if (hole_end_max < start)
		return MTRR_EINVAL;
	/* Alignment 1 (the exact end), then 1 MiB .. 4 GiB. */
	for (uint64_t a = 1; a <= GIB4; a = a == 1 ? MIB1 : a << 1) {
		uint64_t end = (start + a - 1) & ~(a - 1);

		if (end > hole_end_max)
			break;
		if (end == last)
			continue;
		last = end;
		cfg->hole_end = end;
		rc = mtrr_layout_build(cfg, &l);
		if (rc == MTRR_EINVAL)
			break;
		if (l.nr_needed < best) {
			best = l.nr_needed;
			best_end = end;
		}
	}
	cfg->hole_end = best_end;
	return mtrr_layout_build(cfg, out);
}
