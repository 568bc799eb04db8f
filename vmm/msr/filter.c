// SPDX-License-Identifier: MIT
/*
 * Range layout.  Call an MSR an *exception* in a direction when its filter
 * bit (1 = plain allow) differs from the filter default; only exceptions
 * need covering.  A READ range covers read exceptions, a WRITE range write
 * exceptions, and one READ|WRITE range covers both, but only over MSRs
 * whose read and write bits agree, as it has a single bitmap.  MSRs a range
 * covers that are not exceptions just carry the default bit, so ranges may
 * span gaps freely, and overlapping ranges are harmless because every range
 * holds the true bits.
 *
 * Finding the fewest ranges: let p be the lowest exception not yet covered
 * in either direction.  Some range must cover p, and it can start at p
 * (everything below p is covered, so moving its start up to p loses
 * nothing) and run as far as it may: 12288 MSRs, and for READ|WRITE only up
 * to the first MSR whose bits disagree.  So at each step the choices are:
 * a READ|WRITE range from p (if p's bits agree), or a single-direction range
 * from p for the direction(s) uncovered at p.  A depth-first search over
 * those choices, bounded by 16 ranges and by the best layout found so far,
 * is exact and visits at most 2^17 nodes.  Each range is finally trimmed to
 * end at the last exception it covers.
 *
 * kvm_msr_allowed() computes a range's end as a u32 (base + nmsrs), so a
 * range reaching 0xffffffff wraps to end 0 and matches nothing: MSR
 * 0xffffffff can only get the filter default, and ranges stop below it.
 */
#include "vmm/msr/filter.h"
#include "vmm/kvm_compat.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAXR	KVM_MSR_FILTER_MAX_RANGES
#define WINDOW	((uint64_t)MSR_FILTER_RANGE_MAX)
#define END	(1ull << 32)	/* "no point" */
#define LIMIT	0xffffffffull	/* ranges end (exclusive) at most here */
#define RD	KVM_MSR_FILTER_READ
#define WR	KVM_MSR_FILTER_WRITE

/* Sorted disjoint half-open intervals [lo, hi). */
struct ivl_set {
	struct { uint64_t lo, hi; } *v;
	size_t n, cap;
	bool oom;
};

static void set_add(struct ivl_set *s, uint64_t lo, uint64_t hi)
{
	if (lo >= hi)
		return;
	if (s->n && s->v[s->n - 1].hi == lo) {
		s->v[s->n - 1].hi = hi;
		return;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		void *v = realloc(s->v, cap * sizeof(*s->v));

		if (!v) {
			s->oom = true;
			return;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n].lo = lo;
	s->v[s->n++].hi = hi;
}

/* Adds [lo, hi) minus the x2APIC MSRs, which KVM never filters. */
static void set_add_filterable(struct ivl_set *s, uint64_t lo, uint64_t hi)
{
	uint64_t xlo = MSR_X2APIC_FIRST, xhi = MSR_X2APIC_LAST + 1ull;

	set_add(s, lo, hi < xlo ? hi : xlo);
	set_add(s, lo > xhi ? lo : xhi, hi);
}

/* The lowest point >= x, or END. */
static uint64_t next_point(const struct ivl_set *s, uint64_t x)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].hi <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == s->n)
		return END;
	return s->v[lo].lo > x ? s->v[lo].lo : x;
}

/* The highest point < x, or UINT64_MAX if there is none. */
static uint64_t prev_point(const struct ivl_set *s, uint64_t x)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].lo < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return UINT64_MAX;
	return s->v[lo - 1].hi < x ? s->v[lo - 1].hi - 1 : x - 1;
}

struct cand {
	uint32_t flags;
	uint64_t lo, hi;	/* the window the range may use */
};

struct search {
	struct ivl_set r, w, d;	/* read and write exceptions, disagreement */
	struct cand cur[MAXR + 2], best[MAXR + 2];
	unsigned int ncur, nbest;
};

static void dfs(struct search *s, uint64_t cr, uint64_t cw);

static void try(struct search *s, uint32_t flags, uint64_t lo, uint64_t hi,
		uint64_t cr, uint64_t cw)
{
	s->cur[s->ncur++] = (struct cand){ flags, lo, hi };
	dfs(s, cr, cw);
	s->ncur--;
}

static void try_two(struct search *s, uint64_t p, uint64_t lim)
{
	s->cur[s->ncur++] = (struct cand){ RD, p, lim };
	try(s, WR, p, lim, lim, lim);
	s->ncur--;
}

