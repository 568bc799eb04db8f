// SPDX-License-Identifier: MIT
#include "vmm/cli/cli.h"
#include "vmm/cli/cpuid_flags.h"
#include "vmm/layout.h"
#include "vmm/cli/parse.h"
#include "vmm/cli/usage.h"
#include "vmm/run/listen.h"

#include <getopt.h>
#include <string.h>

#define MAX_CPUS_CLI	255	/* xAPIC ids; KVM's own limit is checked later */

enum long_only {
	OPT_FIRMWARE = 256, OPT_KERNEL, OPT_INITRD, OPT_APPEND, OPT_TIMEOUT,
	OPT_CONSOLE, OPT_STATS, OPT_STATS_JSON, OPT_TIMING, OPT_VERSION,
	OPT_MSR_POLICY, OPT_MSR, OPT_MSR_DEFAULT, OPT_MSR_CHECK,
	OPT_ECAM, OPT_PCI_PIO, OPT_PCI_BUSES, OPT_COALESCED_PIO,
	OPT_XEN_PLATFORM, OPT_XEN_BAR_MTRR,
	OPT_DUMP_ACPI, OPT_NO_SANDBOX, OPT_DISK, OPT_RNG, OPT_EXIT_STYLE,
	OPT_CPUID, OPT_PCI_TESTDEV, OPT_CONSOLE_DEVICE,
	OPT_SNAPSHOT, OPT_SNAPSHOT_AT, OPT_SNAPSHOT_CONTINUE, OPT_RESTORE,
	OPT_RESTORE_VERIFY, OPT_APPEND_ENV, OPT_SYSCALL_FIX, OPT_NET,
	OPT_VERBOSE, OPT_FS, OPT_SHARE, OPT_PVPANIC, OPT_CMD, OPT_STALL_TIMEOUT,
	OPT_GDB, OPT_QMP, OPT_SERIAL, OPT_VIRTIO_CONSOLE,
};

