// SPDX-License-Identifier: MIT
/* Unit tests for the benchmark driver's pure parts: result-line, --timing
 * and --stats-json parsers (tools/bench/parse.c), the plan and its floor
 * mapping (tools/bench/plan.c), and the options (tools/bench/cli.c). */
#include "tests/unit/unit.h"
#include "tools/bench/bench.h"
#include "tools/bench/plan.h"

#define FIXED	"iters=8 median_cycles=1.500 p10_cycles=1.000 "		\
		"p90_cycles=2.000 median_ns=0.500 p10_ns=0.400 p90_ns=0.600 " \
		"repeats=3 ops_total=99"

START_TEST(parse_bench_line)
{
	struct bench_sample s;

	ck_assert_int_eq(bench_parse_line("BENCH case=ram_read ring=3 " FIXED
					  " memtype=WB mbps=12\n", &s), 0);
	ck_assert_str_eq(s.name, "ram_read");
	ck_assert_int_eq(s.ring, 3);
	ck_assert(!s.skipped);
	ck_assert_uint_eq(s.iters, 8);
	ck_assert_uint_eq(s.ops_total, 99);
	ck_assert_double_eq_tol(s.p90_cycles, 2.0, 1e-12);
	ck_assert_double_eq_tol(s.median_ns, 0.5, 1e-12);
	ck_assert_str_eq(s.extra, "memtype=WB mbps=12");
}
END_TEST

START_TEST(parse_skip_line)
{
	struct bench_sample s;

	ck_assert_int_eq(bench_parse_line("BENCHSKIP case=bar1_read ring=3 "
					  "reason=no-xen-platform-device",
					  &s), 1);
	ck_assert(s.skipped);
	ck_assert_str_eq(s.name, "bar1_read");
	ck_assert_str_eq(s.extra, "no-xen-platform-device");
	ck_assert_int_eq(bench_parse_line("BENCHSKIP case=x", &s), -1);
}
END_TEST

START_TEST(parse_rejects_malformed)
{
	static const char *const bad[] = {
		"",
		"BENCHINFO tsc_khz=1",
		"BENCH",
		"BENCH case=a ring=3",				/* keys missing */
		"BENCH case=a ring=2 " FIXED,			/* ring */
		"BENCH case=a ring=0 ring=0 " FIXED,		/* duplicate */
		"BENCH case= ring=0 " FIXED,			/* empty name */
		"BENCH case=a ring=0 iters=-8 median_cycles=1 p10_cycles=1 "
		"p90_cycles=1 median_ns=1 p10_ns=1 p90_ns=1 repeats=1 "
		"ops_total=1",					/* negative */
		"BENCH case=a ring=0 iters=8 median_cycles=nan p10_cycles=1 "
		"p90_cycles=1 median_ns=1 p10_ns=1 p90_ns=1 repeats=1 "
		"ops_total=1",					/* nan */
		"BENCH case=a ring=0 iters=8 median_cycles=1x p10_cycles=1 "
		"p90_cycles=1 median_ns=1 p10_ns=1 p90_ns=1 repeats=1 "
		"ops_total=1",					/* junk */
		"BENCH case=a ring=0 iters=99999999999999999999999 "
		"median_cycles=1 p10_cycles=1 p90_cycles=1 median_ns=1 "
		"p10_ns=1 p90_ns=1 repeats=1 ops_total=1",	/* overflow */
		"BENCH case=a ring=0 iters=8 median_cycles=1 p10_cycles=1 "
		"p90_cycles=1 median_ns=1 p10_ns=1 p90_ns=1 repeats=0 "
		"ops_total=1",					/* 0 repeats */
		"BENCH case=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		" ring=0 " FIXED,				/* long name */
		"xBENCH case=a ring=0 " FIXED,
	};
	struct bench_sample s;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(bench_parse_line(bad[i], &s) == -1,
			      "accepted: %s", bad[i]);
	ck_assert_int_eq(bench_parse_line(NULL, &s), -1);
}
END_TEST

