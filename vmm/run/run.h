/* SPDX-License-Identifier: MIT */
/*
 * The main thread's part of a run: start the vCPUs, then wait for the end
 * (a vm_stop from any thread, a signal, the timeout) while feeding console
 * input to the UART.
 */
#ifndef MINIVMM_RUN_H
#define MINIVMM_RUN_H

struct vm;

/* Runs until the guest or the user ends the run; returns the exit status. */
int vm_run(struct vm *vm);

#endif
