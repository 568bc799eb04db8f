/* SPDX-License-Identifier: MIT */
/*
 * The main thread's part of a run: start the vCPUs, then wait for the end
 * (a vm_stop from any thread, a signal, the timeout) while feeding console
 * input to the UART.
 */
#ifndef MINIVMM_RUN_H
#define MINIVMM_RUN_H

struct vm;

/* Blocks the signals that end a run (SIGINT, SIGTERM, SIGHUP, SIGQUIT)
 * and the vCPU kick in the calling thread, and so in every thread it
 * starts later.  Call it before vm_create(), which starts device threads:
 * a thread that does not block them takes a signal's default action, and
 * the process dies without its report, stats or flush. */
int vm_block_signals(void);

/* Runs until the guest or the user ends the run; returns the exit status. */
int vm_run(struct vm *vm);

#endif
