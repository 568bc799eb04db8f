// SPDX-License-Identifier: MIT
/* minivmm test's selection: shards from Bazel's, GitLab's and the
 * option's numbers (every bad or conflicting combination refused with a
 * reason), the round-robin deal as a partition of a real manifest for N =
 * 1..8 under several selections, and the --filter / TESTBRIDGE_TEST_ONLY
 * globs. */
#include "tests/unit/unit.h"
#include "tools/test/filter.h"
#include "tools/test/manifest.h"
#include "tools/test/shard.h"

#define GUEST_CFG	"tests/guest/unittests.cfg"

static struct shard S;
static char err[SHARD_ERR_MAX];

static int resolve(const char *opt, const char *bt, const char *bi,
		   const char *gt, const char *gi)
{
	struct shard_env e = { bt, bi, gt, gi };

	return shard_resolve(opt, &e, &S, err);
}

static void is(int index, int total, const char *source)
{
	ck_assert_msg(S.index == index && S.total == total &&
		      !strcmp(S.source, source), "got %d/%d from '%s', "
		      "expected %d/%d from '%s'", S.index, S.total, S.source,
		      index, total, source);
}

START_TEST(sources)
{
	ck_assert_int_eq(resolve(NULL, NULL, NULL, NULL, NULL), 0);
	is(0, 1, "");
	/* --shard 2/3 = CI_NODE_INDEX=2 of 3 = TEST_SHARD_INDEX=1 of 3 */
	ck_assert_int_eq(resolve("2/3", NULL, NULL, NULL, NULL), 0);
	is(1, 3, "--shard");
	ck_assert_int_eq(resolve(NULL, NULL, NULL, "3", "2"), 0);
	is(1, 3, "GitLab");
	ck_assert_int_eq(resolve(NULL, "3", "1", NULL, NULL), 0);
	is(1, 3, "Bazel");
	ck_assert_int_eq(resolve(NULL, "3", "1", "3", "2"), 0);	/* agree */
	is(1, 3, "Bazel");
	/* the option wins, whatever the environment says */
	ck_assert_int_eq(resolve("1/2", "3", "9", "x", ""), 0);
	is(0, 2, "--shard");
	/* GitLab's CI_NODE_TOTAL=1 on every job without parallel: */
	ck_assert_int_eq(resolve(NULL, NULL, NULL, "1", NULL), 0);
	is(0, 1, "");
	ck_assert_int_eq(resolve(NULL, "", "", "", ""), 0);	/* empty = unset */
	is(0, 1, "");
	ck_assert_int_eq(resolve("1/1", NULL, NULL, NULL, NULL), 0);
	is(0, 1, "--shard");
	ck_assert_int_eq(resolve("1024/1024", NULL, NULL, NULL, NULL), 0);
	is(1023, 1024, "--shard");
}
END_TEST

static void refused(const char *opt, const char *bt, const char *bi,
		    const char *gt, const char *gi, const char *want)
{
	ck_assert_msg(resolve(opt, bt, bi, gt, gi) == -1, "accepted opt=%s "
		      "bazel=%s/%s gitlab=%s/%s", opt, bi, bt, gi, gt);
	ck_assert_msg(strstr(err, want), "\"%s\" lacks \"%s\"", err, want);
	ck_assert(!strchr(err, '\n'));
	is(0, 1, "");
}

START_TEST(refusals)
{
	static const char *const bad_opts[] = {
		"0/3", "4/3", "1/0", "3", "a/b", "1/", "/3", "-1/3", "1/3x",
		"+1/3", " 1/3", "1/1025", "2/1", "1//3", "", "1/ 3", "1/-3",
		"99999999999999999999/3",
	};

	for (size_t i = 0; i < sizeof(bad_opts) / sizeof(bad_opts[0]); i++)
		refused(bad_opts[i], NULL, NULL, NULL, NULL, "--shard");
	refused("0/3", NULL, NULL, NULL, NULL, "I must be 1..3");
	refused("1/0", NULL, NULL, NULL, NULL, "N must be 1..1024");
	/* Bazel: the pair, 0-based, in range */
	refused(NULL, "3", NULL, NULL, NULL,
		"TEST_TOTAL_SHARDS is set without TEST_SHARD_INDEX");
	refused(NULL, NULL, "0", NULL, NULL,
		"TEST_SHARD_INDEX is set without TEST_TOTAL_SHARDS");
	refused(NULL, "3", "3", NULL, NULL, "TEST_SHARD_INDEX '3': expected 0..2");
	refused(NULL, "3", "-1", NULL, NULL, "TEST_SHARD_INDEX '-1'");
	refused(NULL, "0", "0", NULL, NULL, "TEST_TOTAL_SHARDS '0'");
	refused(NULL, "x", "0", NULL, NULL, "TEST_TOTAL_SHARDS 'x'");
	refused(NULL, "3", "1.5", NULL, NULL, "TEST_SHARD_INDEX '1.5'");
	refused(NULL, "2000", "0", NULL, NULL, "expected a shard count 1..1024");
	/* GitLab: the pair, 1-based, in range */
	refused(NULL, NULL, NULL, NULL, "1",
		"CI_NODE_INDEX is set without CI_NODE_TOTAL");
	refused(NULL, NULL, NULL, "2", NULL,
		"CI_NODE_TOTAL '2' is set without CI_NODE_INDEX");
	refused(NULL, NULL, NULL, "3", "0", "CI_NODE_INDEX '0': expected 1..3");
	refused(NULL, NULL, NULL, "3", "4", "CI_NODE_INDEX '4': expected 1..3");
	refused(NULL, NULL, NULL, "three", "1", "CI_NODE_TOTAL 'three'");
	/* both engines, different shards */
	refused(NULL, "2", "0", "2", "2", "disagree");
	refused(NULL, "3", "0", "2", "1", "disagree");
	/* a bad Bazel pair is refused even where GitLab's is fine */
	refused(NULL, "3", "5", "3", "1", "TEST_SHARD_INDEX '5'");
}
END_TEST

