// SPDX-License-Identifier: MIT
/* minivmm test's expected failures and retries: the --xfail file (names,
 * reasons, comments, every refusal with its line), what an expected
 * failure's verdict becomes, when a test runs again (--retries) and what
 * the attempts add up to, and how XFAIL, XPASS and FLAKY read in the
 * console line, the totals, TAP and JUnit. */
#include "tests/unit/unit.h"
#include "tools/test/report.h"
#include "tools/test/result.h"
#include "tools/test/retry.h"
#include "tools/test/xfail.h"

static struct xfail X;
static char err[XFAIL_ERR_MAX];

static int parse(const char *text)
{
	return xfail_parse(text, strlen(text), "x.txt", &X, err);
}

START_TEST(entries)
{
	ck_assert_int_eq(parse(
		"# kvm-unit-tests on this host\n"
		"\n"
		"emulator   MMX in ring 0: movd mm0, rax\n"
		"\txsave\tvzeroall # AVX in ring 0\n"
		"pcid-enabled  a name with a dash  \r\n"
		"   # indented comment\n"
		"access-reduced-maxphyaddr no 'allow_smaller_maxphyaddr'"), 0);
	ck_assert_int_eq(X.n, 4);
	ck_assert_str_eq(X.e[0].name, "emulator");
	ck_assert_str_eq(X.e[0].reason, "MMX in ring 0: movd mm0, rax");
	ck_assert_int_eq(X.e[0].line, 3);
	ck_assert_str_eq(X.e[1].name, "xsave");
	ck_assert_str_eq(X.e[1].reason, "vzeroall");
	ck_assert_str_eq(X.e[2].name, "pcid-enabled");
	ck_assert_str_eq(X.e[2].reason, "a name with a dash");
	ck_assert_int_eq(X.e[3].line, 7);	/* no final newline */
	ck_assert_str_eq(xfail_reason(&X, "xsave"), "vzeroall");
	ck_assert_ptr_null(xfail_reason(&X, "xsav"));
	ck_assert_ptr_null(xfail_reason(&X, "smptest"));
	xfail_free(&X);
	ck_assert_int_eq(parse(""), 0);
	ck_assert_int_eq(X.n, 0);
	ck_assert_int_eq(parse("# only\n\n   \n"), 0);
	ck_assert_int_eq(X.n, 0);
	xfail_free(&X);
}
END_TEST

static void refused(const char *text, size_t len, const char *want)
{
	ck_assert_int_eq(xfail_parse(text, len, "x.txt", &X, err), -1);
	ck_assert_msg(strstr(err, want), "\"%s\" lacks \"%s\"", err, want);
	ck_assert(!strchr(err, '\n'));
	ck_assert_ptr_null(X.e);
	ck_assert_int_eq(X.n, 0);
}

#define REFUSED(text, want)	refused(text, strlen(text), want)

START_TEST(refusals)
{
	char big[400];

	REFUSED("emulator\n", "x.txt:1: 'emulator' has no reason");
	REFUSED("a why\nemulator   # no reason\n",
		"x.txt:2: 'emulator' has no reason");
	REFUSED("a one\nb two\na three\n", "x.txt:3: 'a' is listed twice");
	REFUSED("foo/bar reason\n", "x.txt:1: '/' in a test name");
	REFUSED("[emulator] reason\n", "'[' in a test name");
	REFUSED(".hidden reason\n", "bad test name '.hidden'");
	refused("a b\0c\n", 6, "a NUL byte");
	memset(big, 'n', 100);
	snprintf(big + 100, sizeof(big) - 100, " why\n");
	REFUSED(big, "bad test name");
	memset(big, 'r', sizeof(big) - 1);
	big[0] = 'a', big[1] = ' ';
	big[sizeof(big) - 1] = 0;
	REFUSED(big, "reason longer than 199");
}
END_TEST

START_TEST(expected_verdicts)
{
	struct result r = { .v = V_FAIL };

	result_expect_fail(&r);
	ck_assert_int_eq(r.v, V_XFAIL);
	r.v = V_TIMEOUT;
	result_expect_fail(&r);
	ck_assert_int_eq(r.v, V_XFAIL);
	r.v = V_PASS;
	result_expect_fail(&r);
	ck_assert_int_eq(r.v, V_XPASS);
	r.v = V_FLAKY;
	result_expect_fail(&r);
	ck_assert_int_eq(r.v, V_XPASS);
	r.v = V_SKIP;
	result_expect_fail(&r);
	ck_assert_int_eq(r.v, V_SKIP);
	ck_assert_str_eq(verdict_name(V_XFAIL), "XFAIL");
	ck_assert_str_eq(verdict_name(V_XPASS), "XPASS");
	ck_assert_str_eq(verdict_name(V_FLAKY), "FLAKY");
}
END_TEST

START_TEST(retry_policy)
{
	struct retry_policy p = { .retries = 2, .budget_left = -1 };
	struct result to = { .v = V_TIMEOUT }, fail = { .v = V_FAIL };
	struct result pass = { .v = V_PASS };

	ck_assert(retry_again(&p, &to, 1, false, 90));
	ck_assert(retry_again(&p, &to, 2, false, 90));
	ck_assert(!retry_again(&p, &to, 3, false, 90));	/* 1 + 2 runs */
	ck_assert(!retry_again(&p, &fail, 1, false, 90));	/* an answer */
	ck_assert(!retry_again(&p, &pass, 1, false, 90));
	ck_assert(!retry_again(&p, &to, 1, true, 90));	/* expected */
	p.budget_left = 60;				/* would not fit */
	ck_assert(!retry_again(&p, &to, 1, false, 90));
	p.budget_left = 120;
	ck_assert(retry_again(&p, &to, 1, false, 90));
	p.retries = 0;
	ck_assert(!retry_again(&p, &to, 1, false, 90));
}
END_TEST