static const struct option options[] = {
	{ "memory",	required_argument, NULL, 'm' },
	{ "cpus",	required_argument, NULL, 'c' },
	{ "firmware",	required_argument, NULL, OPT_FIRMWARE },
	{ "kernel",	required_argument, NULL, OPT_KERNEL },
	{ "initrd",	required_argument, NULL, OPT_INITRD },
	{ "append",	required_argument, NULL, OPT_APPEND },
	{ "timeout",	required_argument, NULL, OPT_TIMEOUT },
	{ "console",	required_argument, NULL, OPT_CONSOLE },
	{ "stats",	no_argument,	   NULL, OPT_STATS },
	{ "stats-json",	required_argument, NULL, OPT_STATS_JSON },
	{ "timing",	no_argument,	   NULL, OPT_TIMING },
	{ "verbose",	no_argument,	   NULL, OPT_VERBOSE },
	{ "ecam",	required_argument, NULL, OPT_ECAM },
	{ "pci-pio",	required_argument, NULL, OPT_PCI_PIO },
	{ "pci-buses",	required_argument, NULL, OPT_PCI_BUSES },
	{ "coalesced-pio", required_argument, NULL, OPT_COALESCED_PIO },
	{ "xen-platform", required_argument, NULL, OPT_XEN_PLATFORM },
	{ "xen-bar-mtrr", required_argument, NULL, OPT_XEN_BAR_MTRR },
	{ "dump-acpi",	required_argument, NULL, OPT_DUMP_ACPI },
	{ "no-sandbox",	no_argument,	   NULL, OPT_NO_SANDBOX },
	{ "disk",	required_argument, NULL, OPT_DISK },
	{ "rng",	no_argument,	   NULL, OPT_RNG },
	{ "console-device", required_argument, NULL, OPT_CONSOLE_DEVICE },
	{ "serial",	required_argument, NULL, OPT_SERIAL },
	{ "virtio-console", required_argument, NULL, OPT_VIRTIO_CONSOLE },
	{ "net",	required_argument, NULL, OPT_NET },
	{ "fs",		required_argument, NULL, OPT_FS },
	{ "share",	required_argument, NULL, OPT_SHARE },
	{ "pvpanic",	required_argument, NULL, OPT_PVPANIC },
	{ "cmd",	required_argument, NULL, OPT_CMD },
	{ "stall-timeout", required_argument, NULL, OPT_STALL_TIMEOUT },
	{ "exit-style",	required_argument, NULL, OPT_EXIT_STYLE },
	{ "cpuid",	required_argument, NULL, OPT_CPUID },
	{ "pci-testdev", required_argument, NULL, OPT_PCI_TESTDEV },
	{ "syscall-fix", required_argument, NULL, OPT_SYSCALL_FIX },
	{ "msr-policy",	required_argument, NULL, OPT_MSR_POLICY },
	{ "msr",	required_argument, NULL, OPT_MSR },
	{ "msr-default", required_argument, NULL, OPT_MSR_DEFAULT },
	{ "msr-policy-check", required_argument, NULL, OPT_MSR_CHECK },
	{ "snapshot",	required_argument, NULL, OPT_SNAPSHOT },
	{ "snapshot-at", required_argument, NULL, OPT_SNAPSHOT_AT },
	{ "snapshot-continue", no_argument, NULL, OPT_SNAPSHOT_CONTINUE },
	{ "restore",	required_argument, NULL, OPT_RESTORE },
	{ "restore-verify", no_argument,   NULL, OPT_RESTORE_VERIFY },
	{ "append-env",	required_argument, NULL, OPT_APPEND_ENV },
	{ "gdb",	required_argument, NULL, OPT_GDB },
	{ "qmp",	required_argument, NULL, OPT_QMP },
	{ "help",	no_argument,	   NULL, 'h' },
	{ "version",	no_argument,	   NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

void cli_defaults(struct vmm_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mem_size = LAYOUT_RAM_DEFAULT;
	cfg->cpus = 1;
	cfg->console = CONSOLE_STDIO;
	cfg->ecam = ECAM_RO;
	cfg->pci_pio = true;
	cfg->coalesced_pio = true;
	cfg->pci_buses = 1;
	cfg->xen_platform = true;
	cfg->xen_bar_mtrr = XEN_BAR_WB;
	cfg->sandbox = true;
}

static int bad(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "minivmm: error: %s '%s': %s\n", opt, val, why);
	return -1;
}

static int parse_memory(struct vmm_config *cfg, const char *v)
{
	uint64_t sz;

	if (parse_size(v, &sz) < 0)
		return bad("--memory", v, "not a size (examples: 512M, 2G)");
	if (sz < 16 * MiB)
		return bad("--memory", v, "at least 16M is needed");
	if (sz & (2 * MiB - 1))
		return bad("--memory", v, "must be a multiple of 2M");
	cfg->mem_size = sz;
	return 0;
}

static int parse_cpus(struct vmm_config *cfg, const char *v)
{
	uint64_t n;

	if (parse_u64(v, &n) < 0)
		return bad("--cpus", v, "not a number");
	if (n < 1 || n > MAX_CPUS_CLI)
		return bad("--cpus", v, "must be between 1 and 255");
	cfg->cpus = (unsigned int)n;
	return 0;
}

static int parse_console(struct vmm_config *cfg, const char *v)
{
	if (!*v)
		return bad("--console", v, "expected stdio, none or a file");
	if (!strcmp(v, "stdio")) {
		cfg->console = CONSOLE_STDIO;
	} else if (!strcmp(v, "none")) {
		cfg->console = CONSOLE_NONE;
	} else {
		cfg->console = CONSOLE_FILE;
		cfg->console_file = v;
	}
	return 0;
}

/* Index of v in the NULL-terminated words, or -1 after complaining. */
static int choice(const char *opt, const char *v, const char *const *words,
		  const char *expected)
{
	for (int i = 0; words[i]; i++)
		if (!strcmp(v, words[i]))
			return i;
	return bad(opt, v, expected);
}

static const char *const on_off[] = { "off", "on", NULL };

static int parse_pci(struct vmm_config *cfg, int c, const char *v)
{
	static const char *const ecam[] = { "ro", "trap", "off", NULL };
	static const char *const mtrr[] = { "wb", "uc", NULL };
	uint64_t n;
	int i;

	switch (c) {
	case OPT_ECAM:
		i = choice("--ecam", v, ecam, "expected ro, trap or off");
		cfg->ecam = (enum ecam_mode)i;
		return i < 0 ? -1 : 0;
	case OPT_PCI_PIO:
		i = choice("--pci-pio", v, on_off, "expected on or off");
		cfg->pci_pio = i == 1;
		return i < 0 ? -1 : 0;
	case OPT_COALESCED_PIO:
		i = choice("--coalesced-pio", v, on_off, "expected on or off");
		cfg->coalesced_pio = i == 1;
		return i < 0 ? -1 : 0;
	case OPT_XEN_PLATFORM:
		i = choice("--xen-platform", v, on_off, "expected on or off");
		cfg->xen_platform = i == 1;
		return i < 0 ? -1 : 0;
	case OPT_XEN_BAR_MTRR:
		i = choice("--xen-bar-mtrr", v, mtrr, "expected wb or uc");
		cfg->xen_bar_mtrr = (enum xen_bar_mtrr)i;
		return i < 0 ? -1 : 0;
	case OPT_PCI_BUSES:
		if (parse_u64(v, &n) < 0 || n < 1 || n > 256)
			return bad("--pci-buses", v, "expected 1..256");
		cfg->pci_buses = (unsigned int)n;
		return 0;
	}
	return -1;
}

const char *const cli_disk_cache_names[] = { "writeback", "none", "unsafe" };

static int disk_cache_word(struct disk_opt *d, const char *v, size_t l,
			   char *err, size_t errlen)
{
	for (unsigned int i = 0; i < 3; i++)
		if (strlen(cli_disk_cache_names[i]) == l &&
		    !strncmp(v, cli_disk_cache_names[i], l)) {
			d->cache = (enum disk_cache)i;
			return 0;
		}
	snprintf(err, errlen, "cache=%.*s: expected writeback, none or "
		 "unsafe", (int)(l > 32 ? 32 : l), v);
	return -1;
}

/* One ",word" of --disk after the path. */
static int disk_word(struct disk_opt *d, const char *w, size_t l,
		     char *err, size_t errlen)
{
	if (l == 2 && !strncmp(w, "ro", 2)) {
		d->ro = true;
		return 0;
	}
	if (l >= 6 && !strncmp(w, "cache=", 6))
		return disk_cache_word(d, w + 6, l - 6, err, errlen);
	if (l >= 7 && !strncmp(w, "serial=", 7)) {
		if (l - 7 > CLI_SERIAL_MAX) {
			snprintf(err, errlen, "serial is longer than 20 bytes");
			return -1;
		}
		memcpy(d->serial, w + 7, l - 7);
		d->serial[l - 7] = 0;
		d->has_serial = true;
		return 0;
	}
	snprintf(err, errlen, "unknown option '%.*s' (expected ro, serial=S "
		 "or cache=writeback|none|unsafe)", (int)(l > 64 ? 64 : l), w);
	return -1;
}

/* PATH[,ro][,serial=S][,cache=C]: the path ends at the first comma. */
int cli_parse_disk(const char *v, struct disk_opt *d, char *err,
		   size_t errlen)
{
	const char *comma = strchr(v, ',');
	size_t plen = comma ? (size_t)(comma - v) : strlen(v);

	memset(d, 0, sizeof(*d));
	if (plen == 0) {
		snprintf(err, errlen, "expected PATH[,ro][,serial=S][,cache=C]");
		return -1;
	}
	if (plen >= CLI_PATH_MAX) {
		snprintf(err, errlen, "path too long");
		return -1;
	}
	memcpy(d->path, v, plen);
	while (comma) {
		const char *w = comma + 1, *end = strchr(w, ',');
		size_t l = end ? (size_t)(end - w) : strlen(w);

		if (disk_word(d, w, l, err, errlen) < 0)
			return -1;
		comma = end;
	}
	return 0;
}

static int parse_disk(struct vmm_config *cfg, const char *v)
{
	char err[160];

	if (cfg->ndisks == CLI_MAX_DISKS)
		return bad("--disk", v, "at most 8 disks");
	if (cli_parse_disk(v, &cfg->disks[cfg->ndisks], err, sizeof(err)) < 0)
		return bad("--disk", v, err);
	cfg->ndisks++;
	return 0;
}

static int parse_net(struct vmm_config *cfg, const char *v)
{
	char err[160];

	if (cfg->nnets == NET_OPT_MAX)
		return bad("--net", v, "at most 4 network devices");
	if (net_opt_parse(v, &cfg->nets[cfg->nnets], err, sizeof(err)) < 0)
		return bad("--net", v, err);
	cfg->nnets++;
	return 0;
}

static int parse_fs(struct vmm_config *cfg, const char *v, bool share)
{
	char err[160];

	if (fs_opt_add(cfg->fss, &cfg->nfs, v, share, err, sizeof(err)) < 0)
		return bad(share ? "--share" : "--fs", v, err);
	return 0;
}

static int parse_cpuid(struct vmm_config *cfg, const char *v)
{
	struct cpuid_edits ed;
	char err[CPUID_ERR_MAX];

	if (!strcmp(v, "help")) {
		cpuid_flags_list(stdout);
		return 1;
	}
	if (cpuid_flags_parse(v, &ed, err) < 0) {
		fprintf(stderr, "minivmm: error: --cpuid: %s\n", err);
		return -1;
	}
	cfg->cpuid = v;
	return 0;
}

static int parse_exit_style(struct vmm_config *cfg, const char *v)
{
	static const char *const styles[] = { "raw", "qemu", NULL };
	int i = choice("--exit-style", v, styles, "expected raw or qemu");

	cfg->exit_qemu = i == 1;
	return i < 0 ? -1 : 0;
}

static const struct { int opt; uint32_t bit; } given_bits[] = {
	{ 'm', GIVEN_MEMORY }, { 'c', GIVEN_CPUS },
	{ OPT_FIRMWARE, GIVEN_FIRMWARE }, { OPT_KERNEL, GIVEN_KERNEL },
	{ OPT_INITRD, GIVEN_INITRD }, { OPT_APPEND, GIVEN_APPEND },
	{ OPT_ECAM, GIVEN_ECAM }, { OPT_PCI_PIO, GIVEN_PCI_PIO },
	{ OPT_PCI_BUSES, GIVEN_PCI_BUSES },
	{ OPT_XEN_PLATFORM, GIVEN_XEN_PLATFORM },
	{ OPT_XEN_BAR_MTRR, GIVEN_XEN_BAR_MTRR },
	{ OPT_MSR_POLICY, GIVEN_MSR_POLICY }, { OPT_MSR, GIVEN_MSR },
	{ OPT_MSR_DEFAULT, GIVEN_MSR_DEFAULT },
	{ OPT_DISK, GIVEN_DISK }, { OPT_RNG, GIVEN_RNG },
	{ OPT_CONSOLE_DEVICE, GIVEN_CONSOLE_DEVICE },
	{ OPT_EXIT_STYLE, GIVEN_EXIT_STYLE }, { OPT_CPUID, GIVEN_CPUID },
	{ OPT_PCI_TESTDEV, GIVEN_PCI_TESTDEV },
	{ OPT_SYSCALL_FIX, GIVEN_SYSCALL_FIX },
	{ OPT_NET, GIVEN_NET }, { OPT_PVPANIC, GIVEN_PVPANIC },
	{ OPT_VIRTIO_CONSOLE, GIVEN_VIRTIO_CONSOLE },
};

const char *cli_option_name(size_t i)
{
	return i < sizeof(options) / sizeof(options[0]) ? options[i].name
							 : NULL;
}

static void mark_given(struct vmm_config *cfg, int c)
{
	for (size_t i = 0; i < sizeof(given_bits) / sizeof(given_bits[0]); i++)
		if (given_bits[i].opt == c)
			cfg->given |= given_bits[i].bit;
}

static int parse_snapshot_at(struct vmm_config *cfg, const char *v)
{
	if (!strcmp(v, "port")) {
		cfg->snapshot_at = SNAP_AT_PORT;
		return 0;
	}
	if (!strncmp(v, "console:", 8) && v[8] && strlen(v + 8) <= 256) {
		cfg->snapshot_at = SNAP_AT_CONSOLE;
		cfg->snapshot_marker = v + 8;
		return 0;
	}
	return bad("--snapshot-at", v, "expected port or console:STRING "
		   "(1..256 bytes)");
}

static int parse_snap(struct vmm_config *cfg, int c, const char *v)
{
	switch (c) {
	case OPT_SNAPSHOT: cfg->snapshot = v; return 0;
	case OPT_SNAPSHOT_AT: return parse_snapshot_at(cfg, v);
	case OPT_SNAPSHOT_CONTINUE: cfg->snapshot_continue = true; return 0;
	case OPT_RESTORE: cfg->restore = v; return 0;
	case OPT_RESTORE_VERIFY: cfg->restore_verify = true; return 0;
	case OPT_APPEND_ENV:
		if (strchr(v, '\n')) {
			fprintf(stderr, "minivmm: error: --append-env: a "
				"newline in KEY=VALUE (one parameter per "
				"option)\n");
			return -1;
		}
		if (!strchr(v, '=') || *v == '=')
			return bad("--append-env", v, "expected KEY=VALUE on "
				   "one line");
		if (cfg->n_append_env == CLI_MAX_ENV)
			return bad("--append-env", v, "too many (64)");
		cfg->append_env[cfg->n_append_env++] = v;
		return 0;
	}
	return -1;
}

static int parse_syscall_fix(struct vmm_config *cfg, const char *v)
{
	static const char *const modes[] = { "auto", "on", "off", NULL };
	int i = choice("--syscall-fix", v, modes, "expected on, off or auto");

	cfg->syscall_fix = (enum syscall_fix)i;
	return i < 0 ? -1 : 0;
}

/* A socket address (run/listen.h), checked now: bad ones exit 2. */
static const char *const gdb_opts[] = { "wait", NULL };
static int parse_listen(const char **dst, const char *opt, const char *v,
			const char *const *opts)
{
	struct listen_addr a;
	char err[128];

	if (listen_parse(v, opts, &a, err, sizeof(err)) < 0)
		return bad(opt, v, err);
	*dst = v;
	return 0;
}

/* --serial (COM1, then COM2) and --virtio-console. */
static int parse_serial(struct vmm_config *cfg, int c, const char *v)
{
	const char *opt = c == OPT_SERIAL ? "--serial" : "--virtio-console";
	struct serial_opt o;
	char err[128];

	if (serial_opt_parse(v, &o, err, sizeof(err)) < 0)
		return bad(opt, v, err);
	if (c == OPT_VIRTIO_CONSOLE) {
		cfg->vconsole = o;
		cfg->vconsole_given = true;
		return 0;
	}
	if (cfg->nserial == SERIAL_OPT_MAX)
		return bad(opt, v, "at most two (COM1, then COM2)");
	cfg->serial[cfg->nserial++] = o;
	if (cfg->nserial == 2) {
		cfg->com2 = true;
		cfg->given |= GIVEN_SERIAL2;
	}
	return 0;
}

static int parse_one(struct vmm_config *cfg, int c, const char *v)
{
	mark_given(cfg, c);
	if (c >= OPT_SNAPSHOT && c <= OPT_APPEND_ENV)
		return parse_snap(cfg, c, v);
	if (c >= OPT_ECAM && c <= OPT_XEN_BAR_MTRR)
		return parse_pci(cfg, c, v);
	switch (c) {
	case 'm': return parse_memory(cfg, v);
	case 'c': return parse_cpus(cfg, v);
	case OPT_FIRMWARE: cfg->firmware = v; return 0;
	case OPT_KERNEL: cfg->kernel = v; return 0;
	case OPT_INITRD: cfg->initrd = v; return 0;
	case OPT_APPEND: cfg->append = v; return 0;
	case OPT_TIMEOUT:
		if (parse_seconds(v, &cfg->timeout) < 0 || cfg->timeout == 0)
			return bad("--timeout", v, "expected seconds > 0");
		return 0;
	case OPT_CONSOLE: return parse_console(cfg, v);
	case OPT_STATS: cfg->stats = true; return 0;
	case OPT_STATS_JSON: cfg->stats_json = v; return 0;
	case OPT_TIMING: cfg->timing = true; return 0;
	case OPT_VERBOSE: cfg->verbose = true; return 0;
	case OPT_GDB: return parse_listen(&cfg->gdb, "--gdb", v, gdb_opts);
	case OPT_QMP: return parse_listen(&cfg->qmp, "--qmp", v, NULL);
	case OPT_SERIAL:
	case OPT_VIRTIO_CONSOLE: return parse_serial(cfg, c, v);
	case OPT_MSR_POLICY: cfg->msr_policy = v; return 0;
	case OPT_MSR:
		if (cfg->n_msr_rules == CLI_MAX_MSR_RULES)
			return bad("--msr", v, "too many --msr rules (64)");
		cfg->msr_rules[cfg->n_msr_rules++] = v;
		return 0;
	case OPT_MSR_DEFAULT:
		if (strcmp(v, "allow") && strcmp(v, "deny") &&
		    strcmp(v, "ignore"))
			return bad("--msr-default", v,
				   "expected allow, deny or ignore");
		cfg->msr_default = v;
		return 0;
	case OPT_MSR_CHECK: cfg->msr_policy_check = v; return 0;
	case OPT_DUMP_ACPI: cfg->dump_acpi = v; return 0;
	case OPT_NO_SANDBOX: cfg->sandbox = false; return 0;
	case OPT_DISK: return parse_disk(cfg, v);
	case OPT_RNG: cfg->rng = true; return 0;
	case OPT_NET: return parse_net(cfg, v);
	case OPT_FS: return parse_fs(cfg, v, false);
	case OPT_SHARE: return parse_fs(cfg, v, true);
	case OPT_PVPANIC: {
		int i = choice("--pvpanic", v, on_off, "expected on or off");

		cfg->pvpanic = i == 1;
		return i < 0 ? -1 : 0;
	}
	case OPT_CMD: cfg->cmd = v; cfg->pvpanic = true; return 0;
	case OPT_STALL_TIMEOUT:
		if (parse_seconds(v, &cfg->stall_timeout) < 0 ||
		    cfg->stall_timeout == 0)
			return bad("--stall-timeout", v, "expected seconds > 0");
		return 0;
	case OPT_EXIT_STYLE: return parse_exit_style(cfg, v);
	case OPT_CPUID: return parse_cpuid(cfg, v);
	case OPT_CONSOLE_DEVICE: {
		static const char *const devs[] = { "uart", "virtio", NULL };
		int i = choice("--console-device", v, devs,
			       "expected uart or virtio");

		cfg->console_virtio = cfg->stdin_virtio = i == 1;
		return i < 0 ? -1 : 0;
	}
	case OPT_PCI_TESTDEV: {
		int i = choice("--pci-testdev", v, on_off,
			       "expected on or off");

		cfg->pci_testdev = i == 1;
		return i < 0 ? -1 : 0;
	}
	case OPT_SYSCALL_FIX: return parse_syscall_fix(cfg, v);
	}
	return -1;
}

static enum cli_result check_snapshot_options(const struct vmm_config *cfg)
{
	const char *why = NULL;

	if (cfg->snapshot_at && !cfg->snapshot)
		why = "--snapshot-at needs --snapshot FILE";
	else if (cfg->snapshot_continue && !cfg->snapshot)
		why = "--snapshot-continue needs --snapshot FILE";
	else if (cfg->restore_verify && !cfg->restore)
		why = "--restore-verify needs --restore FILE";
	else if (cfg->restore && (cfg->given & (GIVEN_KERNEL | GIVEN_INITRD |
						GIVEN_APPEND | GIVEN_FIRMWARE)))
		why = "--kernel, --initrd, --append and --firmware conflict "
		      "with --restore (the snapshot's guest is already loaded)";
	else if ((cfg->nfs || cfg->cmd) && (cfg->snapshot || cfg->restore))
		why = "snapshots cannot hold --fs or --share devices (their "
		      "vhost-user back end's state is outside minivmm) or a "
		      "--cmd run";
	if (!why)
		return CLI_RUN;
	fprintf(stderr, "minivmm: error: %s\n", why);
	return CLI_ERROR;
}

enum cli_result cli_parse(struct vmm_config *cfg, int argc, char **argv)
{
	int c;

	if (argc > 1 && !strcmp(argv[1], "run")) {
		argv++;
		argc--;
	}
	opterr = 0;
	optind = 0;	/* 0, not 1: also resets glibc's short-option state */
	while ((c = getopt_long(argc, argv, ":m:c:h", options, NULL)) != -1) {
		if (c == 'h') {
			cli_usage(stdout);
			return CLI_EXIT_OK;
		}
		if (c == OPT_VERSION) {
			printf("minivmm %s\n", MINIVMM_VERSION);
			return CLI_EXIT_OK;
		}
		if (c == '?') {
			fprintf(stderr, "minivmm: error: unknown option '%s' "
				"(see --help)\n", argv[optind - 1]);
			return CLI_ERROR;
		}
		if (c == ':') {
			fprintf(stderr, "minivmm: error: option '%s' needs a "
				"value\n", argv[optind - 1]);
			return CLI_ERROR;
		}
		switch (parse_one(cfg, c, optarg)) {
		case -1:
			return CLI_ERROR;
		case 1:
			return CLI_EXIT_OK;	/* a "help" value */
		}
	}
	if (optind < argc) {
		fprintf(stderr, "minivmm: error: unexpected argument '%s' "
			"(see --help)\n", argv[optind]);
		return CLI_ERROR;
	}
	if (!cfg->pci_pio && cfg->ecam == ECAM_OFF) {
		fprintf(stderr, "minivmm: error: --pci-pio off with --ecam off "
			"leaves no way to reach PCI config space\n");
		return CLI_ERROR;
	}
	if (cfg->vconsole_given)	/* the device, wherever stdin goes */
		cfg->console_virtio = true;
	if (cfg->initrd && !cfg->kernel) {
		fprintf(stderr, "minivmm: error: --initrd needs --kernel\n");
		return CLI_ERROR;
	}
	return check_snapshot_options(cfg);
}
