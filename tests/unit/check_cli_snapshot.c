// SPDX-License-Identifier: MIT
/* cli_parse for the snapshot options: --snapshot, --snapshot-at,
 * --snapshot-continue, --restore, --restore-verify, --append-env, the
 * machine options recorded as given, and the combinations refused. */
#include "tests/unit/unit.h"
#include "vmm/cli/cli.h"

#define MAX_ARGS	32

struct result {
	enum cli_result res;
	struct vmm_config cfg;
	struct capture out, err;
};

static struct result *parse_argv(struct result *r, const char *const *args)
{
	char *argv[MAX_ARGS + 2];
	int argc = 0;

	argv[argc++] = "minivmm";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	cli_defaults(&r->cfg);
	capture_start(&r->out, STDOUT_FILENO);
	capture_start(&r->err, STDERR_FILENO);
	r->res = cli_parse(&r->cfg, argc, argv);
	capture_end(&r->err);
	capture_end(&r->out);
	return r;
}

#define PARSE(r, ...) \
	parse_argv((r), (const char *const[]){ __VA_ARGS__, NULL })

static void expect_error(struct result *r, const char *must1,
			 const char *must2)
{
	ck_assert_int_eq(r->res, CLI_ERROR);
	ck_assert_str_eq(r->out.text, "");
	assert_one_line(r->err.text, must1, must2);
}

START_TEST(take_options)
{
	struct result r;

	PARSE(&r, "--snapshot", "/tmp/s", "--snapshot-at", "port",
	      "--snapshot-continue");
	ck_assert_int_eq(r.res, CLI_RUN);
	ck_assert_str_eq(r.cfg.snapshot, "/tmp/s");
	ck_assert_int_eq(r.cfg.snapshot_at, SNAP_AT_PORT);
	ck_assert(r.cfg.snapshot_continue);
	PARSE(&r, "--snapshot", "s", "--snapshot-at", "console:READY now");
	ck_assert_int_eq(r.res, CLI_RUN);
	ck_assert_int_eq(r.cfg.snapshot_at, SNAP_AT_CONSOLE);
	ck_assert_str_eq(r.cfg.snapshot_marker, "READY now");
	PARSE(&r, "--snapshot", "s");
	ck_assert_int_eq(r.cfg.snapshot_at, SNAP_AT_NONE);
}
END_TEST

START_TEST(restore_options)
{
	struct result r;

	PARSE(&r, "--restore", "s", "--restore-verify", "--append-env", "A=1",
	      "--append-env", "B==2", "-m", "512M", "-c", "2", "--msr",
	      "0x10 allow", "--timeout", "3");
	ck_assert_int_eq(r.res, CLI_RUN);
	ck_assert_str_eq(r.cfg.restore, "s");
	ck_assert(r.cfg.restore_verify);
	ck_assert_int_eq(r.cfg.n_append_env, 2);
	ck_assert_str_eq(r.cfg.append_env[1], "B==2");
	ck_assert_uint_eq(r.cfg.given, GIVEN_MEMORY | GIVEN_CPUS | GIVEN_MSR);
}
END_TEST

START_TEST(bad_combinations)
{
	struct result r;

	expect_error(PARSE(&r, "--snapshot-at", "port"), "--snapshot-at",
		     "--snapshot FILE");
	expect_error(PARSE(&r, "--snapshot-continue"), "--snapshot-continue",
		     NULL);
	expect_error(PARSE(&r, "--restore-verify"), "--restore FILE", NULL);
	expect_error(PARSE(&r, "--snapshot", "s", "--snapshot-at", "never"),
		     "'never'", "port or console:STRING");
	expect_error(PARSE(&r, "--snapshot", "s", "--snapshot-at", "console:"),
		     "console:STRING", NULL);
	expect_error(PARSE(&r, "--restore", "s", "--kernel", "k"),
		     "conflict with --restore", NULL);
	expect_error(PARSE(&r, "--restore", "s", "--append", "x"),
		     "conflict with --restore", NULL);
	expect_error(PARSE(&r, "--append-env", "NOEQUALS"), "KEY=VALUE",
		     NULL);
	expect_error(PARSE(&r, "--append-env", "=v"), "KEY=VALUE", NULL);
	expect_error(PARSE(&r, "--append-env", "K=a\nb"), "newline", NULL);
}
END_TEST

/* One --append-env more than CLI_MAX_ENV. */
START_TEST(too_many_env)
{
	static char kv[CLI_MAX_ENV + 1][8];
	char *argv[2 * (CLI_MAX_ENV + 1) + 2];
	struct vmm_config c;
	struct capture err;
	int argc = 0;

	argv[argc++] = "minivmm";
	for (int i = 0; i <= CLI_MAX_ENV; i++) {
		snprintf(kv[i], sizeof(kv[i]), "K%d=1", i);
		argv[argc++] = "--append-env";
		argv[argc++] = kv[i];
	}
	argv[argc] = NULL;
	cli_defaults(&c);
	capture_start(&err, STDERR_FILENO);
	ck_assert_int_eq(cli_parse(&c, argc, argv), CLI_ERROR);
	assert_one_line(capture_end(&err), "too many", NULL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli_snapshot");
	TCase *t = tcase_create("snapshot");

	tcase_add_test(t, take_options);
	tcase_add_test(t, restore_options);
	tcase_add_test(t, bad_combinations);
	tcase_add_test(t, too_many_env);
	suite_add_tcase(s, t);
	return unit_run(s);
}
