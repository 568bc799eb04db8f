// SPDX-License-Identifier: MIT
/*
 * Every command-line option either shapes the machine or does not.  One
 * that does must be kept in a snapshot's CONFIG section (the restore
 * builds its machine from there), and given again at a restore it must
 * agree with the snapshot or be refused.  This test lists every option
 * the CLI has in exactly one of three tables below, so adding an option to
 * vmm/cli/cli.c without deciding (and, for a machine option, without saving it
 * in vmm/snapshot/config.c) fails `every_option_classified` or
 * `machine_options_saved`.
 */
#include "tests/unit/unit.h"
#include "vmm/cli/cli.h"
#include "vmm/snapshot/config.h"

#define ERR		200
#define MAX_ARGS	16

/* Options that shape the machine: a value other than the default, and
 * (with a restore) nothing to compare against but the snapshot. */
static const struct {
	const char *name, *val;		/* val NULL: no argument */
} machine[] = {
	{ "memory", "512M" }, { "cpus", "3" }, { "ecam", "trap" },
	{ "pci-pio", "off" }, { "pci-buses", "4" },
	{ "xen-platform", "off" }, { "xen-bar-mtrr", "uc" },
	{ "msr-policy", "preset:xen-strict" }, { "msr", "0x174 deny" },
	{ "msr-default", "ignore" }, { "disk", "/nonexistent.img,serial=s1" },
	{ "rng", NULL }, { "exit-style", "qemu" }, { "cpuid", "-x2apic" },
	{ "pci-testdev", "on" }, { "syscall-fix", "off" },
	{ "console-device", "virtio" }, { "net", "tap=mv0,mac=52:54:00:00:00:09" },
	{ "pvpanic", "on" }, { "virtio-console", "pty" },
};

/* What the guest was loaded from: saved, refused at any restore. */
static const char *const image[] = {
	"firmware", "kernel", "initrd", "append",
	/* refused with --snapshot and --restore (vhost-user back ends) */
	"fs", "share", "cmd",
};