/* cr, cw: every read (write) exception below it is covered. */
static void dfs(struct search *s, uint64_t cr, uint64_t cw)
{
	uint64_t nr = next_point(&s->r, cr), nw = next_point(&s->w, cw);
	uint64_t p, lim, rw;

	if (nr == END && nw == END) {
		if (s->ncur < s->nbest) {
			memcpy(s->best, s->cur, s->ncur * sizeof(s->cur[0]));
			s->nbest = s->ncur;
		}
		return;
	}
	if (s->ncur + 1 >= s->nbest)
		return;
	p = nr < nw ? nr : nw;
	lim = p + WINDOW < LIMIT ? p + WINDOW : LIMIT;
	rw = next_point(&s->d, p);
	rw = rw < lim ? rw : lim;
	if (nr == p && nw == p) {
		if (rw > p)
			try(s, RD | WR, p, rw, rw, rw);
		if (s->ncur + 2 < s->nbest)
			try_two(s, p, lim);
	} else if (nr == p) {
		if (rw > p)
			try(s, RD | WR, p, rw, rw, cw > rw ? cw : rw);
		try(s, RD, p, lim, lim, cw);
	} else {
		if (rw > p)
			try(s, RD | WR, p, rw, cr > rw ? cr : rw, rw);
		try(s, WR, p, lim, cr, lim);
	}
}

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* KVM ignores filters on x2APIC MSRs, so anything but allow there would
 * silently not happen: refuse it, naming the rule. */
static int check_x2apic(const struct msr_policy *p, char *err, size_t errlen)
{
	for (size_t i = 0; i < p->nspans; i++) {
		const struct msr_span *s = &p->spans[i];

		if (s->last < MSR_X2APIC_FIRST || s->first > MSR_X2APIC_LAST)
			continue;
		for (int d = 0; d < 2; d++) {
			char what[48];

			if (s->e[d].action == MSR_ACT_NONE ||
			    msr_entry_in_kernel(&s->e[d]))
				continue;
			msr_entry_format(what, sizeof(what), &s->e[d]);
			return fail(err, errlen, "%s: error: x2APIC MSRs "
				    "0x800-0x8ff cannot be filtered by KVM, but "
				    "this rule makes %ss of 0x%x '%s'; only "
				    "allow is possible there",
				    msr_policy_origin(p, s->e[d].origin),
				    d == MSR_READ ? "read" : "write",
				    s->first > MSR_X2APIC_FIRST ? s->first :
				    MSR_X2APIC_FIRST, what);
		}
	}
	return 0;
}

/* See the top of the file: 0xffffffff cannot differ from the default. */
static int check_last(const struct search *s, const struct msr_policy *p,
		      char *err, size_t errlen)
{
	for (int d = 0; d < 2; d++) {
		const struct ivl_set *set = d == MSR_READ ? &s->r : &s->w;
		struct msr_entry e;
		char what[48], def[48];

		if (next_point(set, LIMIT) != LIMIT)
			continue;
		e = msr_policy_lookup(p, (uint32_t)LIMIT, (enum msr_dir)d);
		msr_entry_format(what, sizeof(what), &e);
		msr_entry_format(def, sizeof(def), &p->def);
		return fail(err, errlen, "%s: error: MSR 0xffffffff can only "
			    "get the filter's default (KVM computes a range's "
			    "end in 32 bits, so no range can cover it), but "
			    "this rule makes its %ss '%s' under default '%s'",
			    msr_policy_origin(p, e.origin),
			    d == MSR_READ ? "read" : "write", what, def);
	}
	return 0;
}

static void classify(struct search *s, const struct msr_span *v, size_t n,
		     bool defbit)
{
	for (size_t i = 0; i < n; i++) {
		bool br = msr_entry_in_kernel(&v[i].e[MSR_READ]);
		bool bw = msr_entry_in_kernel(&v[i].e[MSR_WRITE]);
		uint64_t lo = v[i].first, hi = v[i].last + 1ull;

		if (br != defbit)
			set_add_filterable(&s->r, lo, hi);
		if (bw != defbit)
			set_add_filterable(&s->w, lo, hi);
		if (br != bw)
			set_add_filterable(&s->d, lo, hi);
	}
}

static bool silent_deny(const struct msr_entry *e)
{
	return e->action == MSR_ACT_DENY &&
	       !(e->flags & (MSR_F_LOG | MSR_F_COUNT));
}

/* Which denied accesses need user space (filter.h: exits, silent). */
static void note_exits(struct msr_filter *f, const struct msr_span *v,
		       size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (int d = MSR_READ; d <= MSR_WRITE; d++) {
			const struct msr_entry *e = &v[i].e[d];

			if (msr_entry_in_kernel(e))
				continue;
			if (silent_deny(e))
				f->silent = true;
			else
				f->exits = true;
		}
	}
}