START_TEST(parse_extra_is_bounded)
{
	char line[4096];
	struct bench_sample s;
	size_t n = (size_t)snprintf(line, sizeof(line),
				    "BENCH case=a ring=0 " FIXED);

	for (int i = 0; i < 200 && n + 8 < sizeof(line); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, " k%d=v", i);
	ck_assert_int_eq(bench_parse_line(line, &s), 0);
	ck_assert_uint_lt(strlen(s.extra), sizeof(s.extra));
	ck_assert(!strncmp(s.extra, "k0=v k1=v", 9));
}
END_TEST

START_TEST(word_lookup)
{
	char v[8];

	ck_assert(bench_word("a=1 mbps=1234 b=2", "mbps", v, sizeof(v)));
	ck_assert_str_eq(v, "1234");
	ck_assert(!bench_word("xmbps=1 mbps", "mbps", v, sizeof(v)));
	ck_assert(bench_word("k=0123456789", "k", v, sizeof(v)));
	ck_assert_str_eq(v, "0123456");	/* cut to the buffer */
	ck_assert(!bench_word(NULL, "k", v, sizeof(v)));
}
END_TEST

START_TEST(timing_lines)
{
	const char *t =
		"--- minivmm timing (ms since process start) ---\n"
		"     7.456  KVM VM created\n"
		"    16.117  [0x01] first guest instruction\n"
		"    33.914  [0x40] payload entry\n"
		"    47.017  exit";

	ck_assert_double_eq_tol(bench_timing_ms(t, "first guest instruction"),
				16.117, 1e-9);
	ck_assert_double_eq_tol(bench_timing_ms(t, "payload entry"), 33.914,
				1e-9);
	ck_assert_double_eq_tol(bench_timing_ms(t, "exit"), 47.017, 1e-9);
	ck_assert(bench_timing_ms(t, "payload main") < 0);
	ck_assert(bench_timing_ms("junk first guest instruction",
				  "first guest instruction") < 0);
	ck_assert(bench_timing_ms(NULL, "x") < 0);
}
END_TEST

START_TEST(guest_exits_skip_console)
{
	const char *j = "{ \"exits\": { \"io\": 1000, \"mmio\": 20, "
		"\"intr\": 7, \"rdmsr\": 3 }, \"pio\": ["
		"{ \"name\": \"uart-com1\", \"reads\": 100, \"writes\": 800 },"
		"{ \"name\": \"boot-progress\", \"reads\": 0, \"writes\": 9 },"
		"{ \"name\": \"test-exit\", \"reads\": 0, \"writes\": 1 },"
		"{ \"name\": \"pci-cf8-cfc\", \"reads\": 45, \"writes\": 45 }]}";

	/* 1000 + 20 + 3 (intr dropped) - 900 - 9 - 1 */
	ck_assert_double_eq_tol(bench_guest_exits(j), 113, 1e-9);
	ck_assert(bench_guest_exits("{}") < 0);
	ck_assert(bench_guest_exits("not json") < 0);
	ck_assert(bench_guest_exits(NULL) < 0);
	ck_assert_double_eq_tol(bench_guest_exits(
		"{\"exits\":{\"io\":\"x\"},\"pio\":7}"), 0, 1e-9);
}
END_TEST

/* --- plan ----------------------------------------------------------------- */

START_TEST(plan_is_consistent)
{
	for (size_t i = 0; i < bench_ncases; i++) {
		const struct bench_case *k = &bench_cases[i];
		bool group = false;

		ck_assert_msg(k->configs[0], "%s has no config", k->name);
		for (int j = 0; k->configs[j]; j++)
			ck_assert_msg(bench_config_find(k->configs[j]),
				      "%s: unknown config %s", k->name,
				      k->configs[j]);
		for (int g = 0; bench_groups[g]; g++)
			group |= !strcmp(bench_groups[g], k->group);
		ck_assert(group);
		ck_assert_ptr_eq(bench_case_find(k->name, k->ring), k);
	}
	ck_assert_ptr_null(bench_case_find("port_in", 3));
	ck_assert_ptr_null(bench_config_find("nope"));
}
END_TEST

