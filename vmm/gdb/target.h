/* SPDX-License-Identifier: MIT */
/*
 * The gdb target over the VM: vCPU registers by KVM ioctl, linear
 * addresses by KVM_TRANSLATE (no accessed/dirty bits set), guest memory
 * by the debugger's accessors in memory.h, the guest debug state per
 * vCPU, and what this host cannot do (its debug limit).  Every call
 * expects the vCPU it names to be out of KVM_RUN (parked).
 */
#ifndef MINIVMM_GDB_TARGET_H
#define MINIVMM_GDB_TARGET_H

#include <stdbool.h>

#include "vmm/gdb/session.h"

struct vm;

void gdb_target_init(struct gdb_target *t, struct vm *vm);
/* Applies the breakpoints to every vCPU; step: only vCPU step_tid is
 * single-stepped (-1: none).  0, or -1 if KVM refused. */
int gdb_target_debug(struct vm *vm, const struct gdb_bkpts *b, int step_tid);
/* Hands an exception the debugger did not cause back to the guest
 * (#BP from the guest's own int3, #DB from its own debug registers). */
void gdb_target_reinject(struct vm *vm, unsigned int tid, unsigned int vec);

#endif
