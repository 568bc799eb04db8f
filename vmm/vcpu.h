/* SPDX-License-Identifier: MIT */
/*
 * vCPUs: one thread each running KVM_RUN, and the exit dispatch.  The loop
 * sees the machine only through struct vcpu_exits: the two buses it hands
 * port I/O and MMIO to, the handlers registered for MSR, emulation-failure
 * and debug exits (and one that sees every exit first), the statistics it
 * counts exits in, and a stop callback.
 * It knows no device and no VM internals.
 */
#ifndef MINIVMM_VCPU_H
#define MINIVMM_VCPU_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bus;
struct stats;
struct vcpu;
struct kvm_run;

/* A handler for one kind of exit.  Returns true if the vCPU may re-enter
 * the guest (the exit was handled); false ends the run as a failure. */
struct vcpu_hook {
	bool (*fn)(void *ctx, struct vcpu *v);
	void *ctx;
};

struct vcpu_exits {
	struct bus *pio;
	struct bus *mmio;
	struct stats *stats;
	struct vcpu_hook msr;		/* fills run->msr; unset: #GP */
	struct vcpu_hook internal_error; /* KVM_EXIT_INTERNAL_ERROR */
	struct vcpu_hook debug;		/* KVM_EXIT_DEBUG */
	struct vcpu_hook exit_seen;	/* every exit, first; unset: none */
	/* Ends the run with status (first caller wins); with report set,
	 * the failure report for v is printed first, headed by why. */
	void (*stop)(void *ctx, struct vcpu *v, int status, bool report,
		     const char *why);
	void *stop_ctx;
	const volatile bool *stopping;
	/* Parking (snapshots): while *pausing is set (NULL: never), a vCPU
	 * completes the exit it handled last, so its state is consistent,
	 * and calls park, which returns when the VM goes on. */
	const volatile bool *pausing;
	void (*park)(void *ctx, struct vcpu *v);
	void *park_ctx;
};

struct vcpu {
	unsigned int id;
	int fd;
	struct kvm_run *run;
	size_t run_size;
	const struct vcpu_exits *exits;
	pthread_t thread;
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
