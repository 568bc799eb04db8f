/* SPDX-License-Identifier: MIT */
/*
 * The exit dispatch: what one KVM exit means, given the kvm_run the vCPU
 * left.  It sees the machine only through struct vcpu_exits: the two buses
 * it hands port I/O and MMIO to, the writes KVM queued without an exit
 * (applied first, vmm/coalesced.h), the handlers registered for MSR,
 * emulation-failure and debug exits (and one that sees every exit first),
 * the statistics it counts exits in, and a stop callback.  It knows no
 * device, no VM internals and no thread: the vCPU loop (vmm/vcpu.c) calls
 * it after each KVM_RUN, a unit test calls it over a kvm_run of its own.
 */
#ifndef MINIVMM_EXIT_H
#define MINIVMM_EXIT_H

#include <stdbool.h>

struct bus;
struct coalesced;
struct kvm_run;
struct stats;
struct vcpu;

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
	struct coalesced *queued;	/* drained first; NULL: none */
	struct vcpu_hook msr;		/* fills run->msr; unset: #GP */
	struct vcpu_hook internal_error; /* KVM_EXIT_INTERNAL_ERROR */
	struct vcpu_hook debug;		/* KVM_EXIT_DEBUG */
	struct vcpu_hook exit_seen;	/* every exit, first; unset: none */
	/* Ends the run with status (first caller wins); with report set,
	 * the failure report for v is printed first, headed by why. */
	void (*stop)(void *ctx, struct vcpu *v, int status, bool report,
		     const char *why);
	void *stop_ctx;
	/* For the vCPU loop, not the dispatch: the run is ending. */
	const volatile bool *stopping;
	/* Parking (run/pause.h), also the loop's: while *pausing is set
	 * (NULL: never), a vCPU completes the exit it handled last, so its
	 * state is consistent, and calls park, which returns when the vCPU
	 * may run again (the VM goes on, or it alone may run). */
	const volatile bool *pausing;
	void (*park)(void *ctx, struct vcpu *v);
	void *park_ctx;
};

/* Handles the exit run describes for vCPU v (number id, for messages;
 * v is only handed to the hooks and the stop callback).  Returns true
 * if the vCPU may re-enter the guest; false after calling x->stop. */
bool exit_dispatch(const struct vcpu_exits *x, struct kvm_run *run,
		   struct vcpu *v, unsigned int id);

#endif
