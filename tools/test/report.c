// SPDX-License-Identifier: MIT
#include "tools/test/report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NAME_W		28
#define CELL_W		46

/* The result of kind for it, or a SKIP with the plan's reason. */
static struct result effective(const struct run_item *it, int kind)
{
	struct result r = it->res[kind];
	const char *why = it->plan.skip[0] ? it->plan.skip :
			  kind == RUN_VMM ? it->plan.vmm_skip : "";

	if (r.v == V_NONE && why[0]) {
		r.v = V_SKIP;
		snprintf(r.text, sizeof(r.text), "%s", why);
	}
	return r;
}

static void cell(char *buf, size_t size, const struct result *r)
{
	if (r->v == V_NONE) {
		snprintf(buf, size, "-");
		return;
	}
	snprintf(buf, size, "%s%s%s%s", verdict_name(r->v),
		 r->text[0] ? " (" : "", r->text, r->text[0] ? ")" : "");
	if (r->v != V_SKIP || r->secs > 0) {
		size_t n = strlen(buf);

		if (n < size)
			snprintf(buf + n, size - n, " %.1fs", r->secs);
	}
}

void report_header(FILE *out, bool peer)
{
	if (peer)
		fprintf(out, "%-*s %-*s %s\n", NAME_W, "TEST", CELL_W,
			"MINIVMM", "QEMU");
}

void report_line(FILE *out, const struct run_item *it, bool peer)
{
	struct result v = effective(it, RUN_VMM), q;
	char a[RESULT_TEXT_MAX + 32], b[RESULT_TEXT_MAX + 32];

	cell(a, sizeof(a), &v);
	if (!peer) {
		fprintf(out, "%s %s%s%s%s", verdict_name(v.v), it->plan.t->name,
			v.text[0] ? " (" : "", v.text, v.text[0] ? ")" : "");
		if (v.v != V_SKIP)
			fprintf(out, " %.1fs", v.secs);
		if (v.v == V_XFAIL || v.v == V_XPASS)
			fprintf(out, "; expected to fail: %s", it->xfail);
		fputc('\n', out);
	} else {
		q = effective(it, RUN_QEMU);
		cell(b, sizeof(b), &q);
		if (strlen(a) > CELL_W)
			strcpy(a + CELL_W - 3, "...");
		fprintf(out, "%-*s %-*s %s\n", NAME_W, it->plan.t->name,
			CELL_W, a, b);
	}
	fflush(out);
}

void report_tally(const struct run_item *items, int n, int kind,
		  struct tally *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < n; i++) {
		struct result r = effective(&items[i], kind);

		t->n[r.v]++;
		t->secs += r.secs;
	}
}

static void totals(FILE *out, const char *who, const struct tally *t)
{
	fprintf(out, "%s: %d PASS, %d FAIL, %d TIMEOUT, %d SKIP", who,
		t->n[V_PASS], t->n[V_FAIL], t->n[V_TIMEOUT], t->n[V_SKIP]);
	/* the rest only when there are some, so plain runs read as before */
	for (int v = V_XFAIL; v < V_COUNT; v++)
		if (t->n[v])
			fprintf(out, ", %d %s", t->n[v],
				verdict_name((enum verdict)v));
	fprintf(out, " (%.1fs of runs)", t->secs);
}

void report_totals(FILE *out, const struct run_item *items, int n, bool peer,
		   double wall)
{
	struct tally t;

	report_tally(items, n, RUN_VMM, &t);
	totals(out, "minivmm", &t);
	if (peer) {
		report_tally(items, n, RUN_QEMU, &t);
		fputs("; ", out);
		totals(out, "qemu", &t);
	}
	fprintf(out, "; %d tests in %.1fs\n", n, wall);
}

/* --- files ------------------------------------------------------------ */

struct outfile {
	char tmp[4352];
	const char *path;
	FILE *f;
};

