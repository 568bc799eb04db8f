// SPDX-License-Identifier: MIT
/* minivmm test's pure parts: the unittests.cfg parser (the suite's own
 * entries, multi-line values, and hostile text), shell words, what a
 * process's end means (the suite's status conventions), and what each
 * entry's QEMU parameters mean for minivmm. */
#include "tests/unit/unit.h"
#include "tools/test/manifest.h"
#include "tools/test/plan.h"
#include "tools/test/result.h"
#include "tools/test/words.h"

static struct manifest M;
static char err[MANIFEST_ERR_MAX];

static int parse(const char *text)
{
	err[0] = 0;
	return manifest_parse(text, strlen(text), "u.cfg", &M, err);
}

static void fails(const char *text, const char *want)
{
	ck_assert_int_eq(parse(text), -1);
	ck_assert_msg(strstr(err, want), "\"%s\" lacks \"%s\"", err, want);
	ck_assert_ptr_null(M.t);
	ck_assert_int_eq(M.n, 0);
}

static const char suite_cfg[] =
"##############################################################################\n"
"# unittest configuration\n"
"#\n"
"# file = <name>.flat            # x86 uses .flat files\n"
"##############################################################################\n"
"\n"
"[x2apic]\n"
"file = apic.flat\n"
"smp = 2\n"
"qemu_params = -cpu qemu64,+x2apic,+tsc-deadline\n"
"arch = x86_64\n"
"timeout = 30\n"
"groups = apic\n"
"\n"
"[vmexit_cpuid]\n"
"file = vmexit.flat\n"
"test_args = 'cpuid'\n"
"groups = vmexit\n"
"\n"
"[pmu]\n"
"file = pmu.flat\n"
"extra_params = -cpu max\n"
"check = /sys/module/kvm/parameters/enable_pmu=Y /proc/sys/kernel/nmi_watchdog=0\n"
"accel = kvm\n"
"timeout = 2m\n"
"#[init]\n"
"#file = init.flat\n";

START_TEST(the_suites_entries)
{
	ck_assert_int_eq(parse(suite_cfg), 0);
	ck_assert_int_eq(M.n, 3);
	ck_assert_str_eq(M.t[0].name, "x2apic");
	ck_assert_int_eq(M.t[0].line, 7);
	ck_assert_str_eq(M.t[0].file, "apic.flat");
	ck_assert_uint_eq(M.t[0].smp, 2);
	ck_assert_str_eq(M.t[0].qemu_params, "-cpu qemu64,+x2apic,+tsc-deadline");
	ck_assert_str_eq(M.t[0].arch, "x86_64");
	ck_assert(M.t[0].timeout == 30);
	ck_assert_str_eq(M.t[1].test_args, "'cpuid'");
	ck_assert_uint_eq(M.t[1].smp, 1);
	ck_assert(M.t[1].timeout == 0);
	ck_assert_str_eq(M.t[1].arch, "");
	ck_assert_str_eq(M.t[2].qemu_params, "-cpu max");	/* alias */
	ck_assert_str_eq(M.t[2].check, "/sys/module/kvm/parameters/enable_pmu=Y "
			 "/proc/sys/kernel/nmi_watchdog=0");
	ck_assert(M.t[2].timeout == 120);
	ck_assert_int_eq(manifest_find(&M, "pmu"), 2);
	ck_assert_int_eq(manifest_find(&M, "init"), -1);
	manifest_free(&M);
}
END_TEST

START_TEST(lines_and_blanks)
{
	/* keys before a section, blanks, CRLF, unknown keys, last wins */
	ck_assert_int_eq(parse("file = stray\n  [a]  \r\n\tfile=x.flat \r\n"
			       "bogus = 1\nfile   =   y.flat\nsmp=3\n"
			       "filename = z\n[b]\nfile = b"), 0);
	ck_assert_int_eq(M.n, 2);
	ck_assert_str_eq(M.t[0].file, "y.flat");
	ck_assert_uint_eq(M.t[0].smp, 3);
	ck_assert_str_eq(M.t[1].file, "b");		/* no final newline */
	manifest_free(&M);
	/* tabs around '=' do not make a key, as in the suite's regex */
	ck_assert_int_eq(parse("[a]\nsmp\t= 4\n"), 0);
	ck_assert_uint_eq(M.t[0].smp, 1);
	manifest_free(&M);
	ck_assert_int_eq(parse(""), 0);
	ck_assert_int_eq(M.n, 0);
	manifest_free(&M);
}
END_TEST

