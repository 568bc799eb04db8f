/* SPDX-License-Identifier: MIT */
/*
 * vCPUs: one thread each running KVM_RUN, handing each exit to the exit
 * dispatch (vmm/exit.h), completing pending exits before parking for a
 * snapshot, and kicks.  The loop sees the machine only through struct
 * vcpu_exits; it knows no device and no VM internals.
 */
#ifndef MINIVMM_VCPU_H
#define MINIVMM_VCPU_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/exit.h"

struct kvm_run;

struct vcpu {
	unsigned int id;
	int fd;
	struct kvm_run *run;
	size_t run_size;
	const struct vcpu_exits *exits;
	pthread_t thread;
	long tid;		/* its host thread id, once started */
	bool started;
};

int vcpu_create(int vm_fd, size_t run_size, unsigned int id,
		const struct vcpu_exits *exits, struct vcpu *v);
int vcpu_start(struct vcpu *v);
/* The vCPU whose thread calls this (a device handling its exit), or
 * NULL on other threads. */
struct vcpu *vcpu_self(void);
/* Makes a running KVM_RUN return (immediate_exit + signal). */
void vcpu_kick(struct vcpu *v);
void vcpu_join(struct vcpu *v);
void vcpu_destroy(struct vcpu *v);

/* The signal used for kicks; blocked everywhere but in vCPU threads. */
#define VCPU_KICK_SIGNAL	SIGUSR1
void vcpu_install_kick_handler(void);

#endif
