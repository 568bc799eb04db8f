// SPDX-License-Identifier: MIT
/* Unit tests for the benchmark writers: SVG charts (scales, escaping,
 * whiskers), markdown report, terminal table, JSON, and the ranking and
 * target figures they show. */
#include "tests/unit/unit.h"
#include "tools/bench/bench.h"

#include <cjson/cJSON.h>
#include <sys/stat.h>

/* Runs a writer into memory; the caller frees the text. */
#define CAPTURE(text, call)						\
	do {								\
		size_t len_;						\
		FILE *f_ = open_memstream(&(text), &len_);		\
									\
		ck_assert_ptr_nonnull(f_);				\
		call;							\
		fclose(f_);						\
	} while (0)

static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

static void add(struct bench_results *r, const char *name, int ring,
		const char *config, const char *vmm, const char *group,
		double ns)
{
	struct bench_result *x = bench_results_add(r);

	ck_assert_ptr_nonnull(x);
	snprintf(x->name, sizeof(x->name), "%s", name);
	x->ring = ring;
	snprintf(x->config, sizeof(x->config), "%s", config);
	x->vmm = vmm;
	x->group = group;
	x->median_ns = ns;
	x->p10_ns = ns * 0.9;
	x->p90_ns = ns * 1.1;
	x->repeats = 5;
}

/* --- SVG ------------------------------------------------------------------ */

START_TEST(svg_linear_scale)
{
	struct bench_bar b[] = {
		{ "ten", 10, -1, -1, 0, NULL },
		{ "thirty", 30, -1, -1, 1, NULL },
	};
	char *t = NULL;
	int ret;

	CAPTURE(t, ret = bench_svg_write(f_, "T", "ns", b, 2));
	ck_assert_int_eq(ret, 0);
	ck_assert(!strncmp(t, "<?xml", 5));
	ck_assert_ptr_nonnull(strstr(t, "linear scale"));
	ck_assert_str_eq(t + strlen(t) - 7, "</svg>\n");
	/* Axis 0..30: the 30 bar fills the 480 px area, 10 a third. */
	ck_assert_ptr_nonnull(strstr(t, "width=\"480.0\""));
	ck_assert_ptr_nonnull(strstr(t, "width=\"160.0\""));
	ck_assert_int_eq(count(t, "<path"), 0);	/* no spread given */
	ck_assert_ptr_nonnull(strstr(t, ">minivmm<"));	/* legend */
	ck_assert_ptr_nonnull(strstr(t, ">floor<"));
	ck_assert_ptr_null(strstr(t, ">peer VMM<"));
	free(t);
}
END_TEST

START_TEST(svg_log_scale_and_whiskers)
{
	struct bench_bar b[] = {
		{ "fast", 0.1, 0.09, 0.11, 0, NULL },
		{ "slow", 1e5, 9e4, 1e5, 2, "(5 MB/s)" },
	};
	char *t = NULL;

	CAPTURE(t, bench_svg_write(f_, "T", "ns", b, 2));
	ck_assert_ptr_nonnull(strstr(t, "log scale"));
	/* Decade ticks from 0.1 ns to 100 us. */
	ck_assert_ptr_nonnull(strstr(t, ">0.1 ns<"));
	ck_assert_ptr_nonnull(strstr(t, ">1 us<"));
	ck_assert_ptr_nonnull(strstr(t, ">100 us<"));
	ck_assert_int_eq(count(t, "<path"), 2);
	ck_assert_ptr_nonnull(strstr(t, "width=\"480.0\""));
	ck_assert_ptr_nonnull(strstr(t, "(5 MB/s)"));
	free(t);
}
END_TEST

START_TEST(svg_escapes_text)
{
	struct bench_bar b[] = { { "a<b & \"c\" 'd'\x01", 1, -1, -1, 0, "<x>" } };
	char *t = NULL;

	CAPTURE(t, bench_svg_write(f_, "t&t", "ns", b, 1));
	ck_assert_ptr_nonnull(strstr(t, "a&lt;b &amp; &quot;c&quot; "
				     "&apos;d&apos; <"));
	ck_assert_ptr_nonnull(strstr(t, "&lt;x&gt;"));
	ck_assert_ptr_nonnull(strstr(t, ">t&amp;t ("));
	ck_assert_ptr_null(strstr(t, "a<b"));
	ck_assert_ptr_null(strstr(t, "\x01"));
	free(t);
}
END_TEST