static int open_out(struct outfile *o, const char *path)
{
	o->path = path;
	snprintf(o->tmp, sizeof(o->tmp), "%s.tmp.%d", path, (int)getpid());
	o->f = fopen(o->tmp, "w");
	if (o->f)
		return 0;
	fprintf(stderr, "minivmm: test: cannot write '%s': %s\n", path,
		strerror(errno));
	return -1;
}

static int close_out(struct outfile *o)
{
	int bad = ferror(o->f);

	if (fclose(o->f) || bad || rename(o->tmp, o->path)) {
		fprintf(stderr, "minivmm: test: cannot write '%s': %s\n",
			o->path, strerror(errno ? errno : EIO));
		unlink(o->tmp);
		return -1;
	}
	return 0;
}

/* TAP directive text: no '#' (a directive) and no newline. */
static void tap_text(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '#' ? '_' : *s == '\n' ? ' ' : *s, f);
}

int report_tap(const char *path, const struct run_item *items, int n)
{
	struct outfile o;

	if (open_out(&o, path) < 0)
		return -1;
	fprintf(o.f, "TAP version 13\n1..%d\n", n);
	for (int i = 0; i < n; i++) {
		struct result r = effective(&items[i], RUN_VMM);
		bool ok = r.v == V_PASS || r.v == V_SKIP || r.v == V_FLAKY ||
			  r.v == V_XPASS;

		fprintf(o.f, "%sok %d - %s", ok ? "" : "not ", i + 1,
			items[i].plan.t->name);
		if (r.v == V_SKIP) {
			fputs(" # SKIP ", o.f);
			tap_text(o.f, r.text);
		} else if (r.text[0]) {
			fputs(": ", o.f);
			tap_text(o.f, r.text);
		}
		if (r.v == V_XFAIL || r.v == V_XPASS) {
			fputs(" # TODO ", o.f);
			tap_text(o.f, items[i].xfail);
		}
		fputc('\n', o.f);
		if (r.v == V_SKIP)
			continue;
		fprintf(o.f, "  ---\n  duration_ms: %.0f\n", r.secs * 1000);
		if (r.attempts > 1)
			fprintf(o.f, "  attempts: %d\n", r.attempts);
		fputs("  ...\n", o.f);
	}
	return close_out(&o);
}

void report_xml_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if (c >= 0x20 || c == '\t' || c == '\n')
				fputc(c, f);
		}
	}
}

static void element(FILE *f, const char *tag, const char *type,
		    const char *a, const char *b)
{
	fprintf(f, "<%s ", tag);
	if (type)
		fprintf(f, "type=\"%s\" ", type);
	fputs("message=\"", f);
	report_xml_escape(f, a);
	report_xml_escape(f, b);
	fputs("\"/>", f);
}

/* The verdicts that are not a plain pass. */
static void junit_outcome(FILE *f, const struct run_item *it,
			  const struct result *r, bool xpass_ok)
{
	switch (r->v) {
	case V_SKIP:
		element(f, "skipped", NULL, r->text, "");
		break;
	case V_FAIL:
	case V_TIMEOUT:
		element(f, "failure", NULL, r->v == V_TIMEOUT && !r->text[0] ?
			"timeout" : r->text, "");
		break;
	case V_XFAIL:
		element(f, "skipped", "xfail", "expected to fail: ", it->xfail);
		break;
	case V_XPASS:
		if (!xpass_ok)
			element(f, "failure", "xpass", "passed, but expected "
				"to fail: ", it->xfail);
		break;
	case V_FLAKY:
		for (int k = 0; k < it->ntries; k++)
			element(f, "flakyFailure", verdict_name(it->tries[k].v),
				it->tries[k].text, "");
		break;
	default:
		break;
	}
}