static struct manifest M;

static void load(const char *path)
{
	FILE *f = fopen(path, "r");
	static char text[1 << 16];
	char merr[MANIFEST_ERR_MAX];
	size_t n;

	ck_assert_msg(f, "cannot open %s (run from the source tree)", path);
	n = fread(text, 1, sizeof(text), f);
	fclose(f);
	ck_assert_int_eq(manifest_parse(text, n, path, &M, merr), 0);
	ck_assert_int_ge(M.n, 20);
}

/* For N = 1..8: each selected test in exactly one shard, none of the
 * others in any, shard sizes within one of each other, and every shard's
 * tests in the manifest's order. */
static void partition(const bool *sel, const char *what)
{
	int nsel = 0;

	for (int i = 0; i < M.n; i++)
		nsel += sel[i];
	for (int total = 1; total <= 8; total++) {
		int owners[MANIFEST_TESTS_MAX] = { 0 }, lo = M.n, hi = 0;

		for (int idx = 0; idx < total; idx++) {
			struct shard s = { idx, total, "--shard" };
			bool want[MANIFEST_TESTS_MAX];
			int mine = 0;

			memcpy(want, sel, (size_t)M.n * sizeof(*want));
			ck_assert_int_eq(shard_take(&s, want, M.n), nsel);
			for (int i = 0; i < M.n; i++) {
				owners[i] += want[i];
				mine += want[i];
			}
			lo = mine < lo ? mine : lo;
			hi = mine > hi ? mine : hi;
		}
		for (int i = 0; i < M.n; i++)
			ck_assert_msg(owners[i] == sel[i], "%s, N=%d: '%s' in "
				      "%d shards", what, total, M.t[i].name,
				      owners[i]);
		ck_assert_msg(hi - lo <= 1, "%s, N=%d: shards of %d..%d",
			      what, total, lo, hi);
	}
}

START_TEST(partitions)
{
	bool sel[MANIFEST_TESTS_MAX];

	load(GUEST_CFG);
	for (int i = 0; i < M.n; i++)
		sel[i] = true;
	partition(sel, "every test");
	for (int i = 0; i < M.n; i++)
		sel[i] = manifest_has_word(M.t[i].groups, "firmware");
	partition(sel, "group firmware");
	for (int i = 0; i < M.n; i++)
		sel[i] = filter_match("-mtrr-*", M.t[i].name);
	partition(sel, "filter -mtrr-*");
	for (int i = 0; i < M.n; i++)
		sel[i] = i == 3;
	partition(sel, "one test");	/* N > 1: shards with no tests */
	for (int i = 0; i < M.n; i++)
		sel[i] = false;
	partition(sel, "no test");
	manifest_free(&M);
}
END_TEST

/* The deal itself: round-robin over the selection, 1-based as counted. */
START_TEST(round_robin)
{
	struct shard s = { 1, 3, "--shard" };	/* --shard 2/3 */
	bool want[10] = { 1, 1, 0, 1, 1, 1, 0, 1, 1, 1 };
	static const bool mine[10] = { 0, 1, 0, 0, 0, 1, 0, 0, 0, 1 };

	/* selected: 0 1 3 4 5 7 8 9; the 2nd, 5th and 8th are shard 2's */
	ck_assert_int_eq(shard_take(&s, want, 10), 8);
	for (int i = 0; i < 10; i++)
		ck_assert_msg(want[i] == mine[i], "test %d", i);
}
END_TEST

START_TEST(filters)
{
	ck_assert(filter_match(NULL, "smptest"));
	ck_assert(filter_match("", "smptest"));
	ck_assert(filter_match("smptest", "smptest"));
	ck_assert(!filter_match("smptest", "smptest3"));
	ck_assert(filter_match("smptest*", "smptest3"));
	ck_assert(filter_match("vmexit_*:smptest", "vmexit_ipi"));
	ck_assert(filter_match("vmexit_*,smptest", "smptest"));
	ck_assert(!filter_match("vmexit_*:smptest", "s3"));
	/* dashes inside names are names */
	ck_assert(filter_match("pcid-enabled", "pcid-enabled"));
	ck_assert(!filter_match("pcid-enabled", "pcid"));
	ck_assert(filter_match("pcid-*", "pcid-asymmetric"));
	/* a '-' starting a glob starts the negative part */
	ck_assert(!filter_match("-vmx*:svm*", "vmx_apicv_test"));
	ck_assert(!filter_match("-vmx*:svm*", "svm_npt"));
	ck_assert(filter_match("-vmx*:svm*", "smptest"));
	ck_assert(filter_match("vmexit_*:-*ipi*", "vmexit_cpuid"));
	ck_assert(!filter_match("vmexit_*:-*ipi*", "vmexit_ipi_halt"));
	ck_assert(!filter_match("vmexit_*:-*ipi*", "smptest"));
	ck_assert(filter_match("[sx]*", "xapic"));
	ck_assert(!filter_match("?", "ab"));
	ck_assert(filter_match(":::", "anything"));	/* no glob at all */
	ck_assert(!filter_match("-*", "anything"));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("test_shard");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, sources);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, partitions);
	tcase_add_test(tc, round_robin);
	tcase_add_test(tc, filters);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
