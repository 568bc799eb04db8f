// SPDX-License-Identifier: MIT
/* SVG bar charts for the benchmark report: one horizontal bar per row with
 * its p10-p90 spread as a whisker, on a log scale when the values span more
 * than two decades.  Self-contained SVG 1.1, no scripts or fonts. */
#include "tools/bench/bench.h"
#include "tools/bench/plan.h"

#include <math.h>		/* INFINITY, isfinite: macros, no libm */
#include <stdlib.h>
#include <string.h>

#define WIDTH		960
#define LABEL_W		380
#define BAR_X		(LABEL_W + 10)
#define BAR_W		(WIDTH - BAR_X - 90)
#define ROW_H		22
#define TOP		44
#define LOG_SPAN	100.0	/* max/min above this: log scale */

static const char *const colours[] = { "#4878a8", "#9a9a9a", "#d08040" };
static const char *const series_names[] = { "minivmm", "floor",
					    "peer VMM" };

/* minivmm links without libm: the little logarithm the axes need. */
static double log10_of(double v)
{
	double z, z2, term, sum = 0;
	int k = 0;

	while (v >= 2) {
		v /= 2;
		k++;
	}
	while (v < 1) {
		v *= 2;
		k--;
	}
	/* ln(v) = 2 atanh((v-1)/(v+1)), |z| <= 1/3 */
	z = (v - 1) / (v + 1);
	z2 = z * z;
	term = z;
	for (int i = 1; i < 40; i += 2) {
		sum += term / i;
		term *= z2;
	}
	return (k * 0.6931471805599453 + 2 * sum) / 2.302585092994046;
}

static double pow10_of(int e)
{
	double r = 1;

	for (; e > 0; e--)
		r *= 10;
	for (; e < 0; e++)
		r /= 10;
	return r;
}

/* floor() of a value well inside int range. */
static int floor_of(double v)
{
	int i = (int)v;

	return (double)i > v ? i - 1 : i;
}

static int ceil_of(double v)
{
	int i = (int)v;

	return (double)i < v ? i + 1 : i;
}

struct scale {
	bool log;
	double lo, hi;		/* axis ends (value units) */
};

static void xml_text(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			/* Control characters are not allowed in XML 1.0. */
			fputc((unsigned char)*s < 0x20 ? ' ' : *s, out);
		}
	}
}

static struct scale pick_scale(const struct bench_bar *b, size_t n)
{
	double mn = INFINITY, mx = 0;
	struct scale s;

	for (size_t i = 0; i < n; i++) {
		double hi = b[i].hi > b[i].value ? b[i].hi : b[i].value;

		if (b[i].value > 0 && b[i].value < mn)
			mn = b[i].value;
		if (hi > mx)
			mx = hi;
	}
	s.log = mx / mn > LOG_SPAN;
	if (s.log) {
		s.lo = pow10_of(floor_of(log10_of(mn) + 1e-9));
		s.hi = pow10_of(ceil_of(log10_of(mx) - 1e-9));
		if (s.hi <= s.lo)
			s.hi = s.lo * 10;
	} else {
		double step = pow10_of(floor_of(log10_of(mx) + 1e-9));

		s.lo = 0;
		s.hi = ceil_of(mx / step - 1e-9) * step;
	}
	return s;
}

/* Pixel offset of v inside the bar area, clamped to it. */
static double px(const struct scale *s, double v)
{
	double f;

	if (v <= 0)
		return 0;
	f = s->log ? (log10_of(v) - log10_of(s->lo)) /
		     (log10_of(s->hi) - log10_of(s->lo)) : v / s->hi;
	if (f < 0)
		f = 0;
	if (f > 1)
		f = 1;
	return f * BAR_W;
}

static void tick_label(char *buf, size_t len, double v, const char *unit)
{
	if (!strcmp(unit, "ns"))
		bench_fmt_ns(buf, len, v);
	else
		snprintf(buf, len, "%g %s", v, unit);
}

static void axis(FILE *out, const struct scale *s, const char *unit,
		 double y_end)
{
	char label[32];
	double v, step = s->log ? 10 : (s->hi - s->lo) / 5;

	for (v = s->lo; v <= s->hi * 1.0001; v = s->log ? v * step : v + step) {
		double x = BAR_X + (s->log || v > 0 ? px(s, v) : 0);

		tick_label(label, sizeof(label), v, unit);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"#ddd\"/>\n", x, TOP - 6, x, y_end);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" "
			"text-anchor=\"middle\">", x, y_end + 14);
		xml_text(out, label);
		fputs("</text>\n", out);
		if (!s->log && step <= 0)
			break;
	}
}