static void junit_case(FILE *f, const char *cls, const struct run_item *it,
		       const struct result *r, bool xpass_ok)
{
	fputs("    <testcase classname=\"", f);
	report_xml_escape(f, cls);
	fputs("\" name=\"", f);
	report_xml_escape(f, it->plan.t->name);
	fprintf(f, "\" time=\"%.3f\">", r->secs);
	junit_outcome(f, it, r, xpass_ok);
	if (r->log[0] || r->v >= V_XFAIL) {
		fputs("<system-out>", f);
		if (r->v >= V_XFAIL) {	/* what happened, as the line says */
			fprintf(f, "%s: ", verdict_name(r->v));
			report_xml_escape(f, r->text);
			fputs(r->log[0] ? "; " : "", f);
		}
		if (r->log[0]) {
			fputs("log: ", f);
			report_xml_escape(f, r->log);
		}
		fputs("</system-out>", f);
	}
	fputs("</testcase>\n", f);
}

static void junit_suite(FILE *f, const struct junit_info *in, const char *who,
			int kind, const struct run_item *items, int n)
{
	struct tally t;

	report_tally(items, n, kind, &t);
	fputs("  <testsuite name=\"", f);
	report_xml_escape(f, who);
	fputs(": ", f);
	report_xml_escape(f, in->suite);
	fprintf(f, "\" tests=\"%d\" failures=\"%d\" skipped=\"%d\" "
		"time=\"%.3f\">\n", n, t.n[V_FAIL] + t.n[V_TIMEOUT] +
		(in->xpass_ok ? 0 : t.n[V_XPASS]), t.n[V_SKIP] + t.n[V_XFAIL],
		t.secs);
	if (in->shard)
		fprintf(f, "    <properties><property name=\"shard\" "
			"value=\"%s\"/></properties>\n", in->shard);
	for (int i = 0; i < n; i++) {
		struct result r = effective(&items[i], kind);

		junit_case(f, who, &items[i], &r, in->xpass_ok);
	}
	fputs("  </testsuite>\n", f);
}

int report_junit(const char *path, const struct junit_info *info,
		 const struct run_item *items, int n)
{
	struct outfile o;

	if (open_out(&o, path) < 0)
		return -1;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n",
	      o.f);
	junit_suite(o.f, info, "minivmm", RUN_VMM, items, n);
	if (info->peer)
		junit_suite(o.f, info, "qemu", RUN_QEMU, items, n);
	fputs("</testsuites>\n", o.f);
	return close_out(&o);
}

/* Markdown cells: no '|' and no newline. */
static void md_cell(FILE *f, const struct result *r)
{
	char buf[RESULT_TEXT_MAX + 32];

	cell(buf, sizeof(buf), r);
	for (char *p = buf; *p; p++)
		fputc(*p == '|' ? '/' : *p == '\n' ? ' ' : *p, f);
}

int report_markdown(const char *path, const struct run_item *items, int n,
		    const char *host)
{
	struct tally tv, tq;
	struct outfile o;

	if (open_out(&o, path) < 0)
		return -1;
	report_tally(items, n, RUN_VMM, &tv);
	report_tally(items, n, RUN_QEMU, &tq);
	fprintf(o.f, "%s\n\n| test | minivmm | QEMU |\n|---|---|---|\n", host);
	for (int i = 0; i < n; i++) {
		struct result v = effective(&items[i], RUN_VMM);
		struct result q = effective(&items[i], RUN_QEMU);

		fprintf(o.f, "| %s | ", items[i].plan.t->name);
		md_cell(o.f, &v);
		fputs(" | ", o.f);
		md_cell(o.f, &q);
		fputs(" |\n", o.f);
	}
	fprintf(o.f, "| **total** | %d PASS, %d FAIL, %d TIMEOUT, %d SKIP "
		"(%.0fs) | %d PASS, %d FAIL, %d TIMEOUT, %d SKIP (%.0fs) |\n",
		tv.n[V_PASS], tv.n[V_FAIL], tv.n[V_TIMEOUT], tv.n[V_SKIP],
		tv.secs, tq.n[V_PASS], tq.n[V_FAIL], tq.n[V_TIMEOUT],
		tq.n[V_SKIP], tq.secs);
	return close_out(&o);
}
