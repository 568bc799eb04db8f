// SPDX-License-Identifier: MIT
/*
 * PCI BAR placement.  See bar_alloc.h for the policy.
 *
 * Instead of sorting (which would reorder the caller's array or need
 * scratch space), each window is packed by walking the size classes that
 * are present, largest first, and within a class the requests in input
 * order.  Since every footprint is a power of two no larger than the one
 * before, a cursor aligned for the first BAR stays aligned for the rest.
 */
#include "bar_alloc.h"

#define IO_SPACE_END	0x10000ull
#define GIB4		0x100000000ull
#define MEM_MIN_ALIGN	0x1000ull

/* cls_win values */
enum { WIN_NONE, WIN_IO, WIN_MEM32, WIN_MEM64, WIN_XEN };

#define SEL(win)	(1u << (win))

static unsigned int order_of(uint64_t pow2)
{
	return 63 - __builtin_clzll(pow2);
}

/* Pass 1: validates r and records its window and footprint order. */
static void classify(struct bar_req *r, const struct bar_windows *w)
{
	uint64_t s = r->size, fp = s;

	r->addr = 0;
	r->status = BAR_INVALID;
	r->cls_win = WIN_NONE;
	r->cls_order = 0;
	if (!s || (s & (s - 1)))
		return;
	if (r->is_io) {
		if (r->is_64 || s < 4 || s > IO_SPACE_END)
			return;
		r->cls_win = WIN_IO;
	} else {
		if (s < 16 || (!r->is_64 && s > GIB4 / 2))
			return;
		if (fp < MEM_MIN_ALIGN)
			fp = MEM_MIN_ALIGN;
		if (r->is_64)
			r->cls_win = WIN_MEM64;	/* may still go low */
		else if (w->xen_bar_wb && (r->flags & BAR_F_XEN_PLATFORM))
			r->cls_win = WIN_XEN;
		else
			r->cls_win = WIN_MEM32;
	}
	r->cls_order = order_of(fp);
	r->status = BAR_PENDING;
}

static uint64_t class_mask(const struct bar_req *r, size_t n, unsigned int sel)
{
	uint64_t mask = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (SEL(r[i].cls_win) & sel)
			mask |= 1ull << r[i].cls_order;
	return mask;
}

static void set_result(struct bar_req *r, bool fits, uint64_t addr)
{
	r->status = fits ? BAR_PLACED : BAR_NOFIT;
	r->addr = fits ? addr : 0;
}

/*
 * Packs the BARs whose window is in sel into [lo, hi), bottom-up.  Returns
 * how many did not fit; records results unless dry.
 */
static unsigned int pack_up(struct bar_req *r, size_t n, unsigned int sel,
			    uint64_t lo, uint64_t hi, bool dry)
{
	uint64_t classes = class_mask(r, n, sel), cur = lo;
	unsigned int fails = 0;

	while (classes) {
		unsigned int k = order_of(classes);
		uint64_t fp = 1ull << k;
		size_t i;

		classes &= ~fp;
		for (i = 0; i < n; i++) {
			uint64_t a;
			bool fits;

			if (!(SEL(r[i].cls_win) & sel) || r[i].cls_order != k)
				continue;
			fits = fp - 1 <= UINT64_MAX - cur;
			a = fits ? (cur + fp - 1) & ~(fp - 1) : 0;
			fits = fits && a <= hi && fp <= hi - a;
			if (!dry)
				set_result(&r[i], fits, a);
			if (fits)
				cur = a + fp;
			else
				fails++;
		}
	}
	return fails;
}

/* Same, top-down from hi; returns the lowest address used in *low. */
static void pack_down(struct bar_req *r, size_t n, unsigned int sel,
		      uint64_t lo, uint64_t hi, uint64_t *low)
{
	uint64_t classes = class_mask(r, n, sel), cur = hi;

	while (classes) {
		unsigned int k = order_of(classes);
		uint64_t fp = 1ull << k;
		size_t i;

		classes &= ~fp;
		for (i = 0; i < n; i++) {
			uint64_t a;
			bool fits;

			if (!(SEL(r[i].cls_win) & sel) || r[i].cls_order != k)
				continue;
			fits = cur >= fp;
			a = fits ? (cur - fp) & ~(fp - 1) : 0;
			fits = fits && a >= lo;
			set_result(&r[i], fits, a);
			if (fits)
				cur = a;
		}
	}
	*low = cur;
}

static bool windows_ok(const struct bar_windows *w)
{
	if (w->io.size > IO_SPACE_END || w->io.base > IO_SPACE_END - w->io.size)
		return false;
	if (w->mem32.size > GIB4 || w->mem32.base > GIB4 - w->mem32.size)
		return false;
	if (w->mem64.size && (w->mem64.base < GIB4 ||
			      w->mem64.size > UINT64_MAX - w->mem64.base))
		return false;
	return true;
}

static void summarize(const struct bar_req *r, size_t n,
		      struct bar_summary *sum)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (r[i].status == BAR_PLACED)
			sum->placed++;
		else if (r[i].status == BAR_NOFIT)
			sum->nofit++;
		else
			sum->invalid++;
	}
}

int bar_alloc(struct bar_req *reqs, size_t n, const struct bar_windows *w,
	      struct bar_summary *sum)
{
	uint64_t lo, end, top;
	unsigned int low_sel = SEL(WIN_MEM32) | SEL(WIN_MEM64);
	size_t i;

	if (!w || !sum || (n && !reqs) || !windows_ok(w))
		return BAR_EINVAL;
	for (i = 0; i < n; i++)
		classify(&reqs[i], w);

	lo = w->mem32.base;
	end = lo + w->mem32.size;
	/* The Xen platform BAR first, at the top, out of the UC part. */
	pack_down(reqs, n, SEL(WIN_XEN), lo, end, &top);
	sum->uc_base = lo;
	sum->uc_size = top - lo;
	sum->wb_base = top;
	sum->wb_size = end - top;

	/* SeaBIOS: if the low window overflows, all 64-bit BARs go high. */
	sum->mem64_high = w->mem64.size &&
			  pack_up(reqs, n, low_sel, lo, top, true) > 0;
	if (sum->mem64_high)
		low_sel = SEL(WIN_MEM32);
	pack_up(reqs, n, low_sel, lo, top, false);
	if (sum->mem64_high)
		pack_up(reqs, n, SEL(WIN_MEM64), w->mem64.base,
			w->mem64.base + w->mem64.size, false);
	pack_up(reqs, n, SEL(WIN_IO), w->io.base, w->io.base + w->io.size,
		false);

	sum->placed = sum->nofit = sum->invalid = 0;
	summarize(reqs, n, sum);
	return BAR_OK;
}

const char *bar_status_str(unsigned int status)
{
	switch (status) {
	case BAR_PLACED:
		return "placed";
	case BAR_NOFIT:
		return "no room";
	case BAR_INVALID:
		return "invalid";
	default:
		return "pending";
	}
}
