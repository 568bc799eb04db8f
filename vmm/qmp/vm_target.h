/* SPDX-License-Identifier: MIT */
/*
 * The QMP target (target.h) over the running VM: QMP's own hold on the
 * vCPU pause (stop/cont), the ACPI power button, NMIs through the local
 * APICs, snapshots, statistics, the MSR policy's flags, and how a run
 * QMP ended should be reported (the SHUTDOWN reason).
 */
#ifndef MINIVMM_QMP_VM_TARGET_H
#define MINIVMM_QMP_VM_TARGET_H

#include <stdbool.h>

#include "vmm/qmp/target.h"

struct vm;

struct qmp_vm {
	struct vm *vm;
	bool paused;		/* QMP holds the pause (stop) */
	const char *reason;	/* set when QMP ended the run */
	/* Sends an event to every client (the server). */
	void (*broadcast)(void *ctx, const char *name, struct cJSON *data);
	void *bctx;
};

extern const struct qmp_target_ops qmp_vm_ops;

/* At the end of the run: lets go of QMP's hold, if any. */
void qmp_vm_release(struct qmp_vm *q);

#endif