START_TEST(attempts)
{
	struct result early[2] = {
		{ .v = V_TIMEOUT, .text = "timeout; duration=90s" },
		{ .v = V_TIMEOUT, .text = "timeout; duration=90s" },
	};
	struct result last = { .v = V_PASS, .text = "18 tests" };

	retry_final(&last, early, 0);		/* one run: as it was */
	ck_assert_int_eq(last.v, V_PASS);
	ck_assert_str_eq(last.text, "18 tests");
	ck_assert_int_eq(last.attempts, 1);
	retry_final(&last, early, 2);		/* never silently passed */
	ck_assert_int_eq(last.v, V_FLAKY);
	ck_assert_int_eq(last.attempts, 3);
	ck_assert_str_eq(last.text, "passed on attempt 3 (18 tests); attempt "
			 "2: timeout; duration=90s");
	last = (struct result){ .v = V_TIMEOUT,
				.text = "timeout; duration=90s" };
	retry_final(&last, early, 1);
	ck_assert_int_eq(last.v, V_TIMEOUT);
	ck_assert_str_eq(last.text, "2 attempts, the last: timeout; "
			 "duration=90s");
}
END_TEST

static struct manifest_test T[4] = {
	{ .name = "xf" }, { .name = "xp" }, { .name = "fl" }, { .name = "ok" },
};

/* xf failed as expected, xp passed though expected to fail, fl passed on
 * its second attempt, ok passed. */
static void items(struct run_item *it)
{
	memset(it, 0, 4 * sizeof(*it));
	for (int i = 0; i < 4; i++) {
		it[i].plan.t = &T[i];
		it[i].res[RUN_VMM] = (struct result){ .v = V_PASS, .secs = 1,
						      .attempts = 1 };
	}
	it[0].xfail = it[1].xfail = "MMX in ring 0 # not a directive";
	it[0].res[RUN_VMM].v = V_XFAIL;
	snprintf(it[0].res[RUN_VMM].text, RESULT_TEXT_MAX, "aborted");
	it[1].res[RUN_VMM].v = V_XPASS;
	it[2].res[RUN_VMM].v = V_FLAKY;
	it[2].res[RUN_VMM].attempts = 2;
	snprintf(it[2].res[RUN_VMM].text, RESULT_TEXT_MAX, "passed on "
		 "attempt 2; attempt 1: timeout; duration=90s");
	it[2].tries[0] = (struct result){ .v = V_TIMEOUT,
					  .text = "timeout; duration=90s" };
	it[2].ntries = 1;
}

static const char *slurp(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = 0;
	fclose(f);
	unlink(path);
	return buf;
}

#define HAS(text, want)	ck_assert_msg(strstr(text, want), "lacks: %s", want)

START_TEST(reports)
{
	struct run_item it[4];
	struct capture c;
	struct junit_info ji = { "u.cfg", "2/3", false, false };
	char path[PATH_MAX], buf[8192];
	const char *out;

	items(it);
	capture_start(&c, 1);
	for (int i = 0; i < 4; i++)
		report_line(stdout, &it[i], false);
	report_totals(stdout, it, 4, false, 5);
	out = capture_end(&c);
	HAS(out, "XFAIL xf (aborted) 1.0s; expected to fail: MMX in ring 0");
	HAS(out, "XPASS xp 1.0s; expected to fail: MMX");
	HAS(out, "FLAKY fl (passed on attempt 2; attempt 1: timeout");
	HAS(out, "minivmm: 1 PASS, 0 FAIL, 0 TIMEOUT, 0 SKIP, 1 XFAIL, "
	    "1 XPASS, 1 FLAKY (4.0s of runs); 4 tests in 5.0s");

	tmpfile_with(path, "", 0);
	ck_assert_int_eq(report_tap(path, it, 4), 0);
	out = slurp(path, buf, sizeof(buf));
	HAS(out, "not ok 1 - xf: aborted # TODO MMX in ring 0 _ not a "
	    "directive\n");
	HAS(out, "\nok 2 - xp # TODO MMX");
	HAS(out, "\nok 3 - fl: passed on attempt 2; attempt 1: timeout; "
	    "duration=90s\n  ---\n  duration_ms: 1000\n  attempts: 2\n");

	tmpfile_with(path, "", 0);
	ck_assert_int_eq(report_junit(path, &ji, it, 4), 0);
	out = slurp(path, buf, sizeof(buf));
	HAS(out, "tests=\"4\" failures=\"1\" skipped=\"1\"");
	HAS(out, "<property name=\"shard\" value=\"2/3\"/>");
	HAS(out, "<skipped type=\"xfail\" message=\"expected to fail: MMX");
	HAS(out, "<failure type=\"xpass\" message=\"passed, but expected");
	HAS(out, "<flakyFailure type=\"TIMEOUT\" message=\"timeout; "
	    "duration=90s\"/>");
	ji.xpass_ok = true;
	ji.shard = NULL;
	tmpfile_with(path, "", 0);
	ck_assert_int_eq(report_junit(path, &ji, it, 4), 0);
	out = slurp(path, buf, sizeof(buf));
	HAS(out, "tests=\"4\" failures=\"0\" skipped=\"1\"");
	ck_assert(!strstr(out, "xpass") && !strstr(out, "properties"));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("test_xfail");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, entries);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, expected_verdicts);
	tcase_add_test(tc, retry_policy);
	tcase_add_test(tc, attempts);
	tcase_add_test(tc, reports);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
