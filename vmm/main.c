// SPDX-License-Identifier: MIT
/* minivmm: parse, validate, build, run.  Bad input exits with status 2. */
#include "vmm/cli.h"
#include "vmm/acpi_dump.h"
#include "vmm/bench/bench.h"
#include "vmm/exit_status.h"
#include "vmm/machine.h"
#include "vmm/msr/vm.h"
#include "vmm/pci_vm.h"
#include "vmm/pvm/syscall.h"
#include "vmm/run.h"
#include "vmm/test/test.h"
#include "vmm/snapshot/restore.h"
#include "vmm/vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(int argc, char **argv)
{
	struct vmm_config cfg;
	struct snap_restore *rs = NULL;
	struct vm *vm;
	int status;

	if (argc > 1 && !strcmp(argv[1], "bench"))
		return bench_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "test"))
		return test_main(argc - 1, argv + 1);
	cli_defaults(&cfg);
	switch (cli_parse(&cfg, argc, argv)) {
	case CLI_EXIT_OK:
		return 0;
	case CLI_ERROR:
		return EXIT_USAGE;
	case CLI_RUN:
		break;
	}
	if (cfg.msr_policy_check)
		return msr_policy_check(&cfg, stdout);
	/* A restore is checked whole before any VM exists. */
	if (cfg.restore && snapshot_restore_open(&cfg, &rs) < 0)
		return EXIT_USAGE;
	vm = vm_create(&cfg, &status);
	if (vm && rs && snapshot_restore(vm, rs) < 0) {
		vm_destroy(vm);
		vm = NULL;
		status = EXIT_USAGE;
	}
	if (!vm) {
		snapshot_restore_close(rs);
		return status;
	}
	syscall_fix_announce(vm);
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