START_TEST(multi_line_params)
{
	ck_assert_int_eq(parse("[a]\nqemu_params = \"\"\"-m 256\n"
			       "  -cpu host \\\n,+x2apic\n"
			       "-smp 2\"\"\"  \nfile = a\n"), 0);
	ck_assert_str_eq(M.t[0].qemu_params,
			 "-m 256\n  -cpu host ,+x2apic\n-smp 2");
	ck_assert_str_eq(M.t[0].file, "a");
	manifest_free(&M);
	/* an even number of backslashes does not join */
	ck_assert_int_eq(parse("[a]\nminivmm_params = \"\"\"a\\\\\nb\"\"\"\n"),
			 0);
	ck_assert_str_eq(M.t[0].minivmm_params, "a\\\\\nb");
	manifest_free(&M);
	fails("[a]\nqemu_params = \"\"\"-m 1\n-smp 2\n", "u.cfg:2: '\"\"\"' "
	      "value not closed");
}
END_TEST

START_TEST(hostile_text)
{
	static char big[3 * MANIFEST_VALUE_MAX];
	char *many;
	size_t n = 0;

	ck_assert_int_eq(manifest_parse("[a]\nfile = x\0y", 14, "u.cfg", &M,
					err), -1);
	ck_assert(strstr(err, "NUL byte"));
	fails("[]\n", "u.cfg:1: test name '[]'");
	fails("[a/b]\n", "test name");
	fails("[../x]\n", "test name");
	fails("[.hidden]\n", "test name");
	fails("[a b]\n", "test name");
	fails("[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\n",
	      "test name");
	fails("[a]\n[b]\n[a]\n", "u.cfg:3: test 'a' is defined twice");
	fails("[a]\nsmp = 0\n", "u.cfg:2: smp '0'");
	fails("[a]\nsmp = 256\n", "smp '256'");
	fails("[a]\nsmp = -1\n", "smp '-1'");
	fails("[a]\nsmp = 2x\n", "smp '2x'");
	fails("[a]\nsmp = $MAX_SMP\n", "smp");
	fails("[a]\ntimeout = soon\n", "timeout 'soon'");
	fails("[a]\ntimeout = 5y\n", "timeout");
	fails("[a]\ntimeout = -1\n", "timeout");
	fails("[a]\ntimeout = nan\n", "timeout");
	memcpy(big, "[a]\nfile = ", 11);
	memset(big + 11, 'x', sizeof(big) - 12);
	fails(big, "value longer than 4096 bytes");
	many = malloc(8 * (MANIFEST_TESTS_MAX + 1) + 1);
	for (int i = 0; i <= MANIFEST_TESTS_MAX; i++)
		n += (size_t)sprintf(many + n, "[t%d]\n", i);
	fails(many, "more than 1024 tests");
	free(many);
}
END_TEST

START_TEST(durations_and_words)
{
	double s;

	ck_assert_int_eq(manifest_parse_duration("90", &s), 0);
	ck_assert(s == 90);
	ck_assert_int_eq(manifest_parse_duration("1.5m", &s), 0);
	ck_assert(s == 90);
	ck_assert_int_eq(manifest_parse_duration("1d", &s), 0);
	ck_assert(s == 86400);
	ck_assert_int_eq(manifest_parse_duration("", &s), -1);
	ck_assert_int_eq(manifest_parse_duration("s", &s), -1);
	ck_assert_int_eq(manifest_parse_duration("1ss", &s), -1);
	ck_assert_int_eq(manifest_parse_duration("0x10", &s), -1);
	ck_assert(manifest_has_word("vmx nested nodefault", "nodefault"));
	ck_assert(!manifest_has_word("vmx nodefaults", "nodefault"));
	ck_assert(!manifest_has_word("", ""));
}
END_TEST

