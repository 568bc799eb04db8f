/* SPDX-License-Identifier: MIT */
/*
 * Pausing the vCPU threads: every vCPU out of KVM_RUN with its last exit
 * completed, parked until the VM goes on.  Several owners may hold the
 * pause at once (a snapshot, the gdb stub, the QMP stop command): the
 * vCPUs run again when the last one lets go.  While paused, one vCPU may
 * be let run on its own (gdb's single step) and held again from its own
 * thread when it is done.
 *
 * Any thread may hold (vm_pause_hold: a vCPU that asks parks right after
 * the exit that asked); the owner then waits for the vCPUs to be parked,
 * does its work (vCPU ioctls are safe: no vCPU is in KVM_RUN) and lets go.
 */
#ifndef MINIVMM_RUN_PAUSE_H
#define MINIVMM_RUN_PAUSE_H

#include <pthread.h>
#include <stdbool.h>

struct vcpu;

struct vm_pause {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	volatile bool pausing;		/* holds > 0: the vCPU loops look */
	unsigned int holds;
	unsigned int parked;
	bool *running;		/* per vCPU: let run while paused */
	bool *is_parked;
	struct vcpu *vcpus;
	unsigned int n;
	const volatile bool *stopping;
};

/* 0, or -1 (out of memory). */
int vm_pause_init(struct vm_pause *p, struct vcpu *vcpus, unsigned int n,
		  const volatile bool *stopping);
void vm_pause_destroy(struct vm_pause *p);
/* Takes one hold: the vCPUs park at their next loop turn (nothing is
 * kicked: vm_pause_wait does that). */
void vm_pause_hold(struct vm_pause *p);
/* Kicks every vCPU out of KVM_RUN and waits until all that are not let
 * run are parked.  0, or -1 if the run is ending meanwhile. */
int vm_pause_wait(struct vm_pause *p);
/* Drops one hold; the last one lets every vCPU go (and forgets which
 * ones were let run alone). */
void vm_pause_release(struct vm_pause *p);
/* While held: lets vCPU id run (run) or parks it again at its next loop
 * turn (!run; from its own thread after its step, say). */
void vm_pause_let_run(struct vm_pause *p, unsigned int id, bool run);
/* How many holds are taken now (0: the vCPUs run). */
unsigned int vm_pause_holds(struct vm_pause *p);
/* True if vCPU id is parked now. */
bool vm_pause_is_parked(struct vm_pause *p, unsigned int id);
/* Wakes every parked vCPU to look at stopping (the run ends). */
void vm_pause_wake(struct vm_pause *p);
/* The vCPU loop's park hook (struct vcpu_exits.park, ctx = p): returns
 * when v may run (the pause is over, v is let run, or the run ends). */
void vm_pause_park(void *ctx, struct vcpu *v);

#endif
