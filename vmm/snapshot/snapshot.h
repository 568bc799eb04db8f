/* SPDX-License-Identifier: MIT */
/*
 * Snapshots of a running VM (docs/snapshot.md): the set-up that makes a
 * VM snapshot-able (its sections, the control page, the triggers), and
 * taking one on the main thread: pause every vCPU at a clean point,
 * quiesce the devices, save every registered section, write the file
 * atomically, then end the run (status 0) or go on (--snapshot-continue).
 *
 * Triggers: a guest write to the control page's REQUEST register
 * (--snapshot-at port), a console output marker (--snapshot-at
 * console:STRING), Ctrl-A s on the console.  Restoring is restore.h.
 */
#ifndef MINIVMM_SNAPSHOT_SNAPSHOT_H
#define MINIVMM_SNAPSHOT_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>

struct vm;

/* At the end of vm_create: registers the VM-wide, vCPU, memory and
 * control-page sections, arms the triggers, creates the first temp file
 * of --snapshot (so a bad path is refused before the guest starts).  0, or
 * -1 after printing why (*usage set when it is bad input). */
int snapshot_setup(struct vm *vm, int *usage);
void snapshot_destroy(struct vm *vm);
/* Registers vm->rom as a memory section (set-up, and restore once it has
 * mapped the ROM).  0 or -1. */
int snapshot_add_rom(struct vm *vm);

/* The main thread polls this fd (-1: nothing to poll) and calls
 * snapshot_service when it is readable. */
int snapshot_poll_fd(struct vm *vm);
void snapshot_service(struct vm *vm);
/* Ctrl-A s: take a snapshot now (if --snapshot was given). */
void snapshot_request(struct vm *vm, const char *why);
/* A snapshot to path now, on the calling thread (QMP's): the vCPUs
 * paused for it, the run ended after it unless go_on.  0, or -1 with
 * one line in err (the guest runs on). */
int snapshot_take_file(struct vm *vm, const char *path, bool go_on,
		       char *err, size_t errlen);
/* Lets parked vCPUs go (the run ends). */
void snapshot_release(struct vm *vm);

#endif
