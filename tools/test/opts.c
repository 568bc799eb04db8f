// SPDX-License-Identifier: MIT
/* minivmm test: options and the CI engines' environment (opts.h). */
#include "tools/test/opts.h"
#include "tools/test/infra.h"
#include "tools/test/manifest.h"
#include "tools/test/retry.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define JOBS_MAX	64
#define QEMU_PVM_HINT	"-cpu host,-arch-capabilities"

static void usage(FILE *out)
{
	fputs(
"usage: minivmm test [options] MANIFEST [NAME...]\n"
"\n"
"Runs the tests of a kvm-unit-tests manifest (unittests.cfg) under minivmm;\n"
"NAMEs pick tests (a named test runs even in group nodefault).\n"
"  -j, --jobs N         tests at a time (default: the host's CPUs, at most 64)\n"
"  -g, --group G        only the tests in group G (nodefault ones too)\n"
"  --filter GLOBS       only the tests matching one of the globs (':'\n"
"                       separated; after a leading '-' or ':-' the ones to\n"
"                       leave out; default: $TESTBRIDGE_TEST_ONLY)\n"
"  --shard I/N          only shard I of N (1-based): the selected tests dealt\n"
"                       round-robin in the manifest's order (default: Bazel's\n"
"                       TEST_SHARD_INDEX/TEST_TOTAL_SHARDS, GitLab's\n"
"                       CI_NODE_INDEX/CI_NODE_TOTAL)\n"
"  --list               print the names of the tests this run (this shard)\n"
"                       takes, one a line, and run nothing\n"
"  --xfail FILE         tests expected to fail: a name and the reason a line\n"
"                       ('#' comments); they are XFAIL, or XPASS if they pass\n"
"  --xpass-ok           an XPASS does not fail the run\n"
"  --xfail-timeout S    expected failures get at most S seconds\n"
"  --retries N          run a test that times out up to N more times; one\n"
"                       that then passes is FLAKY (default 0, at most 10)\n"
"  --timeout S          every test's timeout in seconds (default: the\n"
"                       manifest's, else 90)\n"
"  --kernel-dir DIR     where the manifest's files are (default: its folder)\n"
"  --logs DIR           per-test logs (default: $TEST_UNDECLARED_OUTPUTS_DIR,\n"
"                       else test-logs)\n"
"  --scratch DIR        snapshots and the environment file (default:\n"
"                       $TEST_TMPDIR, else the logs folder)\n"
"  --tap FILE           write TAP 13\n"
"  --junit FILE         write JUnit XML (default: $XML_OUTPUT_FILE)\n"
"  --peer qemu          also run each test under qemu-system-x86_64 as the\n"
"                       suite's scripts do, and print both columns\n"
"  --qemu-args ARGS     more arguments for QEMU (default on PVM hosts:\n"
"                       " QEMU_PVM_HINT ")\n"
"  --markdown FILE      write the results (both columns) as a Markdown table\n"
"  --no-snapshots       boot every test in full (default: the tests marked\n"
"                       snapshot = port start from one snapshot per machine,\n"
"                       their test_args given as ARGS= in the guest's mailbox)\n"
"  -h, --help           this text\n"
"\n"
"One line per test: PASS, FAIL, SKIP, TIMEOUT, XFAIL, XPASS or FLAKY, the\n"
"test's SUMMARY line or the reason, and the time.  Under Bazel ($TEST_TIMEOUT\n"
"is the whole run's budget; $TEST_SHARD_STATUS_FILE is touched) minivmm's own\n"
"failures go to $TEST_INFRASTRUCTURE_FAILURE_FILE.  Status: 0 nothing failed,\n"
"1 a test failed, timed out or passed unexpectedly under minivmm, 2 bad usage\n"
"or input (options, manifest, xfail file, shard variables), 3 this host or\n"
"minivmm cannot run tests (/dev/kvm, the minivmm binary).\n", out);
}

static int bad(const char *opt, const char *v, const char *why)
{
	return infra_error("usage", "%s '%s': %s", opt, v, why);
}

static int number(const char *opt, const char *v, long lo, long hi, int *out)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < lo || n > hi) {
		char why[48];

		snprintf(why, sizeof(why), "expected %ld..%ld", lo, hi);
		return bad(opt, v, why);
	}
	*out = (int)n;
	return 0;
}

static int seconds(const char *opt, const char *v, double *out)
{
	if (manifest_parse_duration(v, out) < 0 || *out <= 0)
		return bad(opt, v, "expected seconds > 0");
	return 0;
}