static int split(const char *s, struct words *w, char *e)
{
	e[0] = 0;
	return words_split(s, w, e);
}

START_TEST(shell_words)
{
	struct words w;
	char e[WORDS_ERR_MAX];

	ck_assert_int_eq(split("  -cpu  max,+vmx\n-m 2048 ", &w, e), 0);
	ck_assert_int_eq(w.n, 4);
	ck_assert_str_eq(w.w[1], "max,+vmx");
	words_free(&w);
	ck_assert_int_eq(split("'a b' \"c \\\"d\\\" \\\\\" e\\ f ''", &w, e),
			 0);
	ck_assert_int_eq(w.n, 4);
	ck_assert_str_eq(w.w[0], "a b");
	ck_assert_str_eq(w.w[1], "c \"d\" \\");
	ck_assert_str_eq(w.w[2], "e f");
	ck_assert_str_eq(w.w[3], "");
	words_free(&w);
	ck_assert_int_eq(split("\"10000000 `date +%s`\"", &w, e), -1);
	ck_assert(strstr(e, "'`' needs a shell"));
	words_free(&w);
	ck_assert_int_eq(split("$HOME", &w, e), -1);
	words_free(&w);
	ck_assert_int_eq(split("a;b", &w, e), -1);
	ck_assert(strstr(e, "shell syntax"));
	words_free(&w);
	ck_assert_int_eq(split("'open", &w, e), -1);
	ck_assert(strstr(e, "unterminated"));
	words_free(&w);
	ck_assert_int_eq(split("\"open", &w, e), -1);
	words_free(&w);
	ck_assert_int_eq(split("x\\", &w, e), 0);	/* trailing backslash */
	ck_assert_str_eq(w.w[0], "x");
	words_free(&w);
}
END_TEST

/* ---- endings ------------------------------------------------------------ */

static struct result end_vmm(bool exited, int code, bool test_exit,
			     const char *summary)
{
	struct ending e = { .exited = exited, .code = code,
			    .test_exit = test_exit, .summary = summary,
			    .last_err = "minivmm: triple fault",
			    .timeout = 90 };
	struct result r;

	result_from_minivmm(&e, &r);
	return r;
}

START_TEST(minivmm_endings)
{
	struct result r;

	r = end_vmm(true, 1, true, "10 tests");
	ck_assert_int_eq(r.v, V_PASS);
	ck_assert_str_eq(r.text, "10 tests");
	/* status 1 without a test exit is minivmm's own error */
	r = end_vmm(true, 1, false, "");
	ck_assert_int_eq(r.v, V_FAIL);
	ck_assert_str_eq(r.text, "minivmm: triple fault (status 1)");
	{
		struct ending e = { .exited = true, .code = 5, .summary = "",
				    .last_err = "  bytes",
				    .first_err = "minivmm: KVM internal error",
				    .insn = "movd mm0, rax" };

		result_from_minivmm(&e, &r);
		ck_assert_str_eq(r.text, "minivmm: KVM internal error: movd "
				 "mm0, rax (status 5)");
	}
	ck_assert_int_eq(end_vmm(true, 77, true, "1 tests, 1 skipped").v,
			 V_SKIP);
	ck_assert_int_eq(end_vmm(true, 3, true, "5 tests, 1 unexpected "
				 "failures").v, V_FAIL);
	r = end_vmm(true, 127, true, "");
	ck_assert_int_eq(r.v, V_FAIL);
	ck_assert_str_eq(r.text, "aborted");
	r = end_vmm(true, 124, false, "");
	ck_assert_int_eq(r.v, V_TIMEOUT);
	ck_assert_str_eq(r.text, "timeout; duration=90s");
	r = end_vmm(false, 9, false, "");
	ck_assert_int_eq(r.v, V_FAIL);
	ck_assert_str_eq(r.text, "terminated on SIGKILL");
	ck_assert_str_eq(result_summary("SUMMARY: 3 tests"), "3 tests");
	ck_assert_ptr_null(result_summary("PASS: SUMMARY: x"));
}
END_TEST

