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
	fprintf(out, "%s: %d PASS, %d FAIL, %d TIMEOUT, %d SKIP (%.1fs of "
		"runs)", who, t->n[V_PASS], t->n[V_FAIL], t->n[V_TIMEOUT],
		t->n[V_SKIP], t->secs);
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
		bool ok = r.v == V_PASS || r.v == V_SKIP;

		fprintf(o.f, "%sok %d - %s", ok ? "" : "not ", i + 1,
			items[i].plan.t->name);
		if (r.v == V_SKIP) {
			fputs(" # SKIP ", o.f);
			tap_text(o.f, r.text);
		} else if (r.text[0]) {
			fputs(": ", o.f);
			tap_text(o.f, r.text);
		}
		fputc('\n', o.f);
		if (r.v != V_SKIP)
			fprintf(o.f, "  ---\n  duration_ms: %.0f\n  ...\n",
				r.secs * 1000);
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

static void junit_case(FILE *f, const char *cls, const struct run_item *it,
		       const struct result *r)
{
	fputs("    <testcase classname=\"", f);
	report_xml_escape(f, cls);
	fputs("\" name=\"", f);
	report_xml_escape(f, it->plan.t->name);
	fprintf(f, "\" time=\"%.3f\">", r->secs);
	if (r->v == V_SKIP || r->v == V_FAIL || r->v == V_TIMEOUT) {
		fprintf(f, "<%s message=\"", r->v == V_SKIP ? "skipped" :
			"failure");
		report_xml_escape(f, r->v == V_TIMEOUT && !r->text[0] ?
				  "timeout" : r->text);
		fputs("\"/>", f);
	}
	if (r->log[0]) {
		fputs("<system-out>log: ", f);
		report_xml_escape(f, r->log);
		fputs("</system-out>", f);
	}
	fputs("</testcase>\n", f);
}

static void junit_suite(FILE *f, const char *suite, const char *who,
			int kind, const struct run_item *items, int n)
{
	struct tally t;

	report_tally(items, n, kind, &t);
	fputs("  <testsuite name=\"", f);
	report_xml_escape(f, who);
	fputs(": ", f);
	report_xml_escape(f, suite);
	fprintf(f, "\" tests=\"%d\" failures=\"%d\" skipped=\"%d\" "
		"time=\"%.3f\">\n", n, t.n[V_FAIL] + t.n[V_TIMEOUT],
		t.n[V_SKIP], t.secs);
	for (int i = 0; i < n; i++) {
		struct result r = effective(&items[i], kind);

		junit_case(f, who, &items[i], &r);
	}
	fputs("  </testsuite>\n", f);
}

int report_junit(const char *path, const char *suite,
		 const struct run_item *items, int n, bool peer)
{
	struct outfile o;

	if (open_out(&o, path) < 0)
		return -1;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n",
	      o.f);
	junit_suite(o.f, suite, "minivmm", RUN_VMM, items, n);
	if (peer)
		junit_suite(o.f, suite, "qemu", RUN_QEMU, items, n);
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
