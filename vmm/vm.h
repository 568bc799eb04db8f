/* SPDX-License-Identifier: MIT */
/*
 * The virtual machine: owns the KVM objects, guest memory, the I/O buses,
 * the devices, the vCPUs, and how a run ends.  vm_create() assembles the
 * machine from a config in a visible order; vm_run() runs it to the end and
 * returns the exit status.
 */
#ifndef MINIVMM_VM_H
#define MINIVMM_VM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "devices/acpi_pm.h"
#include "devices/i8042_reset.h"
#include "devices/test_exit.h"
#include "vmm/bus.h"
#include "vmm/cli.h"
#include "vmm/console.h"
#include "vmm/kvm.h"
#include "vmm/boot/loader.h"
#include "vmm/memory.h"
#include "vmm/stats.h"
#include "vmm/timing.h"

struct vcpu;
struct pci_vm;
struct uart;
struct kvm_run;

/* Handles a KVM_EXIT_X86_RDMSR/WRMSR exit (fills run->msr); registered by
 * the MSR policy.  Without one, every MSR exit gets #GP. */
struct msr_exit_handler {
	void (*handle)(void *ctx, struct vcpu *vcpu, struct kvm_run *run);
	void *ctx;
};

struct vm {
	const struct vmm_config *cfg;
	struct kvm kvm;
	struct gmem mem;
	struct bus pio;
	struct bus mmio;
	struct stats stats;
	struct timing timing;
	struct console console;
	struct uart *uart;
	struct debug_port exit_port;
	struct debug_port progress_port;
	struct acpi_pm acpi_pm;
	struct i8042_reset reset_port;
	struct msr_exit_handler msr;
	void *msr_state;	/* msr/vm.c */
	struct pci_vm *pci;	/* pci_vm.c */
	struct payload payload;
	struct rom rom;
	struct vcpu *vcpus;
	unsigned int ncpus;

	pthread_mutex_t stop_lock;
	volatile bool stopping;
	int exit_status;
	int stop_fd;		/* eventfd: the main loop wakes on a stop */
};

/* Builds the machine.  Returns NULL after printing why; *status tells the
 * exit status to use (EXIT_USAGE for bad input, EXIT_VMM_ERROR else). */
struct vm *vm_create(const struct vmm_config *cfg, int *status);
/* Runs until the guest or the user ends the run; returns the exit status. */
int vm_run(struct vm *vm);
void vm_destroy(struct vm *vm);

/* Ends the run with status; the first caller wins.  Prints the message
 * (printf-style, may be NULL) on stderr.  Safe from any vCPU thread. */
void vm_stop(struct vm *vm, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