START_TEST(svg_nothing_to_draw)
{
	struct bench_bar b[] = { { "zero", 0, -1, -1, 0, NULL },
				 { "neg", -3, -1, -1, 0, NULL },
				 { "nan", 0.0 / 0.0, -1, -1, 0, NULL } };
	char *t = NULL;
	int ret;

	CAPTURE(t, ret = bench_svg_write(f_, "T", "ns", b, 3));
	ck_assert_int_eq(ret, -1);
	ck_assert_str_eq(t, "");
	free(t);
	CAPTURE(t, ret = bench_svg_write(f_, "T", "ns", NULL, 0));
	ck_assert_int_eq(ret, -1);
	free(t);
	/* A drawable bar among bad ones: only it is drawn. */
	b[0].value = 5;
	CAPTURE(t, ret = bench_svg_write(f_, "T", "ns", b, 3));
	ck_assert_int_eq(ret, 0);
	ck_assert_ptr_nonnull(strstr(t, ">zero<"));
	ck_assert_ptr_null(strstr(t, ">neg<"));
	ck_assert_ptr_null(strstr(t, ">nan<"));
	free(t);
}
END_TEST

START_TEST(svg_groups_write_files)
{
	struct bench_results r = { 0 };
	char dir[] = "/tmp/minivmm-unit-svg-XXXXXX", path[256];
	struct stat st;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	add(&r, "port_in", 0, "default", "minivmm", "exits", 7000);
	add(&r, "port_in", 0, "bare KVM", "kvm-floor", "exits", 6900);
	add(&r, "msr_read", 0, "msr=deny", "minivmm", "msr", 14000);
	r.v[2].status = BENCH_FAILED;	/* no drawable msr row */
	ck_assert_int_eq(bench_svg_groups(dir, &r), 0);
	snprintf(path, sizeof(path), "%s/exits.svg", dir);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_gt(st.st_size, 100);
	unlink(path);
	snprintf(path, sizeof(path), "%s/msr.svg", dir);
	ck_assert_int_ne(stat(path, &st), 0);
	ck_assert_int_eq(rmdir(dir), 0);
	bench_results_free(&r);
}
END_TEST

/* --- ranking, table, markdown, JSON --------------------------------------- */

static void sample(struct bench_results *r, double uc_ns)
{
	add(r, "pci_ecam_read", 3, "ecam=ro", "minivmm", "pci", 0.1);
	add(r, "pci_ecam_read", 3, "ecam=trap", "minivmm", "pci", 25000);
	add(r, "pci_cf8_read", 0, "ecam=ro", "minivmm", "pci", 16000);
	add(r, "ram_read", 3, "default", "minivmm", "memory", 0.09);
	add(r, "ramwb_read", 3, "default", "minivmm", "memory", 1.4);
	add(r, "ramuc_read", 3, "default", "minivmm", "memory", uc_ns);
	add(r, "port_in", 0, "bare KVM", "kvm-floor", "exits", 6000);
	add(r, "port_in", 0, "default", "minivmm", "exits", 9000);
	snprintf(r->v[7].floor_case, BENCH_NAME_MAX, "port_in:0");
	r->v[7].ratio_to_floor = 1.5;
	r->v[7].exits_per_op = 1;
	add(r, "msr_read", 0, "msr=deny", "minivmm", "msr", -1);
	r->v[8].status = BENCH_SKIPPED;
	snprintf(r->v[8].note, BENCH_NOTE_MAX, "why | not");
	bench_results_rank(r);
}

