// SPDX-License-Identifier: MIT
/*
 * The table is a sorted array of disjoint spans holding only what rules
 * said (MSR_ACT_NONE where a direction was never named); each rule rewrites
 * the spans it covers, splitting at its edges, so the last word per MSR and
 * direction is simply what is stored.  The default is kept apart and filled
 * in by lookups and by the effective view.  Entries remember the rule they
 * came from (origin) so later errors can point at it.
 */
#include "vmm/msr/policy.h"
#include "vmm/msr/arch.h"
#include "vmm/msr/names.h"
#include "vmm/msr/table.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ORIGIN_DEFAULT	MSR_ORIGIN_DEFAULT
#define ORIGIN_X2APIC	MSR_ORIGIN_X2APIC
#define ORIGIN_ARCH	MSR_ORIGIN_ARCH
#define NBUILTIN	3u	/* origins before the first rule's */

void msr_policy_init(struct msr_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->def.action = MSR_ACT_ALLOW;
	p->def.origin = ORIGIN_DEFAULT;
}

void msr_policy_free(struct msr_policy *p)
{
	for (uint32_t i = 0; i < p->norigins; i++)
		free(p->origins[i]);
	free(p->origins);
	free(p->spans);
	memset(p, 0, sizeof(*p));
}

const char *msr_policy_origin(const struct msr_policy *p, uint32_t origin)
{
	if (origin == ORIGIN_DEFAULT)
		return "built-in default";
	if (origin == ORIGIN_X2APIC)
		return "x2APIC, always handled by KVM";
	if (origin == ORIGIN_ARCH)
		return "architectural, left to KVM";
	if (origin - NBUILTIN < p->norigins)
		return p->origins[origin - NBUILTIN];
	return "?";
}

uint32_t msr_table_add_origin(struct msr_policy *p, const char *src,
			   unsigned int line, size_t col)
{
	char buf[512];

	if (p->norigins == p->origins_cap) {
		uint32_t cap = p->origins_cap ? 2 * p->origins_cap : 16;
		char **o = realloc(p->origins, cap * sizeof(*o));

		if (!o)
			return UINT32_MAX;
		p->origins = o;
		p->origins_cap = cap;
	}
	snprintf(buf, sizeof(buf), "%s:%u:%zu", src, line, col + 1);
	p->origins[p->norigins] = strdup(buf);
	if (!p->origins[p->norigins])
		return UINT32_MAX;
	return NBUILTIN + p->norigins++;
}

static bool entry_equal(const struct msr_entry *a, const struct msr_entry *b)
{
	return a->action == b->action && a->flags == b->flags &&
	       a->value == b->value && a->origin == b->origin;
}

static void push_piece(struct msr_span *out, size_t *n, uint64_t lo,
		       uint64_t hi, const struct msr_entry *old,
		       unsigned int dmask, const struct msr_entry *e)
{
	struct msr_span *s = &out[(*n)++];

	memset(s, 0, sizeof(*s));
	s->first = (uint32_t)lo;
	s->last = (uint32_t)hi;
	if (old) {
		s->e[0] = old[0];
		s->e[1] = old[1];
	}
	for (int d = 0; d < 2; d++)
		if (dmask & (1u << d))
			s->e[d] = e[d];
}

static size_t coalesce(struct msr_span *s, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (k && s[k - 1].last + 1ull == s[i].first &&
		    entry_equal(&s[k - 1].e[0], &s[i].e[0]) &&
		    entry_equal(&s[k - 1].e[1], &s[i].e[1])) {
			s[k - 1].last = s[i].last;
			continue;
		}
		s[k++] = s[i];
	}
	return k;
}

/* The spans replacing spans[*lo..*hi) (those [first, last] touches) into
 * out, which holds 2 * (*hi - *lo) + 3; their count. */
static size_t rewrite(const struct msr_policy *p, uint32_t first,
		      uint32_t last, unsigned int dmask,
		      const struct msr_entry e[2], size_t lo, size_t *hi,
		      struct msr_span *out)
{
	size_t n = 0, i = lo;
	uint64_t cur = first;

	if (i < p->nspans && p->spans[i].first < first) {
		out[n] = p->spans[i];
		out[n++].last = first - 1;
	}
	for (; i < p->nspans && p->spans[i].first <= last; i++) {
		const struct msr_span *s = &p->spans[i];
		uint64_t a = s->first > first ? s->first : first;
		uint64_t b = s->last < last ? s->last : last;

		if (cur < a)
			push_piece(out, &n, cur, a - 1, NULL, dmask, e);
		push_piece(out, &n, a, b, s->e, dmask, e);
		cur = b + 1;
		if (s->last > last)
			break;
	}
	if (cur <= last)
		push_piece(out, &n, cur, last, NULL, dmask, e);
	if (i < p->nspans && p->spans[i].first <= last &&
	    p->spans[i].last > last) {
		out[n] = p->spans[i];
		out[n++].first = last + 1;
		i++;
	}
	*hi = i;
	return n;
}

/* Rewrites only the spans the rule touches, in place: copying the whole
 * table into a fresh array per rule made loading a long policy
 * quadratic in allocations. */
