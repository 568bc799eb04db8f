/* SPDX-License-Identifier: MIT */
/*
 * Pausing a running VM at a clean point: every vCPU out of KVM_RUN with
 * its last exit completed, parked until the VM goes on.  Any thread may
 * ask (snap_pause_request: the vCPU that asked parks right after the
 * instruction that asked); the main thread waits for all of them, does
 * its work, and resumes them.
 */
#ifndef MINIVMM_SNAPSHOT_PAUSE_H
#define MINIVMM_SNAPSHOT_PAUSE_H

#include <pthread.h>
#include <stdbool.h>

struct vcpu;

struct snap_pause {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	volatile bool pausing;
	unsigned int parked;
	struct vcpu *vcpus;
	unsigned int n;
	const volatile bool *stopping;
};

void snap_pause_init(struct snap_pause *p, struct vcpu *vcpus,
		     unsigned int n, const volatile bool *stopping);
void snap_pause_destroy(struct snap_pause *p);
/* Sets pausing: vCPUs park at their next loop turn. */
void snap_pause_request(struct snap_pause *p);
/* Main thread: kicks every vCPU out of KVM_RUN and waits until all are
 * parked.  0, or -1 if the run is ending meanwhile (a vCPU stopped). */
int snap_pause_wait(struct snap_pause *p);
/* Lets the parked vCPUs go on. */
void snap_pause_resume(struct snap_pause *p);
/* The vCPU loop's park hook (struct vcpu_exits.park, ctx = p). */
void snap_pause_park(void *ctx, struct vcpu *v);

#endif
