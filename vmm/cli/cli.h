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

#include "vmm/cli/fs_opt.h"
#include "vmm/cli/net_opt.h"
#include "vmm/cli/serial_opt.h"

enum console_mode { CONSOLE_STDIO, CONSOLE_NONE, CONSOLE_FILE };
enum ecam_mode { ECAM_RO, ECAM_TRAP, ECAM_OFF };
enum xen_bar_mtrr { XEN_BAR_WB, XEN_BAR_UC };
enum syscall_fix { SYSCALL_FIX_AUTO, SYSCALL_FIX_ON, SYSCALL_FIX_OFF };

#define CLI_MAX_MSR_RULES	64
#define CLI_MAX_DISKS		8
#define CLI_SERIAL_MAX		20	/* virtio-blk ID bytes */
#define CLI_PATH_MAX		4096

/* --disk ...,cache=: QEMU's names.  writeback: the host's page cache,
 * a guest flush is fdatasync; none: O_DIRECT, flush still fdatasync (for
 * the file system's metadata and the device's cache); unsafe: flushes
 * ignored (VIRTIO_BLK_F_FLUSH not offered). */
enum disk_cache { DISK_CACHE_WRITEBACK, DISK_CACHE_NONE, DISK_CACHE_UNSAFE };

/* --disk PATH[,ro][,serial=S][,cache=C] */
struct disk_opt {
	char path[CLI_PATH_MAX];
	bool ro;
	enum disk_cache cache;
	bool has_serial;
	char serial[CLI_SERIAL_MAX + 1];
};

#define CLI_MAX_ENV		64

/* When a snapshot is taken (--snapshot-at). */
enum snap_at { SNAP_AT_NONE, SNAP_AT_PORT, SNAP_AT_CONSOLE };

/* Machine options given on the command line (struct vmm_config.given):
 * with --restore they must agree with the snapshot's. */
enum cli_given {
	GIVEN_MEMORY = 1u << 0, GIVEN_CPUS = 1u << 1,
	GIVEN_FIRMWARE = 1u << 2, GIVEN_KERNEL = 1u << 3,
	GIVEN_INITRD = 1u << 4, GIVEN_APPEND = 1u << 5,
	GIVEN_ECAM = 1u << 6, GIVEN_PCI_PIO = 1u << 7,
	GIVEN_PCI_BUSES = 1u << 8, GIVEN_XEN_PLATFORM = 1u << 9,
	GIVEN_XEN_BAR_MTRR = 1u << 10, GIVEN_MSR_POLICY = 1u << 11,
	GIVEN_MSR = 1u << 12, GIVEN_MSR_DEFAULT = 1u << 13,
	GIVEN_DISK = 1u << 14, GIVEN_RNG = 1u << 15,
	GIVEN_EXIT_STYLE = 1u << 16, GIVEN_CPUID = 1u << 17,
	GIVEN_PCI_TESTDEV = 1u << 18, GIVEN_SYSCALL_FIX = 1u << 19,
	GIVEN_CONSOLE_DEVICE = 1u << 20,
	GIVEN_NET = 1u << 21,
	GIVEN_PVPANIC = 1u << 22,
	GIVEN_SERIAL2 = 1u << 23,	/* a second --serial: COM2 */
	GIVEN_VIRTIO_CONSOLE = 1u << 24,
};

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
	bool verbose;			/* host and quirks (host/host.h) */
	/* PCI */
	enum ecam_mode ecam;
	bool pci_pio;
	bool coalesced_pio;	/* queue CF8 writes where KVM can */
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
	/* virtio */
	struct disk_opt disks[CLI_MAX_DISKS];
	unsigned int ndisks;
	bool rng;
	bool console_virtio;		/* a virtio-console (either option) */
	bool stdin_virtio;		/* --console-device virtio */
	/* --serial: COM1's host end, and COM2's (com2: one was given) */
	struct serial_opt serial[SERIAL_OPT_MAX];
	unsigned int nserial;
	bool com2;
	struct serial_opt vconsole;	/* --virtio-console */
	bool vconsole_given;
	struct net_opt nets[NET_OPT_MAX];	/* --net */
	unsigned int nnets;
	struct fs_opt fss[FS_OPT_MAX];	/* --fs, --share (virtio-fs) */
	unsigned int nfs;
	bool exit_qemu;			/* --exit-style qemu */
	bool pci_testdev;		/* --pci-testdev on */
	const char *cpuid;		/* --cpuid +flag,-flag,... */
	const char *gdb;		/* --gdb ADDR[,wait] */
	const char *qmp;		/* --qmp ADDR: the control socket */
	/* Snapshots (docs/snapshot.md) */
	const char *snapshot;		/* --snapshot FILE */
	enum snap_at snapshot_at;
	const char *snapshot_marker;	/* console:STRING */
	bool snapshot_continue;		/* the run goes on after one */
	const char *restore;		/* --restore FILE */
	bool restore_verify;		/* check memory CRCs too */
	const char *append_env[CLI_MAX_ENV];	/* K=V for the guest */
	int n_append_env;
	/* Set by a restore: the MSR policy file's text, as it was. */
	const char *msr_policy_text;
	bool pvpanic;			/* --pvpanic on (implied by --cmd) */
	const char *cmd;		/* --cmd: run in the guest (run/cmd.h) */
	double stall_timeout;		/* seconds without progress; 0: none */
	uint32_t given;			/* enum cli_given bits */
	enum syscall_fix syscall_fix;	/* pvm/syscall.h */
};

enum cli_result { CLI_RUN, CLI_EXIT_OK, CLI_ERROR };

void cli_defaults(struct vmm_config *cfg);
/* Parses argv (argv[0] = program, an optional "run" subcommand first). */
enum cli_result cli_parse(struct vmm_config *cfg, int argc, char **argv);
/* One --disk value, PATH[,ro][,serial=S], into d (also how a snapshot's
 * CONFIG section keeps it).  0, or -1 with why in err. */
/* "writeback", "none", "unsafe", indexed by enum disk_cache. */
extern const char *const cli_disk_cache_names[];
int cli_parse_disk(const char *v, struct disk_opt *d, char *err,
		   size_t errlen);
/* The i-th long option's name, or NULL past the last (for the test that
 * every option is either saved in snapshots or known not to shape the
 * machine: tests/unit/check_snapshot_config.c). */
const char *cli_option_name(size_t i);

#endif
