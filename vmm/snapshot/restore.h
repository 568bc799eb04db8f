/* SPDX-License-Identifier: MIT */
/*
 * Restoring a snapshot (minivmm --restore FILE).  In two steps, so that
 * everything that can be checked is checked before a VM exists:
 * snapshot_restore_open reads and verifies the file (container, state
 * checksums, META against this binary and host, CONFIG against the
 * command line; memory checksums with --restore-verify) and fills in the
 * machine options; after vm_create has built that machine,
 * snapshot_restore maps the memory images copy-on-write and loads every
 * registered section, before any vCPU runs.  Every refusal is one line
 * and exit status 2; no guest instruction runs after one.
 *
 * The file is checked whole before the host is asked anything: the
 * container, every state section's checksum, META and CONFIG decoded,
 * and with --restore-verify every memory section's checksum; only then
 * META against this build and host, CONFIG against the command line.
 * Nothing is applied until all of that has passed.
 */
#ifndef MINIVMM_SNAPSHOT_RESTORE_H
#define MINIVMM_SNAPSHOT_RESTORE_H

#include <stdbool.h>
#include <stddef.h>

struct host;
struct vm;
struct vmm_config;
struct snap_restore;

/* 0, or -1 after printing the refusal (h: this host's profile, for META).
 * cfg then points into *out: close it after the VM is gone. */
int snapshot_restore_open(struct vmm_config *cfg, const struct host *h,
			  struct snap_restore **out);
/* The file alone (no host, no KVM): what snapshot_restore_open checks
 * first; 0, or -1 with one line in err.  tests/unit/check_snapshot_walk.c
 * walks corrupted copies through it. */
int snapshot_restore_check(const char *path, bool verify, char *err,
			   size_t errlen);
int snapshot_restore(struct vm *vm, struct snap_restore *rs);
void snapshot_restore_close(struct snap_restore *rs);

#endif
