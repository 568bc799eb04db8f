/* SPDX-License-Identifier: MIT */
/*
 * The benchmark plan as data: the minivmm configurations (run options plus
 * payload words), which payload case runs under which of them, its group,
 * and the kvm-floor case that is its floor.  No I/O.
 */
#ifndef MINIVMM_BENCH_PLAN_H
#define MINIVMM_BENCH_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#define BENCH_MAX_ARGS		4
#define BENCH_MAX_CONFIGS	8	/* per case */

/* MSRs, the same as kvm-floor's defaults: one KVM handles in the kernel
 * (--msr-kernel, KERNEL_GS_BASE), one KVM knows that the policy makes exit
 * and passes through (--msr-passthru, SYSENTER_CS), one answered in user
 * space (--msr-user, IA32_CLOCK_MODULATION). */
#define BENCH_MSR_KERNEL	"0xc0000102"
#define BENCH_MSR_PASSTHRU	"0x174"
#define BENCH_MSR_USER		"0x19a"

/* The disk configuration's --disk argument, replaced by the image's path
 * when a run starts (hostio.c makes the image). */
#define BENCH_DISK_ARG		"@disk@"

struct bench_config {
	const char *name;			/* shown in tables */
	const char *args[BENCH_MAX_ARGS + 1];	/* minivmm run options */
	const char *append;			/* payload words */
};

struct bench_case {
	const char *name;
	int ring;
	const char *group;
	const char *configs[BENCH_MAX_CONFIGS + 1];	/* config names */
};

extern const struct bench_config bench_configs[];
extern const size_t bench_nconfigs;
extern const struct bench_case bench_cases[];
extern const size_t bench_ncases;

/* Groups, in report order. */
extern const char *const bench_groups[];

const struct bench_config *bench_config_find(const char *name);
const struct bench_case *bench_case_find(const char *name, int ring);

/* --cases: a comma list of groups (pci, exits, msr, memory, blk, net,
 * boot, snapshot, fs), case
 * names (every ring) or NAME:RING; NULL or "all" selects everything.
 * bench_cases_check() reports the first unknown word; 0 or -1. */
int bench_cases_check(const char *list, char *err, size_t len);
bool bench_case_selected(const char *list, const struct bench_case *c);
bool bench_boot_selected(const char *list);
bool bench_snapshot_selected(const char *list);
bool bench_fs_selected(const char *list);

/* The kvm-floor case ("name:ring") that times the same instructions as
 * this payload case under this configuration, into buf; false if there is
 * none.  ecam_trapped: the config (or peer VMM) traps ECAM. */
bool bench_floor_for(const char *name, int ring, const char *config,
		     bool ecam_trapped, char *buf, size_t len);

/* Is name a virtio-blk case (group blk; its floor is the host's own
 * pread/pwrite loop, hostio.c)? */
bool bench_is_blk(const char *name);

/* The group of a kvm-floor case name (for its own rows). */
const char *bench_floor_group(const char *name);

#endif