START_TEST(plan_selection)
{
	const struct bench_case *cf8 = bench_case_find("pci_cf8_read", 0);
	const struct bench_case *ecam3 = bench_case_find("pci_ecam_read", 3);
	char err[160];

	ck_assert(bench_case_selected(NULL, cf8));
	ck_assert(bench_case_selected("all", cf8));
	ck_assert(bench_case_selected("msr,pci", cf8));
	ck_assert(!bench_case_selected("msr", cf8));
	ck_assert(bench_case_selected("pci_ecam_read", ecam3));
	ck_assert(bench_case_selected("pci_ecam_read:3", ecam3));
	ck_assert(!bench_case_selected("pci_ecam_read:0", ecam3));
	ck_assert(!bench_case_selected("pci_ecam", ecam3));
	ck_assert(bench_boot_selected(NULL));
	ck_assert(bench_boot_selected("pci,boot"));
	ck_assert(!bench_boot_selected("pci"));
	ck_assert(bench_fs_selected(NULL));
	ck_assert(bench_fs_selected("pci,fs"));
	ck_assert(!bench_fs_selected("pci,boot"));
	ck_assert(!bench_fs_selected("fs_stat_tree"));
	ck_assert_int_eq(bench_cases_check("fs,boot", err, sizeof(err)), 0);
	ck_assert_int_eq(bench_cases_check("pci,boot,port_in:0,msr_read", err,
					   sizeof(err)), 0);
	ck_assert_int_eq(bench_cases_check("pci,bogus", err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "'bogus'"));
	ck_assert_int_eq(bench_cases_check("port_in:3", err, sizeof(err)), -1);
	ck_assert_int_eq(bench_cases_check(",", err, sizeof(err)), -1);
}
END_TEST

static const char *floor_of(const char *name, int ring, const char *config,
			    bool trapped)
{
	static char buf[BENCH_NAME_MAX];

	return bench_floor_for(name, ring, config, trapped, buf, sizeof(buf)) ?
	       buf : NULL;
}

START_TEST(plan_floor_mapping)
{
	ck_assert_str_eq(floor_of("pci_cf8_read", 0, "ecam=ro", false),
			 "port_pair_rd_q:0");
	ck_assert_str_eq(floor_of("pci_ecam_read", 3, "ecam=ro", false),
			 "romem_read:3");
	ck_assert_str_eq(floor_of("pci_ecam_read", 3, "ecam=trap", true),
			 "mmio_read:3");
	ck_assert_str_eq(floor_of("pci_ecam_write", 0, "ecam=ro", false),
			 "romem_write:0");
	ck_assert_str_eq(floor_of("msr_read", 0, "msr=allow", false),
			 "msr_read_kernel:0");
	ck_assert_str_eq(floor_of("msr_write", 0, "msr=allow+count", false),
			 "msr_write_passthru:0");
	ck_assert_str_eq(floor_of("msr_read", 0, "msr=deny", false),
			 "msr_read_gp:0");
	ck_assert_str_eq(floor_of("msr_read", 0, "msr=value", false),
			 "msr_read_user:0");
	ck_assert_str_eq(floor_of("mmio_write", 3, "default", false),
			 "mmio_write:3");
	ck_assert_ptr_null(floor_of("bar1_read", 3, "xen-bar-mtrr=wb", false));
	ck_assert_ptr_null(floor_of("port_in", 3, "default", false));
	ck_assert_str_eq(bench_floor_group("msr_read_gp"), "msr");
	ck_assert_str_eq(bench_floor_group("port_pair_rd"), "pci");
	ck_assert_str_eq(bench_floor_group("romem_read"), "pci");
	ck_assert_str_eq(bench_floor_group("ram_read"), "memory");
	ck_assert_str_eq(bench_floor_group("port_in"), "exits");
}
END_TEST

/* --- options -------------------------------------------------------------- */

static int parse(struct bench_opts *o, int argc, char **argv,
		 const char **err)
{
	static struct capture c;
	int r;

	capture_start(&c, 2);
	r = bench_opts_parse(o, argc, argv);
	*err = capture_end(&c);
	return r;
}