START_TEST(qemu_endings)
{
	struct ending e = { .exited = true, .code = 1, .summary = "",
			    .last_err = "", .timeout = 10 };
	struct result r;

	result_from_qemu(&e, &r);
	ck_assert_int_eq(r.v, V_PASS);
	e.err_lines = true;	/* refused its command line: the suite SKIPs */
	e.last_err = "qemu-system-x86_64: -device edu: not found";
	result_from_qemu(&e, &r);
	ck_assert_int_eq(r.v, V_SKIP);
	ck_assert_str_eq(r.text, e.last_err);
	e.guest_output = true;
	result_from_qemu(&e, &r);
	ck_assert_int_eq(r.v, V_FAIL);
	e.code = 0;		/* no debug exit */
	result_from_qemu(&e, &r);
	ck_assert_int_eq(r.v, V_FAIL);
	e.timed_out = true;
	e.exited = false;
	e.code = 15;
	result_from_qemu(&e, &r);
	ck_assert_int_eq(r.v, V_TIMEOUT);
	ck_assert_str_eq(verdict_name(V_TIMEOUT), "TIMEOUT");
}
END_TEST

/* ---- plans --------------------------------------------------------------- */

static const char *fake_files[][2] = {
	{ "/sys/module/kvm/parameters/enable_pmu", "N" },
	{ "/sys/x", "Y" },
};

static int fake_read(const char *path, char *buf, unsigned long size)
{
	for (size_t i = 0; i < sizeof(fake_files) / sizeof(fake_files[0]); i++)
		if (!strcmp(path, fake_files[i][0])) {
			snprintf(buf, size, "%s", fake_files[i][1]);
			return 0;
		}
	return -1;
}

static char kdir[PATH_MAX / 2];

static void plan_of(const char *cfg, const char *name, bool named,
		    struct plan *p)
{
	struct plan_opts o = { .kernel_dir = kdir, .vmm = "/mv",
			       .qemu = "/q", .qemu_extra = "-cpu host",
			       .env_file = "/env", .named = named,
			       .read_file = fake_read };

	ck_assert_int_eq(parse(cfg), 0);
	plan_make(&M.t[manifest_find(&M, name)], &o, p);
}

static bool has_arg(char *const *argv, const char *a, const char *b)
{
	for (int i = 0; argv[i]; i++)
		if (!strcmp(argv[i], a) && (!b || (argv[i + 1] &&
						   !strcmp(argv[i + 1], b))))
			return true;
	return false;
}

