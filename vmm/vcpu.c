// SPDX-License-Identifier: MIT
#include "vmm/vcpu.h"
#include "vmm/pvm/emulate.h"
#include "vmm/exit_status.h"
#include "vmm/vm.h"

#include <errno.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

static void kick_handler(int sig)
{
	(void)sig;	/* only interrupts KVM_RUN */
}

void vcpu_install_kick_handler(void)
{
	struct sigaction sa = { .sa_handler = kick_handler };

	sigemptyset(&sa.sa_mask);
	sigaction(VCPU_KICK_SIGNAL, &sa, NULL);	/* no SA_RESTART */
}

int vcpu_create(struct vm *vm, unsigned int id, struct vcpu *v)
{
	memset(v, 0, sizeof(*v));
	v->vm = vm;
	v->id = id;
	v->fd = ioctl(vm->kvm.vm_fd, KVM_CREATE_VCPU, id);
	if (v->fd < 0) {
		fprintf(stderr, "minivmm: error: KVM_CREATE_VCPU %u: %s\n", id,
			strerror(errno));
		return -1;
	}
	v->run = mmap(NULL, (size_t)vm->kvm.vcpu_mmap_size,
		      PROT_READ | PROT_WRITE, MAP_SHARED, v->fd, 0);
	if (v->run == MAP_FAILED) {
		v->run = NULL;
		return -1;
	}
	return cpuid_setup(vm, v);
}

static void handle_io(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	uint8_t *data = (uint8_t *)run + run->io.data_offset;
	bool wr = run->io.direction == KVM_EXIT_IO_OUT;

	/* String I/O (rep outsb/insb) arrives as count items. */
	for (uint32_t i = 0; i < run->io.count; i++)
		bus_access(&v->vm->pio, run->io.port, data + i * run->io.size,
			   run->io.size, wr);
}

static void handle_mmio(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	uint32_t len = run->mmio.len;

	if (len > sizeof(run->mmio.data))
		len = sizeof(run->mmio.data);
	bus_access(&v->vm->mmio, run->mmio.phys_addr, run->mmio.data, len,
		   run->mmio.is_write);
}

static void handle_msr(struct vcpu *v)
{
	struct msr_exit_handler *h = &v->vm->msr;

	if (h->handle) {
		h->handle(h->ctx, v, v->run);
		return;
	}
	v->run->msr.error = 1;	/* fail safe: #GP */
}

static void handle_system_event(struct vcpu *v)
{
	switch (v->run->system_event.type) {
	case KVM_SYSTEM_EVENT_SHUTDOWN:
		vm_stop(v->vm, EXIT_POWEROFF, "guest powered off");
		break;
	case KVM_SYSTEM_EVENT_RESET:
		vm_stop(v->vm, EXIT_GUEST_RESET, "guest requested a reset");
		break;
	default:
		vm_stop(v->vm, EXIT_VMM_ERROR, "vCPU %u: unexpected system "
			"event %u", v->id, v->run->system_event.type);
	}
}

/* Returns false when this vCPU must stop. */
static bool dispatch(struct vcpu *v)
{
	struct kvm_run *run = v->run;

	stats_count_exit(&v->vm->stats, run->exit_reason);
	switch (run->exit_reason) {
	case KVM_EXIT_IO:
		handle_io(v);
		return true;
	case KVM_EXIT_MMIO:
		handle_mmio(v);
		return true;
	case KVM_EXIT_X86_RDMSR:
	case KVM_EXIT_X86_WRMSR:
		handle_msr(v);
		return true;
	case KVM_EXIT_INTR:
		return true;
	case KVM_EXIT_SHUTDOWN:
		vcpu_report_failure(v, "triple fault (KVM_EXIT_SHUTDOWN)");
		vm_stop(v->vm, EXIT_TRIPLE_FAULT, NULL);
		return false;
	case KVM_EXIT_SYSTEM_EVENT:
		handle_system_event(v);
		return false;
	case KVM_EXIT_INTERNAL_ERROR:
		if (emulate_failure(v))
			return true;
		vcpu_report_failure(v, "KVM internal error");
		vm_stop(v->vm, EXIT_EMULATION, NULL);
		return false;
	case KVM_EXIT_FAIL_ENTRY:
		vcpu_report_failure(v, "VM entry failed");
		vm_stop(v->vm, EXIT_EMULATION, NULL);
		return false;
	default:
		vcpu_report_failure(v, "unhandled KVM exit");
		vm_stop(v->vm, EXIT_VMM_ERROR, NULL);
		return false;
	}
}

static void *vcpu_thread(void *arg)
{
	struct vcpu *v = arg;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, VCPU_KICK_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	while (!v->vm->stopping) {
		if (ioctl(v->fd, KVM_RUN, 0) < 0) {
			/* EINTR: kicked; EAGAIN: an AP woken by INIT/SIPI. */
			if (errno == EINTR || errno == EAGAIN)
				continue;
			vm_stop(v->vm, EXIT_VMM_ERROR, "vCPU %u: KVM_RUN: %s",
				v->id, strerror(errno));
			break;
		}
		if (!dispatch(v))
			break;
	}
	return NULL;
}

int vcpu_start(struct vcpu *v)
{
	if (pthread_create(&v->thread, NULL, vcpu_thread, v))
		return -1;
	v->started = true;
	return 0;
}

void vcpu_kick(struct vcpu *v)
{
	if (!v->started || !v->run)
		return;
	v->run->immediate_exit = 1;
	pthread_kill(v->thread, VCPU_KICK_SIGNAL);
}

void vcpu_join(struct vcpu *v)
{
	if (v->started)
		pthread_join(v->thread, NULL);
	v->started = false;
}

void vcpu_destroy(struct vcpu *v)
{
	if (v->run)
		munmap(v->run, (size_t)v->vm->kvm.vcpu_mmap_size);
	if (v->fd >= 0)
		close(v->fd);
	v->run = NULL;
	v->fd = -1;
}
