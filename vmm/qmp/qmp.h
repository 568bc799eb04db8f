/* SPDX-License-Identifier: MIT */
/*
 * The QMP control socket (--qmp tcp:[HOST]:PORT|unix:PATH): a thread
 * that accepts clients (several at once, each with its own session),
 * answers their commands over the VM and sends every negotiated client
 * the run's events.  docs/debugging.md is the user's view; the client
 * subcommand is ctl.h.
 */
#ifndef MINIVMM_QMP_QMP_H
#define MINIVMM_QMP_QMP_H

struct vm;

/* At the end of vm_create: parses --qmp and opens the socket (a bad
 * address is refused before the guest starts).  0, or -1 after saying
 * why (*usage set when it is bad input). */
int qmp_setup(struct vm *vm, int *usage);
/* When the run starts: the server's thread.  0 or -1. */
int qmp_start(struct vm *vm);
/* At the end of the run (vCPUs joined): the SHUTDOWN event to every
 * client, then the thread ends and the socket is closed and removed. */
void qmp_finish(struct vm *vm);

#endif
