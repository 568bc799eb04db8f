// SPDX-License-Identifier: MIT
/* minivmm: parse, validate, build, run.  Bad input exits with status 2. */
#include "vmm/cli/cli.h"
#include "vmm/machine/acpi_dump.h"
#include "vmm/run/exit_status.h"
#include "vmm/host/host.h"
#include "vmm/machine/machine.h"
#include "vmm/msr/vm.h"
#include "vmm/qmp/ctl.h"
#include "vmm/machine/pci_vm.h"
#include "vmm/run/run.h"
#include "vmm/run/cmd.h"
#include "vmm/snapshot/restore.h"
#include "vmm/vm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void report(struct vm *vm, int status)
{
	const struct vmm_config *cfg = vm->cfg;

	if (cfg->timing)
		timing_print(&vm->timing, stderr);
	if (cfg->stats)
		stats_print(&vm->stats, stderr);
	if (cfg->dump_acpi && acpi_dump(&vm->mem, cfg->dump_acpi) < 0)
		fprintf(stderr, "minivmm: --dump-acpi: no tables written\n");
	if (cfg->stats_json &&
	    stats_write_json(&vm->stats, cfg->stats_json, status) < 0)
		fprintf(stderr, "minivmm: error: cannot write --stats-json "
			"'%s'\n", cfg->stats_json);
}

/* `minivmm bench|test ARGS`: the benchmark driver and the test runner are
 * programs of their own (tools/bench, tools/test), installed beside this
 * one as minivmm-bench and minivmm-test; the VMM does not link them. */
static int run_tool(const char *name, char **argv)
{
	char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	char *slash;

	if (n <= 0) {
		perror("minivmm: readlink /proc/self/exe");
		return EXIT_VMM_ERROR;
	}
	path[n] = 0;
	slash = strrchr(path, '/');
	snprintf(slash ? slash + 1 : path, 32, "minivmm-%s", name);
	argv[0] = path;
	execv(path, argv);
	fprintf(stderr, "minivmm: error: %s: cannot run '%s': %s\n", name,
		path, strerror(errno));
	return EXIT_USAGE;
}

/* The host profile, once: everything host-dependent gets it from here. */
static void probe_host(struct host *h, bool verbose)
{
	char line[512];

	host_probe(h);
	h->log.verbose = verbose;
	if (!verbose)
		return;
	host_describe(h, line, sizeof(line));
	fprintf(stderr, "minivmm: %s\n", line);
}

int main(int argc, char **argv)
{
	struct host host;
	struct vmm_config cfg;
	struct snap_restore *rs = NULL;
	struct vm *vm;
	int status;

	if (argc > 1 && (!strcmp(argv[1], "bench") ||
			 !strcmp(argv[1], "test")))
		return run_tool(argv[1], argv + 1);
	if (argc > 1 && !strcmp(argv[1], "ctl"))
		return qmp_ctl_main(argc - 1, argv + 1);
	cli_defaults(&cfg);
	switch (cli_parse(&cfg, argc, argv)) {
	case CLI_EXIT_OK:
		return 0;
	case CLI_ERROR:
		return EXIT_USAGE;
	case CLI_RUN:
		break;
	}
	if (cmd_prepare(&cfg) < 0)
		return EXIT_USAGE;
	probe_host(&host, cfg.verbose);
	if (cfg.msr_policy_check)
		return msr_policy_check(&cfg, &host, stdout);
	if (vm_block_signals() < 0) {
		perror("minivmm: pthread_sigmask");
		return EXIT_VMM_ERROR;
	}
	/* A restore is checked whole before any VM exists. */
	if (cfg.restore && snapshot_restore_open(&cfg, &host, &rs) < 0)
		return EXIT_USAGE;
	vm = vm_create(&cfg, &host, &status);
	if (vm && rs && snapshot_restore(vm, rs) < 0) {
		vm_destroy(vm);
		vm = NULL;
		status = EXIT_USAGE;
	}
	if (!vm) {
		snapshot_restore_close(rs);
		return status;
	}
	host_vm_announce(&host, vm);
	status = vm_run(vm);
	/* However the guest behaved, the VMM's own state must be consistent:
	 * a violation is a minivmm bug, reported as a VMM error. */
	if (pci_vm_check(vm, stderr)) {
		fprintf(stderr, "minivmm: internal invariants violated\n");
		status = EXIT_VMM_ERROR;
	}
	report(vm, status);
	vm_destroy(vm);
	snapshot_restore_close(rs);
	return status;
}