START_TEST(plans)
{
	struct plan p;
	char flat[PATH_MAX];

	snprintf(kdir, sizeof(kdir), "%s", unit_tmpdir());
	snprintf(flat, sizeof(flat), "%s/minivmm-unit-k.flat", kdir);
	{
		FILE *f = fopen(flat, "w");

		ck_assert_ptr_nonnull(f);
		fclose(f);
	}
	plan_of("[a]\nfile = minivmm-unit-k.flat\nsmp = 2\n"
		"test_args = 'cpuid' x\n"
		"qemu_params = -cpu qemu64,+x2apic,-pcid,vendor=Intel -m 2G "
		"-machine pit=off\n", "a", false, &p);
	ck_assert_str_eq(p.skip, "");
	ck_assert_str_eq(p.vmm_skip, "");
	ck_assert(has_arg(p.vmm_argv, "--cpus", "2"));
	ck_assert(has_arg(p.vmm_argv, "--memory", "2G"));
	ck_assert(has_arg(p.vmm_argv, "--append", "cpuid x"));
	ck_assert(has_arg(p.vmm_argv, "--cpuid", "+x2apic,-pcid"));
	ck_assert(has_arg(p.vmm_argv, "--exit-style", "qemu"));
	ck_assert(has_arg(p.vmm_argv, "--initrd", "/env"));
	ck_assert(strstr(p.notes, "vendor=Intel"));
	ck_assert(strstr(p.notes, "pit=off"));
	ck_assert(has_arg(p.qemu_argv, "-append", "cpuid x"));
	ck_assert(has_arg(p.qemu_argv, "-cpu", "qemu64,+x2apic,-pcid,"
			  "vendor=Intel"));
	ck_assert(has_arg(p.qemu_argv, "-cpu", "host"));	/* extra, last */
	plan_free(&p);
	manifest_free(&M);
	/* minivmm-only reasons leave QEMU's column running */
	plan_of("[i]\nfile = minivmm-unit-k.flat\nqemu_params = -M q35 "
		"-device intel-iommu -device edu\n", "i", false, &p);
	ck_assert_str_eq(p.vmm_skip, "-device intel-iommu: minivmm has no "
			 "such device");
	ck_assert_ptr_null(p.vmm_argv[0]);
	ck_assert_ptr_nonnull(p.qemu_argv[0]);
	plan_free(&p);
	manifest_free(&M);
	/* the suite's own reasons skip both */
	plan_of("[n]\nfile = minivmm-unit-k.flat\ngroups = vmx nodefault\n",
		"n", false, &p);
	ck_assert_str_eq(p.skip, "test marked as manual run only");
	ck_assert_ptr_null(p.qemu_argv[0]);
	plan_free(&p);
	plan_make(&M.t[0], &(struct plan_opts){ .kernel_dir = kdir,
		  .vmm = "/mv", .named = true, .read_file = fake_read }, &p);
	ck_assert_str_eq(p.skip, "");			/* named: it runs */
	plan_free(&p);
	manifest_free(&M);
	plan_of("[c]\nfile = minivmm-unit-k.flat\narch = i386\n", "c", false,
		&p);
	ck_assert_str_eq(p.skip, "i386 only");
	plan_free(&p);
	manifest_free(&M);
	plan_of("[c]\nfile = minivmm-unit-k.flat\ncheck = /sys/x=Y "
		"/sys/module/kvm/parameters/enable_pmu=Y\n", "c", false, &p);
	ck_assert_str_eq(p.skip, "/sys/module/kvm/parameters/enable_pmu not "
			 "equal to Y");
	plan_free(&p);
	manifest_free(&M);
	plan_of("[s]\nfile = minivmm-unit-k.flat\nsnapshot = port\n", "s",
		false, &p);
	ck_assert(p.snapshot);
	ck_assert_str_eq(p.skip, "");
	plan_free(&p);
	manifest_free(&M);
	plan_of("[s]\nfile = minivmm-unit-k.flat\nsnapshot = console\n", "s",
		false, &p);
	ck_assert_str_eq(p.skip, "snapshot 'console': expected port");
	plan_free(&p);
	manifest_free(&M);
	plan_of("[c]\nfile = gone.flat\n", "c", false, &p);
	ck_assert(strstr(p.skip, "gone.flat' not found"));
	plan_free(&p);
	manifest_free(&M);
	plan_of("[k]\nfile = minivmm-unit-k.flat\ntest_args = \"1 `date`\"\n",
		"k", false, &p);
	ck_assert(strstr(p.skip, "test_args: '`' needs a shell"));
	plan_free(&p);
	manifest_free(&M);
	plan_of("[p]\nfile = minivmm-unit-k.flat\ntest_args = a\n"
		"qemu_params = -append 'b c'\n", "p", false, &p);
	ck_assert(has_arg(p.vmm_argv, "--append", "b c"));	/* last wins */
	ck_assert(has_arg(p.qemu_argv, "-append", "a"));
	ck_assert(has_arg(p.qemu_argv, "-append", "b c"));
	plan_free(&p);
	manifest_free(&M);
	plan_of("[o]\nfile = minivmm-unit-k.flat\nqemu_params = -bios x\n",
		"o", false, &p);
	ck_assert_str_eq(p.vmm_skip, "QEMU option -bios has no minivmm "
			 "equivalent");
	plan_free(&p);
	manifest_free(&M);
	unlink(flat);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("test_manifest");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, the_suites_entries);
	tcase_add_test(tc, lines_and_blanks);
	tcase_add_test(tc, multi_line_params);
	tcase_add_test(tc, hostile_text);
	tcase_add_test(tc, durations_and_words);
	tcase_add_test(tc, shell_words);
	tcase_add_test(tc, minivmm_endings);
	tcase_add_test(tc, qemu_endings);
	tcase_add_test(tc, plans);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
