/* SPDX-License-Identifier: MIT */
/*
 * bar_alloc: decides the address of every PCI BAR inside the VMM's I/O,
 * 32-bit and 64-bit memory windows, SeaBIOS-style: pass 1 validates and
 * classifies each BAR, pass 2 packs each window largest first with natural
 * alignment.  It never produces overlaps: a BAR that does not fit is marked
 * BAR_NOFIT and the caller leaves its device's decoding off.
 * Pure computation on caller-provided arrays; no globals.
 *
 * Freestanding: <stdint.h>, <stddef.h>, <stdbool.h> only.
 *
 * Policy:
 *  - Footprint and alignment = size, at least 4 KiB for memory BARs (each
 *    gets its own page: RAM-backed BARs are memslots, and Linux wants
 *    mappable BARs page-aligned).  Windows are packed bottom-up in order of
 *    falling size, input order within a size, so no padding appears except
 *    to align a window's first BAR.
 *  - 64-bit memory BARs (SeaBIOS rule): all go in the 32-bit window if
 *    everything fits there; if the 32-bit window overflows and a 64-bit
 *    window exists, all of them move above 4 GiB.  All-or-nothing keeps the
 *    result predictable; 32-bit-only BARs then get the whole low window.
 *  - `prefetchable` is recorded only: one root bus has no bridge windows.
 *  - BAR_F_XEN_PLATFORM with xen_bar_wb (hvmloader 22650d6, --xen-bar-mtrr
 *    =wb): a 32-bit memory BAR so flagged is placed outside the normal pass,
 *    at the end of the 32-bit window (end - size, aligned down); the normal
 *    pass gets only the window below it.  The summary then reports the UC
 *    part [uc_base, +uc_size) and the WB part [wb_base, +wb_size) for
 *    mtrr_layout (mtrr_config.wb[]).  Without xen_bar_wb, or on an I/O or
 *    64-bit BAR, the flag is ignored and the whole window is the UC part
 *    (hvmloader's legacy layout).
 */
#ifndef MINIVMM_BAR_ALLOC_H
#define MINIVMM_BAR_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* bar_req.flags */
#define BAR_F_XEN_PLATFORM	(1u << 0)

/* bar_req.status after bar_alloc() */
#define BAR_PENDING		0	/* never left by a successful call */
#define BAR_PLACED		1	/* addr is valid */
#define BAR_NOFIT		2	/* no room: leave the device disabled */
#define BAR_INVALID		3	/* size 0, not a power of two, too big
					 * for its BAR type, or I/O + 64-bit */

/* bar_alloc() return values */
#define BAR_OK			0
#define BAR_EINVAL		(-1)	/* bad windows or NULL arguments */

struct bar_req {
	/* Input. */
	uint16_t bdf;		/* bus << 8 | dev << 3 | fn (for the log) */
	uint8_t index;		/* BAR number 0..5 (for the log) */
	bool is_io;
	bool is_64;		/* memory BAR with 64-bit address */
	bool prefetchable;
	uint32_t flags;		/* BAR_F_* */
	uint64_t size;		/* power of two; I/O 4..64K, memory >= 16,
				 * 32-bit memory <= 2 GiB */
	/* Output. */
	uint64_t addr;
	uint8_t status;		/* BAR_* status */
	/* Private to bar_alloc (pass 1 classification). */
	uint8_t cls_win;
	uint8_t cls_order;
};

struct bar_window {
	uint64_t base;
	uint64_t size;		/* 0: no such window */
};

struct bar_windows {
	struct bar_window io;	/* end <= 0x10000 */
	struct bar_window mem32; /* end <= 4 GiB */
	struct bar_window mem64; /* base >= 4 GiB, or size 0 */
	bool xen_bar_wb;	/* --xen-bar-mtrr=wb */
};

struct bar_summary {
	uint64_t uc_base;	/* part of mem32 to make UC */
	uint64_t uc_size;
	uint64_t wb_base;	/* top of mem32 holding the Xen BAR: WB */
	uint64_t wb_size;	/* 0: no WB exception */
	bool mem64_high;	/* 64-bit BARs went to the mem64 window */
	unsigned int placed;
	unsigned int nofit;
	unsigned int invalid;
};

/*
 * Assigns reqs[0..n): sets addr and status of each (order is unchanged).
 * Returns BAR_OK (check sum->nofit and sum->invalid for BARs that were not
 * placed) or BAR_EINVAL, in which case reqs are untouched.
 */
int bar_alloc(struct bar_req *reqs, size_t n, const struct bar_windows *w,
	      struct bar_summary *sum);

/* "placed", "no room", "invalid", "pending" */
const char *bar_status_str(unsigned int status);

#endif
