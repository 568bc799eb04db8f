/* SPDX-License-Identifier: MIT */
/*
 * vCPUs: creation with their CPUID, one thread each running KVM_RUN, and
 * the exit dispatch that hands port I/O and MMIO to the buses and MSR exits
 * to the registered handler.  The loop knows no device.
 */
#ifndef MINIVMM_VCPU_H
#define MINIVMM_VCPU_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct vm;
struct kvm_run;

struct vcpu {
	struct vm *vm;
	unsigned int id;
	int fd;
	struct kvm_run *run;
	pthread_t thread;
	bool started;
};

int vcpu_create(struct vm *vm, unsigned int id, struct vcpu *v);
int vcpu_start(struct vcpu *v);
/* Makes a running KVM_RUN return (immediate_exit + signal). */
void vcpu_kick(struct vcpu *v);
void vcpu_join(struct vcpu *v);
void vcpu_destroy(struct vcpu *v);

/* The signal used for kicks; blocked everywhere but in vCPU threads. */
#define VCPU_KICK_SIGNAL	SIGUSR1
void vcpu_install_kick_handler(void);

/* CPUID for vCPU id (cpuid.c): KVM's supported set, adjusted. */
int cpuid_setup(struct vm *vm, struct vcpu *v);

/* Prints the failure report: RIP, mode, control registers and the
 * instruction bytes at RIP, disassembled (report.c). */
void vcpu_report_failure(struct vcpu *v, const char *what);

#endif