START_TEST(rank_against_best_not_floor)
{
	struct bench_results r = { 0 };

	sample(&r, 1.4);
	ck_assert_double_eq_tol(r.v[0].ratio_to_best, 1.0, 1e-9);
	ck_assert_double_eq_tol(r.v[1].ratio_to_best, 250000.0, 1e-3);
	/* The only minivmm port_in row is its own best; the floor (6000)
	 * is no configuration. */
	ck_assert_double_eq_tol(r.v[7].ratio_to_best, 1.0, 1e-9);
	ck_assert(r.v[6].ratio_to_best < 0);
	ck_assert(r.v[8].ratio_to_best < 0);
	bench_results_free(&r);
}
END_TEST

START_TEST(fmt_ns_units)
{
	char b[24];

	bench_fmt_ns(b, sizeof(b), 0.0915);
	ck_assert_str_eq(b, "0.0915 ns");
	bench_fmt_ns(b, sizeof(b), 1500);
	ck_assert_str_eq(b, "1.5 us");
	bench_fmt_ns(b, sizeof(b), 2.5e6);
	ck_assert_str_eq(b, "2.5 ms");
	bench_fmt_ns(b, sizeof(b), 3e9);
	ck_assert_str_eq(b, "3 s");
	bench_fmt_ns(b, sizeof(b), -1);
	ck_assert_str_eq(b, "-");
}
END_TEST

START_TEST(targets_measured_from_rows)
{
	struct bench_results r = { 0 };
	char *t = NULL;

	sample(&r, 1.4);
	CAPTURE(t, bench_targets_write(f_, &r, false));
	/* 0.1 / 0.09 = 1.11 <= 2; 16000 / 0.1 = 1.6e5 >= 1000 */
	ck_assert_ptr_nonnull(strstr(t, "RAM read (ring 3, same loop): 1.11 "
				     "(target <= 2): met"));
	ck_assert_ptr_nonnull(strstr(t, "ECAM-ro read: 1.6e+05 (target >= "
				     "1000): met"));
	ck_assert_ptr_nonnull(strstr(t, "port_in ring 0 [default] vs "
				     "port_in:0: 1.50x (25% over"));
	ck_assert_ptr_nonnull(strstr(t, "within 1.2x of the floor: 0 of 1"));
	ck_assert_ptr_nonnull(strstr(t, "UC is as fast as WB"));
	ck_assert_ptr_nonnull(strstr(t, "Linux init's verdict (1 vCPU): not "
				     "measured in this run"));
	free(t);
	bench_results_free(&r);
	sample(&r, 1.4);
	add(&r, "linux_run_init", 0, "linux-c1", "minivmm", "boot", 27.5e9);
	add(&r, "linux_verdict", 0, "linux-c1", "minivmm", "boot", 61e9);
	CAPTURE(t, bench_targets_write(f_, &r, false));
	ck_assert_ptr_nonnull(strstr(t, "Linux \"Run /init\" (1 vCPU): 27.5 s "
				     "(target <= 30 s): met"));
	ck_assert_ptr_nonnull(strstr(t, "Linux init's verdict (1 vCPU): 61.0 s "
				     "(target <= 60 s): MISSED"));
	free(t);
	bench_results_free(&r);
	sample(&r, 140);
	r.v[0].median_ns = 1;	/* ECAM 11x RAM: missed */
	CAPTURE(t, bench_targets_write(f_, &r, true));
	ck_assert_ptr_nonnull(strstr(t, "(target <= 2): MISSED"));
	ck_assert_ptr_nonnull(strstr(t, "honours guest memory types"));
	ck_assert_ptr_nonnull(strstr(t, "- ECAM-ro"));
	free(t);
	bench_results_free(&r);
}
END_TEST

START_TEST(table_lists_every_row)
{
	struct bench_results r = { 0 };
	char *t = NULL;
	const char *vmm_row, *floor_row;

	sample(&r, 1.4);
	CAPTURE(t, bench_table_write(f_, &r));
	ck_assert_int_eq(count_lines(t), (int)r.n + 1);
	ck_assert_ptr_nonnull(strstr(t, "skipped: why | not"));
	ck_assert_ptr_nonnull(strstr(t, "25 us"));
	/* In a group, the VMM rows come before the floor's. */
	vmm_row = strstr(t, "default          minivmm");
	floor_row = strstr(t, "bare KVM");
	ck_assert(vmm_row && floor_row && vmm_row < floor_row);
	free(t);
	bench_results_free(&r);
}
END_TEST