/* Fills a range's bitmap from the effective table: 1 = in the kernel. */
static void fill_bits(uint8_t *bm, uint64_t base, uint64_t n,
		      const struct msr_span *v, size_t nv, enum msr_dir dir)
{
	for (size_t i = 0; i < nv; i++) {
		uint64_t lo = v[i].first, hi = v[i].last + 1ull;

		if (hi <= base || lo >= base + n)
			continue;
		if (!msr_entry_in_kernel(&v[i].e[dir]))
			continue;
		lo = lo > base ? lo : base;
		hi = hi < base + n ? hi : base + n;
		for (uint64_t m = lo; m < hi; m++)
			bm[(m - base) / 8] |= (uint8_t)(1u << ((m - base) % 8));
	}
}

static uint64_t last_covered(const struct search *s, const struct cand *c)
{
	uint64_t r = c->flags & RD ? prev_point(&s->r, c->hi) : UINT64_MAX;
	uint64_t w = c->flags & WR ? prev_point(&s->w, c->hi) : UINT64_MAX;

	if (r == UINT64_MAX || r < c->lo)
		return w;
	if (w == UINT64_MAX || w < c->lo)
		return r;
	return r > w ? r : w;
}

static int emit(struct msr_filter *f, uint32_t flags, uint64_t base,
		uint64_t n, const struct msr_span *v, size_t nv)
{
	struct kvm_msr_filter_range *r = &f->kvm.ranges[f->nranges];
	uint8_t *bm = calloc((n + 7) / 8, 1);

	if (!bm)
		return 1;	/* out of memory */
	fill_bits(bm, base, n, v, nv, flags & RD ? MSR_READ : MSR_WRITE);
	r->flags = flags;
	r->base = (uint32_t)base;
	r->nmsrs = (uint32_t)n;
	r->bitmap = bm;
	f->nranges++;
	return 0;
}

/* Runs the search; fills s->best or explains in err why it cannot. */
static int layout(struct search *s, const struct msr_policy *p,
		  char *err, size_t errlen)
{
	if (s->r.oom || s->w.oom || s->d.oom)
		return fail(err, errlen, "msr policy: error: out of memory");
	if (check_last(s, p, err, errlen))
		return -1;
	s->nbest = MAXR + 1;
	dfs(s, 0, 0);
	if (s->nbest > MAXR)
		return fail(err, errlen, "msr policy: error: the table needs "
			    "more than %d KVM filter ranges (each covers at "
			    "most %u consecutive MSRs; reads and writes need "
			    "separate ranges where they differ); group the "
			    "rules that differ from the default (%s) more "
			    "tightly", MAXR, MSR_FILTER_RANGE_MAX,
			    msr_action_name(p->def.action));
	return 0;
}

static int build(struct msr_filter *f, const struct msr_policy *p,
		 const struct msr_span *v, size_t nv, char *err, size_t errlen)
{
	bool defbit = msr_entry_in_kernel(&p->def);
	struct search *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return fail(err, errlen, "msr policy: error: out of memory");
	f->kvm.flags = defbit ? KVM_MSR_FILTER_DEFAULT_ALLOW :
				KVM_MSR_FILTER_DEFAULT_DENY;
	classify(s, v, nv, defbit);
	note_exits(f, v, nv);
	rc = layout(s, p, err, errlen);
	for (unsigned int i = 0; rc == 0 && i < s->nbest; i++) {
		const struct cand *c = &s->best[i];

		rc = emit(f, c->flags, c->lo, last_covered(s, c) + 1 - c->lo,
			  v, nv);
	}
	/* DEFAULT_DENY with no range is -EINVAL: give KVM a one-MSR range
	 * that repeats the default. */
	if (rc == 0 && !defbit && f->nranges == 0)
		rc = emit(f, RD | WR, 0, 1, v, nv);
	if (rc > 0)
		rc = fail(err, errlen, "msr policy: error: out of memory");
	free(s->r.v);
	free(s->w.v);
	free(s->d.v);
	free(s);
	return rc;
}

/* Gives index a span of its own in *v (sorted, covering every MSR): its
 * position, or -1 when out of memory. */
static long isolate(struct msr_span **v, size_t *nv, uint32_t index)
{
	struct msr_span *a = *v, s;
	size_t i = 0, extra;

	while (i < *nv && a[i].last < index)
		i++;
	if (i == *nv)
		return -1;
	s = a[i];
	if (s.first == index && s.last == index)
		return (long)i;
	extra = (s.first < index) + (s.last > index);
	a = realloc(a, (*nv + extra) * sizeof(*a));
	if (!a)
		return -1;
	*v = a;
	memmove(&a[i + 1 + extra], &a[i + 1], (*nv - i - 1) * sizeof(*a));
	*nv += extra;
	if (s.first < index) {
		a[i] = s;
		a[i++].last = index - 1;
	}
	a[i] = s;
	a[i].first = a[i].last = index;
	if (s.last > index) {
		a[i + 1] = s;
		a[i + 1].first = index + 1;
	}
	return (long)i;
}