int msr_table_apply(struct msr_policy *p, uint32_t first, uint32_t last,
		 unsigned int dmask, const struct msr_entry e[2])
{
	size_t lo = 0, hi = 0, k = 0, n, total;
	struct msr_span *out;

	while (lo < p->nspans && p->spans[lo].last < first)
		lo++;
	while (lo + k < p->nspans && p->spans[lo + k].first <= last)
		k++;
	out = malloc((2 * k + 3) * sizeof(*out));
	if (!out)
		return -1;
	n = rewrite(p, first, last, dmask, e, lo, &hi, out);
	total = lo + n + (p->nspans - hi);
	if (total > p->cap) {
		size_t cap = total > 2 * p->cap ? total : 2 * p->cap;
		struct msr_span *v = realloc(p->spans, cap * sizeof(*v));

		if (!v) {
			free(out);
			return -1;
		}
		p->spans = v;
		p->cap = cap;
	}
	memmove(&p->spans[lo + n], &p->spans[hi],
		(p->nspans - hi) * sizeof(*out));
	memcpy(&p->spans[lo], out, n * sizeof(*out));
	free(out);
	p->nspans = coalesce(p->spans, total);
	return 0;
}

static bool in_x2apic(uint32_t index)
{
	return index >= MSR_X2APIC_FIRST && index <= MSR_X2APIC_LAST;
}

/* What an unnamed direction of index gets. */
static struct msr_entry resolve_none(const struct msr_policy *p,
				     uint32_t index)
{
	struct msr_entry e = p->def;

	if (in_x2apic(index) ||
	    (p->def.action != MSR_ACT_ALLOW && msr_arch_covers(index))) {
		memset(&e, 0, sizeof(e));
		e.action = MSR_ACT_ALLOW;
		e.origin = in_x2apic(index) ? ORIGIN_X2APIC : ORIGIN_ARCH;
		return e;
	}
	e.flags |= MSR_F_DEFAULT;
	return e;
}

static const struct msr_span *find_span(const struct msr_policy *p,
					uint32_t index)
{
	size_t lo = 0, hi = p->nspans;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->spans[mid].last < index)
			lo = mid + 1;
		else if (p->spans[mid].first > index)
			hi = mid;
		else
			return &p->spans[mid];
	}
	return NULL;
}

struct msr_entry msr_policy_lookup(const struct msr_policy *p, uint32_t index,
				   enum msr_dir dir)
{
	const struct msr_span *s = find_span(p, index);

	if (s && s->e[dir].action != MSR_ACT_NONE)
		return s->e[dir];
	return resolve_none(p, index);
}

/* ---- effective view ------------------------------------------------- */

struct span_vec {
	struct msr_span *v;
	size_t n, cap;
	bool oom;
};

static bool same_row(const struct msr_entry *a, const struct msr_entry *b)
{
	return msr_entry_same(a, b) &&
	       (a->flags & MSR_F_DEFAULT) == (b->flags & MSR_F_DEFAULT) &&
	       (a->origin == ORIGIN_X2APIC) == (b->origin == ORIGIN_X2APIC) &&
	       (a->origin == ORIGIN_ARCH) == (b->origin == ORIGIN_ARCH);
}

static void vec_push(struct span_vec *vec, uint64_t lo, uint64_t hi,
		     const struct msr_entry e[2])
{
	struct msr_span *last = vec->n ? &vec->v[vec->n - 1] : NULL;

	if (last && last->last + 1ull == lo && same_row(&last->e[0], &e[0]) &&
	    same_row(&last->e[1], &e[1])) {
		last->last = (uint32_t)hi;
		return;
	}
	if (vec->n == vec->cap) {
		size_t cap = vec->cap ? 2 * vec->cap : 32;
		struct msr_span *v = realloc(vec->v, cap * sizeof(*v));

		if (!v) {
			vec->oom = true;
			return;
		}
		vec->v = v;
		vec->cap = cap;
	}
	vec->v[vec->n].first = (uint32_t)lo;
	vec->v[vec->n].last = (uint32_t)hi;
	vec->v[vec->n].e[0] = e[0];
	vec->v[vec->n].e[1] = e[1];
	vec->n++;
}

/* The first index after lo where resolve_none may answer differently:
 * an x2APIC or architectural-list edge. */
static uint64_t next_edge(uint64_t lo)
{
	uint64_t e = msr_arch_next_edge(lo);

	if (lo < MSR_X2APIC_FIRST && e > MSR_X2APIC_FIRST)
		e = MSR_X2APIC_FIRST;
	else if (lo <= MSR_X2APIC_LAST && e > MSR_X2APIC_LAST + 1ull)
		e = MSR_X2APIC_LAST + 1ull;
	return e;
}

/* Emits [lo, hi] with unnamed directions resolved, cut at the x2APIC and
 * architectural edges because the resolution differs there. */
