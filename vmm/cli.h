/* SPDX-License-Identifier: MIT */
/*
 * The command line: option table → struct vmm_config.  Knows nothing of KVM
 * or devices; checks each value's syntax and range, and reports bad input
 * with one line on stderr (the caller exits with EXIT_USAGE).
 */
#ifndef MINIVMM_CLI_H
#define MINIVMM_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum console_mode { CONSOLE_STDIO, CONSOLE_NONE, CONSOLE_FILE };
enum ecam_mode { ECAM_RO, ECAM_TRAP, ECAM_OFF };
enum xen_bar_mtrr { XEN_BAR_WB, XEN_BAR_UC };

#define CLI_MAX_MSR_RULES	64

struct vmm_config {
	const char *firmware;		/* NULL: the one built with us */
	const char *kernel;
	const char *initrd;
	const char *append;
	uint64_t mem_size;
	unsigned int cpus;
	double timeout;			/* seconds; 0: none */
	enum console_mode console;
	const char *console_file;
	bool stats;
	const char *stats_json;
	bool timing;
	/* PCI */
	enum ecam_mode ecam;
	bool pci_pio;
	unsigned int pci_buses;
	bool xen_platform;
	enum xen_bar_mtrr xen_bar_mtrr;
	/* MSR policy */
	const char *msr_policy;		/* file or "preset:NAME" */
	const char *msr_rules[CLI_MAX_MSR_RULES];
	int n_msr_rules;
	const char *msr_default;	/* allow|deny|ignore */
	const char *msr_policy_check;	/* print table and exit */
	bool sandbox;
	const char *dump_acpi;
	bool exit_qemu;			/* --exit-style qemu */
	bool pci_testdev;		/* --pci-testdev on */
	const char *cpuid;		/* --cpuid +flag,-flag,... */
};

enum cli_result { CLI_RUN, CLI_EXIT_OK, CLI_ERROR };

void cli_defaults(struct vmm_config *cfg);
/* Parses argv (argv[0] = program, an optional "run" subcommand first). */
enum cli_result cli_parse(struct vmm_config *cfg, int argc, char **argv);
void cli_usage(FILE *out);

#endif