START_TEST(options)
{
	char *ok[] = { "bench", "--repeat", "7", "--cases", "pci,boot",
		       "--json", "x.json", "--peer", "qemu", NULL };
	char *all[] = { "bench", "--cases", "all", NULL };
	struct bench_opts o;
	const char *err;

	ck_assert_int_eq(parse(&o, 9, ok, &err), 0);
	ck_assert_uint_eq(o.repeat, 7);
	ck_assert_str_eq(o.cases, "pci,boot");
	ck_assert_str_eq(o.json, "x.json");
	ck_assert(o.peer_qemu);
	ck_assert_uint_eq(o.target_ms, 20);
	ck_assert_int_eq(parse(&o, 3, all, &err), 0);
	ck_assert_ptr_null(o.cases);
	ck_assert_uint_eq(o.repeat, 5);
}
END_TEST

START_TEST(options_rejected)
{
	char *bad[][4] = {
		{ "bench", "--repeat", "0", NULL },
		{ "bench", "--repeat", "101", NULL },
		{ "bench", "--repeat", "x", NULL },
		{ "bench", "--cases", "nothing", NULL },
		{ "bench", "--peer", "firecracker", NULL },
		{ "bench", "--bogus", NULL, NULL },
		{ "bench", "--json", NULL, NULL },
		{ "bench", "extra", NULL, NULL },
	};
	struct bench_opts o;
	const char *err;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int argc = 1;

		while (argc < 4 && bad[i][argc])
			argc++;
		ck_assert_int_eq(parse(&o, argc, bad[i], &err), -1);
		assert_one_line(err, "bench", NULL);
	}
}
END_TEST

/* The boot group's Linux boots need a kernel and an initramfs; the fs
 * group a kernel only (it brings its own initramfs). */
START_TEST(options_linux_files)
{
	char *fs[] = { "bench", "--cases", "fs", "--linux-kernel", "k", NULL };
	char *fs_alone[] = { "bench", "--cases", "fs", NULL };
	char *initrd_alone[] = { "bench", "--linux-initrd", "i", NULL };
	char *boot[] = { "bench", "--cases", "boot", "--linux-kernel", "k",
			 NULL };
	char *all[] = { "bench", "--linux-kernel", "k", NULL };
	struct bench_opts o;
	const char *err;

	ck_assert_int_eq(parse(&o, 5, fs, &err), 0);
	ck_assert_str_eq(o.linux_kernel, "k");
	ck_assert_ptr_null(o.linux_initrd);
	ck_assert_int_eq(parse(&o, 3, fs_alone, &err), -1);
	assert_one_line(err, "--cases fs needs --linux-kernel", NULL);
	ck_assert_int_eq(parse(&o, 3, initrd_alone, &err), -1);
	assert_one_line(err, "--linux-initrd needs --linux-kernel", NULL);
	ck_assert_int_eq(parse(&o, 5, boot, &err), -1);
	assert_one_line(err, "go together for the boot group", NULL);
	ck_assert_int_eq(parse(&o, 3, all, &err), -1);
}
END_TEST

static Suite *bench_parse_suite(void)
{
	Suite *s = suite_create("bench_parse");
	TCase *core = tcase_create("core");
	TCase *limits = tcase_create("limits");

	tcase_add_test(core, parse_bench_line);
	tcase_add_test(core, parse_skip_line);
	tcase_add_test(core, word_lookup);
	tcase_add_test(core, timing_lines);
	tcase_add_test(core, guest_exits_skip_console);
	tcase_add_test(core, plan_is_consistent);
	tcase_add_test(core, plan_selection);
	tcase_add_test(core, plan_floor_mapping);
	tcase_add_test(core, options);
	tcase_add_test(limits, parse_rejects_malformed);
	tcase_add_test(limits, parse_extra_is_bounded);
	tcase_add_test(limits, options_rejected);
	tcase_add_test(limits, options_linux_files);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	return s;
}

int main(void)
{
	return unit_run(bench_parse_suite());
}