static void emit(const struct msr_policy *p, struct span_vec *vec, uint64_t lo,
		 uint64_t hi, const struct msr_entry *named)
{
	while (lo <= hi) {
		uint64_t edge = next_edge(lo);
		uint64_t end = edge - 1 < hi ? edge - 1 : hi;
		struct msr_entry e[2];

		for (int d = 0; d < 2; d++)
			e[d] = named && named[d].action != MSR_ACT_NONE ?
			       named[d] : resolve_none(p, (uint32_t)lo);
		vec_push(vec, lo, end, e);
		lo = end + 1;
	}
}

size_t msr_policy_effective(const struct msr_policy *p, struct msr_span **out)
{
	struct span_vec vec = { 0 };
	uint64_t cur = 0;

	for (size_t i = 0; i < p->nspans; i++) {
		const struct msr_span *s = &p->spans[i];

		if (cur < s->first)
			emit(p, &vec, cur, s->first - 1ull, NULL);
		emit(p, &vec, s->first, s->last, s->e);
		cur = s->last + 1ull;
	}
	if (cur <= UINT32_MAX)
		emit(p, &vec, cur, UINT32_MAX, NULL);
	if (vec.oom) {
		free(vec.v);
		*out = NULL;
		return 0;
	}
	*out = vec.v;
	return vec.n;
}

bool msr_policy_uses_host(const struct msr_policy *p)
{
	for (size_t i = 0; i < p->nspans; i++)
		if (p->spans[i].e[MSR_READ].action == MSR_ACT_HOST)
			return true;
	return false;
}

/* ---- formatting ----------------------------------------------------- */

const char *msr_action_name(enum msr_action a)
{
	static const char *const n[] = {
		[MSR_ACT_NONE] = "none", [MSR_ACT_ALLOW] = "allow",
		[MSR_ACT_DENY] = "deny", [MSR_ACT_IGNORE] = "ignore",
		[MSR_ACT_VALUE] = "value", [MSR_ACT_EMULATE] = "emulate",
		[MSR_ACT_HOST] = "host",
	};

	return (unsigned int)a < sizeof(n) / sizeof(n[0]) ? n[a] : "?";
}

void msr_entry_format(char *buf, size_t len, const struct msr_entry *e)
{
	bool arg = e->action == MSR_ACT_VALUE ||
		   (e->action == MSR_ACT_EMULATE && e->value) ||
		   (e->action == MSR_ACT_HOST && (e->flags & MSR_F_FALLBACK));

	if (!len)
		return;
	if (arg)
		snprintf(buf, len, "%s=0x%llx%s%s", msr_action_name(e->action),
			 (unsigned long long)e->value,
			 e->flags & MSR_F_LOG ? ",log" : "",
			 e->flags & MSR_F_COUNT ? ",count" : "");
	else
		snprintf(buf, len, "%s%s%s", msr_action_name(e->action),
			 e->flags & MSR_F_LOG ? ",log" : "",
			 e->flags & MSR_F_COUNT ? ",count" : "");
}

bool msr_entry_same(const struct msr_entry *a, const struct msr_entry *b)
{
	return a->action == b->action && a->value == b->value &&
	       (a->flags & ~MSR_F_DEFAULT) == (b->flags & ~MSR_F_DEFAULT);
}

bool msr_entry_in_kernel(const struct msr_entry *e)
{
	return e->action == MSR_ACT_ALLOW &&
	       !(e->flags & (MSR_F_LOG | MSR_F_COUNT));
}

static void print_row(FILE *out, const struct msr_span *s)
{
	char range[32], rd[48], wr[48];
	const char *a = msr_name(s->first), *b = msr_name(s->last);

	if (s->first == s->last)
		snprintf(range, sizeof(range), "0x%08x", s->first);
	else
		snprintf(range, sizeof(range), "0x%08x-0x%08x", s->first,
			 s->last);
	msr_entry_format(rd, sizeof(rd), &s->e[0]);
	msr_entry_format(wr, sizeof(wr), &s->e[1]);
	fprintf(out, "%-21s  %-22s %-22s ", range, rd, wr);
	if (s->e[0].origin == ORIGIN_X2APIC) {
		fprintf(out, "(x2APIC: always KVM)");
		a = b = NULL;
	} else if (s->e[0].flags & s->e[1].flags & MSR_F_DEFAULT) {
		fprintf(out, "(default)");
		a = b = NULL;
	} else if (s->e[0].origin == ORIGIN_ARCH &&
		   s->e[1].origin == ORIGIN_ARCH) {
		fprintf(out, "(architectural) ");
	}
	if (s->first == s->last && a)
		fprintf(out, "%s", a);
	else if (a && b)
		fprintf(out, "%s..%s", a, b);
	fputc('\n', out);
}

void msr_policy_print(const struct msr_policy *p, FILE *out)
{
	struct msr_span *v;
	size_t n = msr_policy_effective(p, &v);
	char def[48];

	msr_entry_format(def, sizeof(def), &p->def);
	fprintf(out, "# MSR policy: default %s (%s); later rules win per MSR "
		"and direction\n", def, msr_policy_origin(p, p->def.origin));
	fprintf(out, "# %-19s  %-22s %-22s %s\n", "msr", "read", "write",
		"name");
	for (size_t i = 0; i < n; i++)
		print_row(out, &v[i]);
	if (!n)
		fprintf(out, "# (out of memory)\n");
	free(v);
}