static void bar(FILE *out, const struct scale *s, const struct bench_bar *b,
		double y, const char *unit)
{
	int c = b->series >= 0 && b->series < 3 ? b->series : 0;
	double w = px(s, b->value), mid = y + ROW_H / 2.0;
	char val[32];

	fprintf(out, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" "
		"text-anchor=\"end\">", LABEL_W, mid + 4);
	xml_text(out, b->label);
	fputs("</text>\n", out);
	fprintf(out, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
		"fill=\"%s\"/>\n", BAR_X, y + 3, w, ROW_H - 6, colours[c]);
	if (b->lo > 0 && b->hi >= b->lo)
		fprintf(out, "<path d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f "
			"%.1fV%.1f\" stroke=\"#222\" fill=\"none\"/>\n",
			BAR_X + px(s, b->lo), mid, BAR_X + px(s, b->hi),
			BAR_X + px(s, b->lo), mid - 4, mid + 4,
			BAR_X + px(s, b->hi), mid - 4, mid + 4);
	tick_label(val, sizeof(val), b->value, unit);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">",
		BAR_X + (b->hi > b->value ? px(s, b->hi) : w) + 4, mid + 4);
	xml_text(out, val);
	if (b->note) {
		fputc(' ', out);
		xml_text(out, b->note);
	}
	fputs("</text>\n", out);
}

/* One key per series that has a bar, top right. */
static void legend(FILE *out, const struct bench_bar *bars, size_t n)
{
	bool seen[3] = { false, false, false };
	int x = WIDTH - 10;

	for (size_t i = 0; i < n; i++)
		if (bars[i].series >= 0 && bars[i].series < 3)
			seen[bars[i].series] = true;
	for (int i = 2; i >= 0; i--) {
		if (!seen[i])
			continue;
		x -= 90;
		fprintf(out, "<rect x=\"%d\" y=\"10\" width=\"10\" "
			"height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"19\" "
			"font-size=\"11\">%s</text>\n", x, colours[i], x + 14,
			series_names[i]);
	}
}

int bench_svg_write(FILE *out, const char *title, const char *unit,
		    const struct bench_bar *bars, size_t n)
{
	size_t drawn = 0;
	struct scale s;
	double y;

	for (size_t i = 0; i < n; i++)
		drawn += bars[i].value > 0 && isfinite(bars[i].value);
	if (!drawn)
		return -1;
	s = pick_scale(bars, n);
	y = TOP + (double)drawn * ROW_H;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%.0f\" font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		WIDTH, y + 30);
	fprintf(out, "<text x=\"10\" y=\"20\" font-size=\"14\" "
		"font-weight=\"bold\">");
	xml_text(out, title);
	fprintf(out, " (%s scale; whiskers: p10-p90)</text>\n",
		s.log ? "log" : "linear");
	legend(out, bars, n);
	axis(out, &s, unit, y);
	y = TOP;
	for (size_t i = 0; i < n; i++) {
		if (!(bars[i].value > 0) || !isfinite(bars[i].value))
			continue;
		bar(out, &s, &bars[i], y, unit);
		y += ROW_H;
	}
	fputs("</svg>\n", out);
	return ferror(out) ? -1 : 0;
}

static int series_of(const struct bench_result *x)
{
	if (!strcmp(x->vmm, "kvm-floor") || !strcmp(x->vmm, "host"))
		return 1;
	return strcmp(x->vmm, "minivmm") ? 2 : 0;
}

struct labels {
	char label[160];
	char note[32];
};

/* The group's bars, VMM rows first, then the floor's (as the tables). */
static size_t group_bars(const struct bench_results *r, const char *g,
			 struct bench_bar *bars, struct labels *l)
{
	size_t n = 0;

	for (int floor = 0; floor < 2; floor++)
		for (size_t i = 0; i < r->n; i++) {
			const struct bench_result *x = &r->v[i];

			if (strcmp(x->group, g) || x->status != BENCH_OK ||
			    !(x->median_ns > 0) || (series_of(x) == 1) != floor)
				continue;
			snprintf(l[n].label, sizeof(l[n].label), "%s r%d [%s] %s",
				 x->name, x->ring, x->config, x->vmm);
			snprintf(l[n].note, sizeof(l[n].note), "(%.0f MB/s)",
				 x->mbps);
			bars[n] = (struct bench_bar){ l[n].label, x->median_ns,
				x->p10_ns, x->p90_ns, series_of(x),
				x->mbps >= 0 ? l[n].note : NULL };
			n++;
		}
	return n;
}

static int write_group(const char *dir, const struct bench_results *r,
		       const char *g, struct bench_bar *bars,
		       struct labels *labels)
{
	char path[4096], title[64];
	size_t n = group_bars(r, g, bars, labels);
	FILE *f;
	int ret;

	if (!n)
		return 0;
	snprintf(path, sizeof(path), "%s/%s.svg", dir, g);
	snprintf(title, sizeof(title), "%s: time per op", g);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = bench_svg_write(f, title, "ns", bars, n);
	if (fclose(f) != 0)
		ret = -1;
	return ret;
}

int bench_svg_groups(const char *dir, const struct bench_results *r)
{
	struct bench_bar *bars = calloc(r->n + 1, sizeof(*bars));
	struct labels *labels = calloc(r->n + 1, sizeof(*labels));
	int ret = 0;

	if (!bars || !labels) {
		ret = -1;
		goto out;
	}
	for (int g = 0; bench_groups[g]; g++)
		if (write_group(dir, r, bench_groups[g], bars, labels) < 0)
			ret = -1;
out:
	free(bars);
	free(labels);
	return ret;
}