static int parse_opt(struct test_opts *o, int c, const char *v)
{
	switch (c) {
	case 'j': return number("--jobs", v, 1, JOBS_MAX, &o->jobs);
	case 'r': return number("--retries", v, 0, RETRY_MAX, &o->retries);
	case 't': return seconds("--timeout", v, &o->timeout);
	case 'X': return seconds("--xfail-timeout", v, &o->xfail_timeout);
	case 'p':
		if (strcmp(v, "qemu"))
			return bad("--peer", v, "expected qemu");
		o->peer = true;
		return 0;
	case 'T': o->tap = v; return 0;
	case 'J': o->junit = v; return 0;
	case 'M': o->markdown = v; return 0;
	case 'L': o->log_dir = v; return 0;
	case 'D': o->scratch = v; return 0;
	case 'K': o->kernel_dir = v; return 0;
	case 'Q': o->qemu_args = v; return 0;
	case 'g': o->group = v; return 0;
	case 'F': o->filter = v; return 0;
	case 'x': o->xfail = v; return 0;
	case 'P': o->xpass_ok = true; return 0;
	case 'l': o->list = true; return 0;
	case 'H': o->shard_opt = v; return 0;
	case 'S': o->snapshots = false; return 0;
	}
	return -1;
}

static const struct option long_opts[] = {
	{ "jobs", required_argument, NULL, 'j' },
	{ "group", required_argument, NULL, 'g' },
	{ "filter", required_argument, NULL, 'F' },
	{ "shard", required_argument, NULL, 'H' },
	{ "list", no_argument, NULL, 'l' },
	{ "xfail", required_argument, NULL, 'x' },
	{ "xpass-ok", no_argument, NULL, 'P' },
	{ "xfail-timeout", required_argument, NULL, 'X' },
	{ "retries", required_argument, NULL, 'r' },
	{ "timeout", required_argument, NULL, 't' },
	{ "peer", required_argument, NULL, 'p' },
	{ "tap", required_argument, NULL, 'T' },
	{ "junit", required_argument, NULL, 'J' },
	{ "markdown", required_argument, NULL, 'M' },
	{ "logs", required_argument, NULL, 'L' },
	{ "scratch", required_argument, NULL, 'D' },
	{ "kernel-dir", required_argument, NULL, 'K' },
	{ "qemu-args", required_argument, NULL, 'Q' },
	{ "no-snapshots", no_argument, NULL, 'S' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

/* The engines' variables, where no option said otherwise. */
static int apply_env(struct test_opts *o)
{
	struct shard_env se;
	const char *v;
	char err[SHARD_ERR_MAX];

	if (!o->junit)
		o->junit = env("XML_OUTPUT_FILE");
	if (!o->log_dir)
		o->log_dir = env("TEST_UNDECLARED_OUTPUTS_DIR");
	if (!o->log_dir)
		o->log_dir = "test-logs";
	if (!o->scratch)
		o->scratch = env("TEST_TMPDIR");
	if (!o->scratch)
		o->scratch = o->log_dir;
	if (!o->filter)
		o->filter = env("TESTBRIDGE_TEST_ONLY");
	o->shard_status = env("TEST_SHARD_STATUS_FILE");
	v = env("TEST_TIMEOUT");
	if (v && (manifest_parse_duration(v, &o->budget) < 0 ||
		  o->budget <= 0))
		return bad("TEST_TIMEOUT", v, "expected seconds > 0");
	shard_env_get(&se);
	if (shard_resolve(o->shard_opt, &se, &o->shard, err) < 0)
		return infra_error("shard", "%s", err);
	return 0;
}

int opts_parse(struct test_opts *o, int argc, char **argv)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int c;

	*o = (struct test_opts){ .jobs = cpus > 0 && cpus < JOBS_MAX ?
					 (int)cpus : 1,
				 .snapshots = true };
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":j:g:h", long_opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		if (c == '?' || c == ':')
			return infra_error("usage", "%s '%s' (see minivmm test "
					   "--help)", c == '?' ?
					   "unknown option" :
					   "option needs a value",
					   argv[optind - 1]);
		if (parse_opt(o, c, optarg) < 0)
			return -1;
	}
	if (optind >= argc)
		return infra_error("usage", "no manifest (see minivmm test "
				   "--help)");
	o->manifest = argv[optind];
	o->names = argv + optind + 1;
	o->nnames = argc - optind - 1;
	return apply_env(o);
}
