// SPDX-License-Identifier: MIT
/*
 * The rule parser: files, --msr strings and presets into table edits
 * (table.h).  Every error names FILE:LINE:COLUMN.
 */
#include "vmm/msr/policy.h"
#include "vmm/msr/names.h"
#include "vmm/msr/presets.h"
#include "vmm/msr/table.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_DEPTH	4	/* preset nesting */
#define QUOTE_MAX	64	/* longest user text quoted in a message */

struct loc {
	const char *src;
	unsigned int line;
	char *err;
	size_t errlen;
};

struct tok {
	const char *s;
	size_t len;
	size_t col;	/* 0-based offset in the line */
};

__attribute__((format(printf, 3, 4)))
static int fail(const struct loc *l, size_t col, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!l->err || !l->errlen)
		return -1;
	n = snprintf(l->err, l->errlen, "%s:%u:%zu: error: ", l->src, l->line,
		     col + 1);
	if (n < 0 || (size_t)n >= l->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(l->err + n, l->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static int qlen(size_t len)
{
	return len > QUOTE_MAX ? QUOTE_MAX : (int)len;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
	       c == '\f';
}

/* Splits text (up to a '#') into whitespace-separated tokens; returns how
 * many there are, storing at most max. */
static size_t tokenize(const char *text, struct tok *t, size_t max)
{
	size_t n = 0, i = 0;

	for (;;) {
		size_t start;

		while (text[i] && is_space(text[i]))
			i++;
		if (!text[i] || text[i] == '#')
			return n;
		start = i;
		while (text[i] && !is_space(text[i]) && text[i] != '#')
			i++;
		if (n < max)
			t[n] = (struct tok){ text + start, i - start, start };
		n++;
	}
}

static bool tok_is(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && strncasecmp(s, word, len) == 0;
}

static int digit_value(char c, unsigned int base)
{
	int d = -1;

	if (c >= '0' && c <= '9')
		d = c - '0';
	else if (c >= 'a' && c <= 'f')
		d = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		d = c - 'A' + 10;
	return d >= 0 && (unsigned int)d < base ? d : -1;
}

/* 0, -1 (malformed) or -2 (more than 64 bits). */
static int parse_num(const char *s, size_t len, uint64_t *out)
{
	unsigned int base = 10;
	size_t i = 0;
	uint64_t v = 0;
	bool big = false;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		return -1;
	for (; i < len; i++) {
		int d = digit_value(s[i], base);

		if (d < 0)
			return -1;
		if (v > (UINT64_MAX - (unsigned int)d) / base)
			big = true;
		v = v * base + (unsigned int)d;
	}
	*out = v;
	return big ? -2 : 0;
}

static int parse_index(const struct loc *l, const char *s, size_t len,
		       size_t col, uint32_t *index)
{
	uint64_t v;
	int rc;

	if (!len)
		return fail(l, col, "missing MSR number or name");
	if (!(s[0] >= '0' && s[0] <= '9')) {
		if (msr_lookup_name(s, len, index))
			return 0;
		return fail(l, col, "unknown MSR name '%.*s'", qlen(len), s);
	}
	rc = parse_num(s, len, &v);
	if (rc == -1)
		return fail(l, col, "malformed number '%.*s'", qlen(len), s);
	if (rc == -2 || v > UINT32_MAX)
		return fail(l, col, "MSR index '%.*s' does not fit in 32 bits",
			    qlen(len), s);
	*index = (uint32_t)v;
	return 0;
}

static int parse_msrs(const struct loc *l, const struct tok *t,
		      uint32_t *first, uint32_t *last)
{
	const char *dash = memchr(t->s, '-', t->len);
	size_t a = dash ? (size_t)(dash - t->s) : t->len;

	if (parse_index(l, t->s, a, t->col, first))
		return -1;
	if (!dash) {
		*last = *first;
		return 0;
	}
	if (parse_index(l, dash + 1, t->len - a - 1, t->col + a + 1, last))
		return -1;
	if (*last < *first)
		return fail(l, t->col, "range end 0x%x is below its start 0x%x",
			    *last, *first);
	return 0;
}

static unsigned int parse_dir(const struct tok *t)
{
	if (tok_is(t->s, t->len, "r"))
		return MSR_DIR_R;
	if (tok_is(t->s, t->len, "w"))
		return MSR_DIR_W;
	if (tok_is(t->s, t->len, "rw") || tok_is(t->s, t->len, "wr"))
		return MSR_DIR_R | MSR_DIR_W;
	return 0;
}

struct actions {
	int action;		/* enum msr_action, NONE if not given */
	uint8_t flags;		/* LOG, COUNT, FALLBACK */
	uint64_t value;
	bool wgp;
	size_t action_col, wgp_col;
};

static const char expected[] = "expected allow, deny, ignore, value=V, "
	"emulate[=V], host[=V], log, count or wgp";

static int parse_arg(const struct loc *l, const char *s, size_t len,
		     size_t col, uint64_t *v)
{
	int rc = parse_num(s, len, v);

	if (rc == -1)
		return fail(l, col, "malformed number '%.*s'", qlen(len), s);
	if (rc == -2)
		return fail(l, col, "number '%.*s' does not fit in 64 bits",
			    qlen(len), s);
	return 0;
}

/* One item of ACTION[,MODIFIER...]. */
static int parse_item(const struct loc *l, const char *s, size_t len,
		      size_t col, struct actions *a)
{
	static const struct { const char *name; int action; int arg; } kw[] = {
		{ "allow", MSR_ACT_ALLOW, 0 }, { "deny", MSR_ACT_DENY, 0 },
		{ "ignore", MSR_ACT_IGNORE, 0 }, { "value", MSR_ACT_VALUE, 2 },
		{ "emulate", MSR_ACT_EMULATE, 1 }, { "host", MSR_ACT_HOST, 1 },
		{ "log", -1, 0 }, { "count", -2, 0 }, { "wgp", -3, 0 },
	};
	const char *eq = memchr(s, '=', len);
	size_t klen = eq ? (size_t)(eq - s) : len;

	if (!len)
		return fail(l, col, "empty item in the action list");
	for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++) {
		if (!tok_is(s, klen, kw[i].name))
			continue;
		if (eq && !kw[i].arg)
			return fail(l, col, "'%s' takes no value", kw[i].name);
		if (!eq && kw[i].arg == 2)
			return fail(l, col, "'%s' needs a number: %s=V",
				    kw[i].name, kw[i].name);
		if (kw[i].action == -1)
			a->flags |= MSR_F_LOG;
		else if (kw[i].action == -2)
			a->flags |= MSR_F_COUNT;
		if (kw[i].action == -3) {
			a->wgp = true;
			a->wgp_col = col;
		}
		if (kw[i].action < 0)
			return 0;
		if (a->action != MSR_ACT_NONE)
			return fail(l, col, "second action '%.*s' after '%s'",
				    qlen(len), s, msr_action_name(a->action));
		a->action = kw[i].action;
		a->action_col = col;
		if (!eq)
			return 0;
		if (kw[i].action == MSR_ACT_HOST)
			a->flags |= MSR_F_FALLBACK;
		return parse_arg(l, eq + 1, len - klen - 1, col + klen + 1,
				 &a->value);
	}
	return fail(l, col, "unknown action '%.*s' (%s)", qlen(len), s,
		    expected);
}

static int parse_actions(const struct loc *l, const struct tok *t,
			 struct actions *a)
{
	size_t i = 0;

	memset(a, 0, sizeof(*a));
	for (;;) {
		const char *comma = memchr(t->s + i, ',', t->len - i);
		size_t end = comma ? (size_t)(comma - t->s) : t->len;

		if (parse_item(l, t->s + i, end - i, t->col + i, a))
			return -1;
		if (!comma)
			break;
		i = end + 1;
	}
	if (a->action == MSR_ACT_NONE)
		return fail(l, t->col, "no action in '%.*s' (%s)",
			    qlen(t->len), t->s, expected);
	return 0;
}

/* The read and write entries a rule's action list stands for. */
static int make_entries(const struct loc *l, const struct actions *a,
			unsigned int dmask, uint32_t origin,
			struct msr_entry e[2])
{
	bool drops = a->action == MSR_ACT_IGNORE ||
		     a->action == MSR_ACT_VALUE || a->action == MSR_ACT_HOST;

	if (a->wgp && !drops)
		return fail(l, a->wgp_col, "'wgp' only applies to ignore, "
			    "value and host (the actions that drop writes)");
	if (a->wgp && !(dmask & MSR_DIR_W))
		return fail(l, a->wgp_col, "'wgp' needs a rule that covers "
			    "writes (w or rw)");
	memset(e, 0, 2 * sizeof(*e));
	e[0].action = (uint8_t)a->action;
	e[0].flags = a->flags;
	e[0].origin = origin;
	if (a->action == MSR_ACT_VALUE || a->action == MSR_ACT_EMULATE ||
	    (a->flags & MSR_F_FALLBACK))
		e[0].value = a->value;
	e[1] = e[0];
	if (drops) {
		e[1].action = a->wgp ? MSR_ACT_DENY : MSR_ACT_IGNORE;
		e[1].flags &= (uint8_t)~MSR_F_FALLBACK;
		e[1].value = 0;
	}
	return 0;
}

static int too_many(const struct loc *l, const struct tok *t)
{
	return fail(l, t->col, "unexpected '%.*s' (one rule per line)",
		    qlen(t->len), t->s);
}

static int set_default(struct msr_policy *p, const struct loc *l,
		       const struct tok *t)
{
	struct actions a;
	uint32_t origin;

	if (parse_actions(l, t, &a))
		return -1;
	if (a.action != MSR_ACT_ALLOW && a.action != MSR_ACT_DENY &&
	    a.action != MSR_ACT_IGNORE)
		return fail(l, a.action_col, "the default must be allow, deny "
			    "or ignore");
	if (a.wgp)
		return fail(l, a.wgp_col, "'wgp' does not apply to the "
			    "default");
	if (a.action == MSR_ACT_ALLOW && a.flags)
		return fail(l, t->col, "'default allow' cannot log or count: "
			    "every MSR access would have to exit");
	origin = msr_table_add_origin(p, l->src, l->line, t->col);
	if (origin == UINT32_MAX)
		return fail(l, t->col, "out of memory");
	memset(&p->def, 0, sizeof(p->def));
	p->def.action = (uint8_t)a.action;
	p->def.flags = a.flags;
	p->def.origin = origin;
	return 0;
}

static int add_preset(struct msr_policy *p, const struct loc *l,
		      const char *name, size_t len, size_t col);

static int add_rule(struct msr_policy *p, const struct loc *l,
		    const struct tok *t, size_t n)
{
	unsigned int dmask = MSR_DIR_R | MSR_DIR_W;
	const struct tok *act = &t[1];
	uint32_t first, last, origin;
	struct msr_entry e[2];
	struct actions a;

	if (parse_msrs(l, &t[0], &first, &last))
		return -1;
	if (n > 3)
		return too_many(l, &t[3]);
	if (n == 1 || (n == 2 && parse_dir(&t[1])))
		return fail(l, t[n - 1].col + t[n - 1].len, "missing action "
			    "after '%.*s'", qlen(t[n - 1].len), t[n - 1].s);
	if (n == 3) {
		dmask = parse_dir(&t[1]);
		if (!dmask)
			return fail(l, t[1].col, "unknown direction '%.*s' "
				    "(expected r, w or rw)", qlen(t[1].len),
				    t[1].s);
		act = &t[2];
	}
	if (parse_actions(l, act, &a))
		return -1;
	origin = msr_table_add_origin(p, l->src, l->line, t[0].col);
	if (origin == UINT32_MAX || make_entries(l, &a, dmask, origin, e))
		return origin == UINT32_MAX ? fail(l, 0, "out of memory") : -1;
	if (msr_table_apply(p, first, last, dmask, e))
		return fail(l, t[0].col, "out of memory");
	return 0;
}

static int add_line(struct msr_policy *p, const struct loc *l,
		    const char *text)
{
	struct tok t[4];
	size_t n = tokenize(text, t, 4);

	if (!n)
		return 0;
	if (tok_is(t[0].s, t[0].len, "default")) {
		if (n == 1)
			return fail(l, t[0].col + t[0].len, "'default' needs "
				    "an action: allow, deny or ignore");
		if (n > 2)
			return too_many(l, &t[2]);
		return set_default(p, l, &t[1]);
	}
	if (t[0].len >= 7 && strncasecmp(t[0].s, "preset:", 7) == 0) {
		if (n > 1)
			return too_many(l, &t[1]);
		return add_preset(p, l, t[0].s + 7, t[0].len - 7,
				  t[0].col + 7);
	}
	return add_rule(p, l, t, n);
}

int msr_policy_add_line(struct msr_policy *p, const char *src,
			unsigned int line, const char *text,
			char *err, size_t errlen)
{
	struct loc l = { src, line, err, errlen };

	return add_line(p, &l, text);
}

int msr_policy_set_default(struct msr_policy *p, const char *src,
			   const char *text, char *err, size_t errlen)
{
	struct loc l = { src, 1, err, errlen };
	struct tok t[2];
	size_t n = tokenize(text, t, 2);

	if (!n)
		return fail(&l, 0, "empty default (expected allow, deny or "
			    "ignore)");
	if (n > 1)
		return too_many(&l, &t[1]);
	return set_default(p, &l, &t[0]);
}

int msr_policy_load_file(struct msr_policy *p, const char *path,
			 char *err, size_t errlen)
{
	struct loc l = { path, 1, err, errlen };
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	if (!f)
		return fail(&l, 0, "cannot read the MSR policy file: %s",
			    strerror(errno));
	while (rc == 0 && (len = getline(&buf, &cap, f)) >= 0) {
		if (strlen(buf) != (size_t)len)
			rc = fail(&l, strlen(buf), "NUL byte in the line");
		else
			rc = add_line(p, &l, buf);
		l.line++;
	}
	if (rc == 0 && ferror(f))
		rc = fail(&l, 0, "cannot read the MSR policy file: %s",
			  strerror(errno));
	free(buf);
	fclose(f);
	return rc;
}

int msr_policy_load(struct msr_policy *p, const char *path_or_preset,
		    char *err, size_t errlen)
{
	if (strncasecmp(path_or_preset, "preset:", 7) == 0)
		return msr_policy_add_line(p, "--msr-policy", 1,
					   path_or_preset, err, errlen);
	return msr_policy_load_file(p, path_or_preset, err, errlen);
}

static int add_preset(struct msr_policy *p, const struct loc *l,
		      const char *name, size_t len, size_t col)
{
	const char *canon;
	const char *const *rules = msr_preset_rules(name, len, &canon);
	char src[64];
	int rc = 0;

	if (!rules)
		return fail(l, col, "unknown preset '%.*s' (known: kvm, "
			    "xen-strict, xen-relaxed, therm-compat)",
			    qlen(len), name);
	if (p->depth >= MAX_DEPTH)
		return fail(l, col, "presets nested too deeply");
	snprintf(src, sizeof(src), "preset:%s", canon);
	p->depth++;
	for (unsigned int j = 0; rc == 0 && rules[j]; j++) {
		struct loc pl = { src, j + 1, l->err, l->errlen };

		rc = add_line(p, &pl, rules[j]);
	}
	p->depth--;
	return rc;
}