/* Marks each watched access of the effective table as exiting. */
static int apply_watch(struct msr_span **v, size_t *nv,
		       const struct msr_watch *w, size_t n, char *err,
		       size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		long k;

		if (w[i].index >= MSR_X2APIC_FIRST &&
		    w[i].index <= MSR_X2APIC_LAST)
			return fail(err, errlen, "msr policy: error: MSR 0x%x "
				    "cannot be watched: KVM never filters the "
				    "x2APIC MSRs", w[i].index);
		k = isolate(v, nv, w[i].index);
		if (k < 0)
			return fail(err, errlen, "msr policy: error: out of "
				    "memory");
		if (w[i].read)
			(*v)[k].e[MSR_READ].flags |= MSR_F_COUNT;
		if (w[i].write)
			(*v)[k].e[MSR_WRITE].flags |= MSR_F_COUNT;
	}
	return 0;
}

int msr_filter_compile_watch(struct msr_filter *f, const struct msr_policy *p,
			     const struct msr_watch *watch, size_t nwatch,
			     char *err, size_t errlen)
{
	struct msr_span *v;
	size_t nv;
	int rc;

	memset(f, 0, sizeof(*f));
	if (check_x2apic(p, err, errlen))
		return -1;
	nv = msr_policy_effective(p, &v);
	if (!nv)
		return fail(err, errlen, "msr policy: error: out of memory");
	rc = apply_watch(&v, &nv, watch, nwatch, err, errlen);
	if (rc == 0)
		rc = build(f, p, v, nv, err, errlen);
	free(v);
	if (rc)
		msr_filter_free(f);
	return rc;
}

int msr_filter_compile(struct msr_filter *f, const struct msr_policy *p,
		       char *err, size_t errlen)
{
	return msr_filter_compile_watch(f, p, NULL, 0, err, errlen);
}

void msr_filter_free(struct msr_filter *f)
{
	for (unsigned int i = 0; i < MAXR; i++)
		free(f->kvm.ranges[i].bitmap);
	memset(f, 0, sizeof(*f));
}

bool msr_filter_needed(const struct msr_filter *f)
{
	return f->nranges || (f->kvm.flags & KVM_MSR_FILTER_DEFAULT_DENY);
}

bool msr_filter_allows(const struct msr_filter *f, uint32_t index,
		       enum msr_dir dir)
{
	uint32_t want = dir == MSR_READ ? RD : WR;

	if (index >= MSR_X2APIC_FIRST && index <= MSR_X2APIC_LAST)
		return true;
	if (!msr_filter_needed(f))
		return true;
	for (unsigned int i = 0; i < MAXR; i++) {
		const struct kvm_msr_filter_range *r = &f->kvm.ranges[i];
		uint32_t end = r->base + r->nmsrs;	/* wraps, as in KVM */
		uint32_t off = index - r->base;

		if (!r->nmsrs || !(r->flags & want) || index < r->base ||
		    index >= end)
			continue;
		return r->bitmap[off / 8] & (1u << (off % 8));
	}
	return !(f->kvm.flags & KVM_MSR_FILTER_DEFAULT_DENY);
}

void msr_filter_print(const struct msr_filter *f, FILE *out)
{
	fprintf(out, "# KVM MSR filter: default %s, %u of %d ranges\n",
		f->kvm.flags & KVM_MSR_FILTER_DEFAULT_DENY ? "deny" : "allow",
		f->nranges, MAXR);
	if (f->silent)
		fprintf(out, "# silent denials (deny without log or count): "
			"%s\n", f->exits ? "exit too, as other rules need "
			"KVM's filter exits" : "#GP from KVM itself, no exit");
	for (unsigned int i = 0; i < f->nranges; i++) {
		const struct kvm_msr_filter_range *r = &f->kvm.ranges[i];

		fprintf(out, "#   %-10s 0x%08x-0x%08x %5u MSRs, %4u bitmap "
			"bytes\n", r->flags == (RD | WR) ? "read|write" :
			r->flags == RD ? "read" : "write", r->base,
			(uint32_t)(r->base + (uint64_t)r->nmsrs - 1), r->nmsrs,
			(r->nmsrs + 7) / 8);
	}
}