/* How a run goes, not what the machine is: free at a restore. */
static const char *const run[] = {
	"timeout", "console", "stats", "stats-json", "timing", "verbose",
	"dump-acpi", "coalesced-pio",
	"no-sandbox", "msr-policy-check", "snapshot", "snapshot-at",
	"snapshot-continue", "restore", "restore-verify", "append-env",
	"stall-timeout", "gdb", "qmp", "help", "version",
	"serial",	/* but a second one adds COM2: machine_com2 */
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static unsigned int listed(const char *name)
{
	unsigned int n = 0;

	for (size_t i = 0; i < N(machine); i++)
		n += !strcmp(machine[i].name, name);
	for (size_t i = 0; i < N(image); i++)
		n += !strcmp(image[i], name);
	for (size_t i = 0; i < N(run); i++)
		n += !strcmp(run[i], name);
	return n;
}

START_TEST(every_option_classified)
{
	const char *name;

	for (size_t i = 0; (name = cli_option_name(i)); i++)
		ck_assert_msg(listed(name) == 1, "--%s is in %u of the machine"
			      "/image/run tables of this test (decide, and "
			      "save it in vmm/snapshot/config.c if it shapes "
			      "the machine)", name, listed(name));
}
END_TEST

/* cli_parse of "minivmm ARGS..." into c; stderr swallowed. */
static enum cli_result parse(struct vmm_config *c, const char *const *args)
{
	char *argv[MAX_ARGS + 2];
	struct capture err;
	enum cli_result r;
	int argc = 0;

	argv[argc++] = "minivmm";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	cli_defaults(c);
	capture_start(&err, STDERR_FILENO);
	r = cli_parse(c, argc, argv);
	capture_end(&err);
	return r;
}

static void encode(const struct vmm_config *c, struct snap_buf *b)
{
	char err[ERR];

	snap_buf_init(b);
	ck_assert_int_eq(snap_config_encode(c, b, err, ERR), 0);
}

static bool same_bytes(const struct snap_buf *a, const struct snap_buf *b)
{
	return a->len == b->len && !memcmp(a->p, b->p, a->len);
}

/* For option i: the boot's CONFIG differs from a default boot's; decoded
 * and merged into a restore that gives the same option and value, it
 * encodes to the same bytes (nothing lost on the way); a restore giving
 * it against a default machine's snapshot is refused, naming it. */
static void check_machine_option(size_t i)
{
	const char *name = machine[i].name, *val = machine[i].val;
	char opt[40], err[ERR];
	const char *boot[] = { "--kernel", "k", opt, val, NULL };
	const char *plain[] = { "--kernel", "k", NULL };
	const char *again[] = { "--restore", "f", opt, val, NULL };
	struct vmm_config a, d, r;
	struct snap_config sa, sd;
	struct snap_buf ba, bd, br;

	snprintf(opt, sizeof(opt), "--%s", name);
	ck_assert_int_eq(parse(&a, boot), CLI_RUN);
	ck_assert_int_eq(parse(&d, plain), CLI_RUN);
	encode(&a, &ba);
	encode(&d, &bd);
	ck_assert_msg(!same_bytes(&ba, &bd), "--%s is not saved in CONFIG",
		      name);
	ck_assert_int_eq(snap_config_decode(ba.p, ba.len, &sa, err, ERR), 0);
	ck_assert_int_eq(snap_config_decode(bd.p, bd.len, &sd, err, ERR), 0);

	ck_assert_int_eq(parse(&r, again), CLI_RUN);
	ck_assert_msg(snap_config_merge(&r, &sa, err, ERR) == 0,
		      "--%s %s refused against its own snapshot: %s", name,
		      val ? val : "", err);
	encode(&r, &br);
	ck_assert_msg(same_bytes(&br, &ba), "--%s: the restored machine "
		      "differs from the snapshot's", name);

	ck_assert_int_eq(parse(&r, again), CLI_RUN);
	ck_assert_msg(snap_config_merge(&r, &sd, err, ERR) == -1,
		      "--%s given at a restore of a machine without it was "
		      "accepted", name);
	ck_assert_msg(strstr(err, opt) || (!strncmp(name, "msr", 3) &&
					   strstr(err, "MSR policy")),
		      "--%s: the refusal does not name it: %s", name, err);
	snap_config_free(&sa);
	snap_config_free(&sd);
	snap_buf_free(&ba);
	snap_buf_free(&bd);
	snap_buf_free(&br);
}

START_TEST(machine_options_saved)
{
	for (size_t i = 0; i < N(machine); i++)
		check_machine_option(i);
}
END_TEST

/* COM2 is part of the machine: a second --serial is saved, restores
 * without being given again, and is refused against a snapshot without
 * it; one --serial (COM1's host end) is free at any restore. */
START_TEST(machine_com2)
{
	const char *boot[] = { "--kernel", "k", "--serial", "pty", "--serial",
			       "unix:/tmp/x", NULL };
	const char *one[] = { "--kernel", "k", "--serial", "pty", NULL };
	const char *plain[] = { "--restore", "f", NULL };
	const char *two[] = { "--restore", "f", "--serial", "stdio",
			      "--serial", "none", NULL };
	const char *com1[] = { "--restore", "f", "--serial", "file:c", NULL };
	struct vmm_config a, o, r;
	struct snap_config sa, so;
	struct snap_buf ba, bo;
	char err[ERR];

	ck_assert_int_eq(parse(&a, boot), CLI_RUN);
	ck_assert_int_eq(parse(&o, one), CLI_RUN);
	encode(&a, &ba);
	encode(&o, &bo);
	ck_assert(!same_bytes(&ba, &bo));
	ck_assert_int_eq(snap_config_decode(ba.p, ba.len, &sa, err, ERR), 0);
	ck_assert_int_eq(snap_config_decode(bo.p, bo.len, &so, err, ERR), 0);
	ck_assert(sa.m.com2 && !so.m.com2);
	ck_assert_int_eq(parse(&r, plain), CLI_RUN);
	ck_assert_int_eq(snap_config_merge(&r, &sa, err, ERR), 0);
	ck_assert(r.com2);
	ck_assert_int_eq(parse(&r, two), CLI_RUN);
	ck_assert_int_eq(snap_config_merge(&r, &sa, err, ERR), 0);
	ck_assert_int_eq(parse(&r, two), CLI_RUN);
	ck_assert_int_eq(snap_config_merge(&r, &so, err, ERR), -1);
	ck_assert_ptr_nonnull(strstr(err, "--serial"));
	ck_assert_ptr_nonnull(strstr(err, "COM2"));
	ck_assert_int_eq(parse(&r, com1), CLI_RUN);
	ck_assert_int_eq(snap_config_merge(&r, &so, err, ERR), 0);
	ck_assert_int_eq(parse(&r, com1), CLI_RUN);
	ck_assert_int_eq(snap_config_merge(&r, &sa, err, ERR), 0);
	snap_config_free(&sa);
	snap_config_free(&so);
	snap_buf_free(&ba);
	snap_buf_free(&bo);
}
END_TEST

START_TEST(image_options_refused_at_restore)
{
	for (size_t i = 0; i < N(image); i++) {
		char opt[40];
		const char *args[] = { "--restore", "f", opt, "x", NULL };
		struct vmm_config c;

		snprintf(opt, sizeof(opt), "--%s", image[i]);
		ck_assert_msg(parse(&c, args) == CLI_ERROR, "%s accepted with "
			      "--restore", opt);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("snapshot_config");
	TCase *t = tcase_create("options");

	tcase_add_test(t, every_option_classified);
	tcase_add_test(t, machine_options_saved);
	tcase_add_test(t, machine_com2);
	tcase_add_test(t, image_options_refused_at_restore);
	suite_add_tcase(s, t);
	return unit_run(s);
}
