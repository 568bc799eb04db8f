/* SPDX-License-Identifier: MIT */
/*
 * The gdb stub (--gdb tcp:[HOST]:PORT|unix:PATH[,wait]): a thread that
 * listens for one debugger at a time and speaks the remote protocol
 * (proto.h) over the VM's vCPUs (target.c).  It owns the vCPUs' guest
 * debug state (KVM_SET_GUEST_DEBUG) and the debug exits while a debugger
 * is attached, and holds the VM paused (run/pause.h) while gdb has it
 * stopped.  docs/debugging.md is the user's view.
 */
#ifndef MINIVMM_GDB_GDB_H
#define MINIVMM_GDB_GDB_H

struct vm;

/* At the end of vm_create: parses --gdb, opens the socket (so a bad
 * address is refused before the guest starts), takes the debug exits;
 * with wait, the vCPUs will park before their first instruction.  0, or
 * -1 after saying why (*usage set when it is bad input). */
int gdb_setup(struct vm *vm, int *usage);
/* When the run starts: the stub's thread.  0 or -1. */
int gdb_start(struct vm *vm);
/* At the end of the run (vCPUs joined): tells gdb the exit status, ends
 * the thread, closes and removes the socket. */
void gdb_finish(struct vm *vm);

#endif