START_TEST(markdown_report)
{
	struct bench_results r = { 0 };
	struct bench_host h = { .cpu = "Test CPU", .kernel = "Linux 9",
				.kvm = "PVM (no hardware virtualization)",
				.date = "today", .repeats = 5 };
	char *t = NULL;
	int ret;

	sample(&r, 1.4);
	CAPTURE(t, ret = bench_markdown_write(f_, &r, &h, ""));
	ck_assert_int_eq(ret, 0);
	ck_assert(!strncmp(t, "# minivmm benchmarks\n", 21));
	ck_assert_ptr_nonnull(strstr(t, "- KVM: PVM (no hardware "
				     "virtualization)\n"));
	ck_assert_ptr_nonnull(strstr(t, "## Targets\n"));
	ck_assert_ptr_nonnull(strstr(t, "\n## pci\n\n![pci](pci.svg)\n"));
	ck_assert_ptr_nonnull(strstr(t, "\n## exits\n"));
	ck_assert_ptr_null(strstr(t, "\n## boot\n"));	/* no boot rows */
	/* A '|' in a note cannot break the table. */
	ck_assert_ptr_nonnull(strstr(t, "skipped: why \\| not"));
	ck_assert_ptr_nonnull(strstr(t, "| 1.50 (port_in:0) |"));
	ck_assert_ptr_nonnull(strstr(t, "## How to read this"));
	free(t);
	bench_results_free(&r);
}
END_TEST

START_TEST(json_rows_and_nulls)
{
	struct bench_results r = { 0 };
	char *t = NULL;
	cJSON *a, *o;

	sample(&r, 1.4);
	CAPTURE(t, bench_json_write(f_, &r));
	a = cJSON_Parse(t);
	ck_assert(cJSON_IsArray(a));
	ck_assert_int_eq(cJSON_GetArraySize(a), (int)r.n);
	o = cJSON_GetArrayItem(a, 7);
	ck_assert_str_eq(cJSON_GetObjectItem(o, "case")->valuestring,
			 "port_in");
	ck_assert_str_eq(cJSON_GetObjectItem(o, "vmm")->valuestring,
			 "minivmm");
	ck_assert_double_eq_tol(cJSON_GetObjectItem(o, "ratio_to_floor")->
				valuedouble, 1.5, 1e-9);
	ck_assert_double_eq_tol(cJSON_GetObjectItem(o, "median_ns")->
				valuedouble, 9000, 1e-9);
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(o, "mbps")));
	o = cJSON_GetArrayItem(a, 8);
	ck_assert_str_eq(cJSON_GetObjectItem(o, "status")->valuestring,
			 "skipped");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(o, "median_ns")));
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(o, "floor_case")));
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(o, "exits_per_op")));
	cJSON_Delete(a);
	free(t);
	bench_results_free(&r);
}
END_TEST

static Suite *bench_report_suite(void)
{
	Suite *s = suite_create("bench_report");
	TCase *svg = tcase_create("svg");
	TCase *core = tcase_create("core");

	tcase_add_test(svg, svg_linear_scale);
	tcase_add_test(svg, svg_log_scale_and_whiskers);
	tcase_add_test(svg, svg_escapes_text);
	tcase_add_test(svg, svg_nothing_to_draw);
	tcase_add_test(svg, svg_groups_write_files);
	tcase_add_test(core, rank_against_best_not_floor);
	tcase_add_test(core, fmt_ns_units);
	tcase_add_test(core, targets_measured_from_rows);
	tcase_add_test(core, table_lists_every_row);
	tcase_add_test(core, markdown_report);
	tcase_add_test(core, json_rows_and_nulls);
	suite_add_tcase(s, svg);
	suite_add_tcase(s, core);
	return s;
}

int main(void)
{
	return unit_run(bench_report_suite());
}
