// SPDX-License-Identifier: MIT
/* How a run ends: the first vm_stop() wins, wakes the main thread and
 * kicks every vCPU out of KVM_RUN. */
#include "vmm/vm.h"
#include "vmm/run/report.h"
#include "vmm/vcpu.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

void vm_stop(struct vm *vm, int status, const char *fmt, ...)
{
	uint64_t one = 1;
	va_list ap;
	bool first;

	pthread_mutex_lock(&vm->stop_lock);
	first = !vm->stopping;
	if (first) {
		vm->stopping = true;
		vm->exit_status = status;
	}
	pthread_mutex_unlock(&vm->stop_lock);
	if (!first)
		return;
	console_flush(&vm->console);
	if (fmt) {
		va_start(ap, fmt);
		fputs("minivmm: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		va_end(ap);
	}
	timing_event(&vm->timing, "exit");
	for (unsigned int i = 0; i < vm->ncpus; i++)
		vcpu_kick(&vm->vcpus[i]);
	if (write(vm->stop_fd, &one, sizeof(one)) < 0)
		perror("minivmm: eventfd");
}


void vm_stop_from_vcpu(void *ctx, struct vcpu *v, int status, bool report,
		       const char *why)
{
	struct vm *vm = ctx;

	if (!report) {
		vm_stop(vm, status, "%s", why);
		return;
	}
	if (vm->stopping)
		return;		/* the run already ends: one report only */
	console_flush(&vm->console);
	vcpu_report_failure(v, &vm->mem, why);
	vm_stop(vm, status, NULL);
}

void vm_event(struct vm *vm, const char *name, const char *data)
{
	if (vm->events.emit)
		vm->events.emit(vm->events.ctx, name, data);
}
