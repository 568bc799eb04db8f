/* SPDX-License-Identifier: MIT */
/*
 * The virtual machine's state: the KVM objects, guest memory, the I/O
 * buses, the devices, the vCPUs and what their loops may call
 * (struct vcpu_exits), and how a run ends (vm_stop).  Assembly is in
 * machine.h, the main thread's run in run.h; the parts that plug into the
 * VM (msr/vm.c, pci_vm.c) see this header, the vCPU loop does not.
 */
#ifndef MINIVMM_VM_H
#define MINIVMM_VM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "devices/acpi_pm.h"
#include "devices/i8042_reset.h"
#include "devices/test/test_exit.h"
#include "vmm/bus.h"
#include "vmm/coalesced.h"
#include "vmm/cli/cli.h"
#include "vmm/console/console.h"
#include "vmm/kvm.h"
#include "vmm/machine/gsi.h"
#include "vmm/boot/loader.h"
#include "vmm/memory.h"
#include "vmm/msr/observer.h"
#include "vmm/run/pause.h"
#include "vmm/run/stats.h"
#include "vmm/run/timing.h"
#include "vmm/vcpu.h"
#include "vmm/host/quirks.h"
#include "vmm/snapshot/registry.h"

struct host;
struct pci_vm;
struct virtio_vm;
struct platform;
struct snapshot;
struct gdb_stub;
struct qmp_server;
struct uart;

/* Where run events go (the QMP socket's clients): name is a QMP event
 * name, data a JSON object's text or NULL.  emit NULL: nobody listens.
 * Called from any thread. */
struct vm_event_sink {
	void (*emit)(void *ctx, const char *name, const char *data);
	void *ctx;
};

struct vm {
	const struct vmm_config *cfg;
	struct host *host;	/* the profile main() probed (host/host.h) */
	struct kvm kvm;
	struct gmem mem;
	struct bus pio;
	struct bus mmio;
	struct coalesced coalesced;	/* port writes KVM queues */
	struct gsi gsi;		/* interrupt routing (machine/gsi.c) */
	struct stats stats;
	struct timing timing;
	struct console console;
	struct console_marks console_marks;	/* with --timing */
	struct uart *uart;
	struct uart *uart2;		/* COM2; NULL: none */
	struct debug_port exit_port;
	struct debug_port progress_port;
	struct acpi_pm acpi_pm;
	struct i8042_reset reset_port;
	struct vcpu_exits exits;	/* what the vCPU loops dispatch to */
	struct quirk_ctx quirk_ctx;	/* for quirks acting in exits */
	void *msr_state;	/* msr/vm.c */
	struct msr_observer msr_observer;	/* set by pvm/syscall.c */
	void *syscall_state;	/* pvm/syscall.c */
	struct pci_vm *pci;	/* pci_vm.c */
	struct virtio_vm *virtio;	/* virtio_vm.c; NULL: no devices */
	struct platform *platform;	/* platform.c */
	struct snap_registry snap_reg;	/* what snapshots hold */
	struct snapshot *snap;	/* snapshot/snapshot.c */
	struct gdb_stub *gdb;	/* gdb/server.c; NULL: no --gdb */
	struct qmp_server *qmp;	/* qmp/server.c; NULL: no --qmp */
	struct vm_event_sink events;	/* who hears run events (QMP) */
	struct payload payload;
	struct rom rom;
	struct vcpu *vcpus;
	unsigned int ncpus;
	struct vm_pause pause;	/* parks the vCPUs (run/pause.h) */
	bool pause_ready;

	pthread_mutex_t stop_lock;
	volatile bool stopping;
	int exit_status;
	int stop_fd;		/* eventfd: the main loop wakes on a stop */
};

/* Ends the run with status; the first caller wins.  Prints the message
 * (printf-style, may be NULL) on stderr.  Safe from any vCPU thread. */
void vm_stop(struct vm *vm, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Tells the event sink (if any) that event name happened. */
void vm_event(struct vm *vm, const char *name, const char *data);

/* The vCPU loops' stop callback (struct vcpu_exits): the failure report
 * for v when asked, then vm_stop. */
void vm_stop_from_vcpu(void *vm, struct vcpu *v, int status, bool report,
		       const char *why);

#endif
