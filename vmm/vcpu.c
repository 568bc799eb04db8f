// SPDX-License-Identifier: MIT
#include "vmm/vcpu.h"
#include "vmm/bus.h"
#include "vmm/run/exit_status.h"
#include "vmm/run/stats.h"

#include <errno.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

static __thread struct vcpu *self;

struct vcpu *vcpu_self(void)
{
	return self;
}

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

int vcpu_create(int vm_fd, size_t run_size, unsigned int id,
		const struct vcpu_exits *exits, struct vcpu *v)
{
	memset(v, 0, sizeof(*v));
	v->id = id;
	v->exits = exits;
	v->run_size = run_size;
	v->fd = ioctl(vm_fd, KVM_CREATE_VCPU, id);
	if (v->fd < 0) {
		fprintf(stderr, "minivmm: error: KVM_CREATE_VCPU %u: %s\n", id,
			strerror(errno));
		return -1;
	}
	v->run = mmap(NULL, run_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      v->fd, 0);
	if (v->run == MAP_FAILED) {
		v->run = NULL;
		return -1;
	}
	return 0;
}

static void stop(struct vcpu *v, int status, bool report, const char *why)
{
	v->exits->stop(v->exits->stop_ctx, v, status, report, why);
}

/* Runs a registered handler; an unregistered one fails the run. */
static bool hook(struct vcpu *v, const struct vcpu_hook *h)
{
	return h->fn && h->fn(h->ctx, v);
}

static void handle_io(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	uint8_t *data = (uint8_t *)run + run->io.data_offset;
	bool wr = run->io.direction == KVM_EXIT_IO_OUT;

	/* String I/O (rep outsb/insb) arrives as count items. */
	for (uint32_t i = 0; i < run->io.count; i++)
		bus_access(v->exits->pio, run->io.port, data + i * run->io.size,
			   run->io.size, wr);
}

static void handle_mmio(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	uint32_t len = run->mmio.len;

	if (len > sizeof(run->mmio.data))
		len = sizeof(run->mmio.data);
	bus_access(v->exits->mmio, run->mmio.phys_addr, run->mmio.data, len,
		   run->mmio.is_write);
}

static void handle_msr(struct vcpu *v)
{
	if (!hook(v, &v->exits->msr))
		v->run->msr.error = 1;	/* fail safe: #GP */
}

static void handle_system_event(struct vcpu *v)
{
	char why[64];

	switch (v->run->system_event.type) {
	case KVM_SYSTEM_EVENT_SHUTDOWN:
		stop(v, EXIT_POWEROFF, false, "guest powered off");
		break;
	case KVM_SYSTEM_EVENT_RESET:
		stop(v, EXIT_GUEST_RESET, false, "guest requested a reset");
		break;
	default:
		snprintf(why, sizeof(why), "vCPU %u: unexpected system event "
			 "%u", v->id, v->run->system_event.type);
		stop(v, EXIT_VMM_ERROR, false, why);
	}
}

/* Returns false when this vCPU must stop. */
static bool dispatch(struct vcpu *v)
{
	struct kvm_run *run = v->run;

	stats_count_exit(v->exits->stats, run->exit_reason);
	if (v->exits->exit_seen.fn && !hook(v, &v->exits->exit_seen)) {
		stop(v, EXIT_VMM_ERROR, true, "exit hook failed");
		return false;
	}
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
		stop(v, EXIT_TRIPLE_FAULT, true,
		     "triple fault (KVM_EXIT_SHUTDOWN)");
		return false;
	case KVM_EXIT_SYSTEM_EVENT:
		handle_system_event(v);
		return false;
	case KVM_EXIT_INTERNAL_ERROR:
		if (hook(v, &v->exits->internal_error))
			return true;
		stop(v, EXIT_EMULATION, true, "KVM internal error");
		return false;
	case KVM_EXIT_DEBUG:
		if (hook(v, &v->exits->debug))
			return true;
		stop(v, EXIT_VMM_ERROR, true, "unexpected debug exit");
		return false;
	case KVM_EXIT_FAIL_ENTRY:
		stop(v, EXIT_EMULATION, true, "VM entry failed");
		return false;
	default:
		stop(v, EXIT_VMM_ERROR, true, "unhandled KVM exit");
		return false;
	}
}

/*
 * KVM finishes an I/O, MMIO or MSR exit only when KVM_RUN is entered again
 * (api.rst); until then the registers do not reflect it.  With
 * immediate_exit set, KVM_RUN finishes it and returns EINTR before running
 * the guest (a string I/O may first exit once more: handle that too).
 */
static bool complete_pending(struct vcpu *v)
{
	v->run->immediate_exit = 1;
	while (ioctl(v->fd, KVM_RUN, 0) == 0)
		if (!dispatch(v))
			return false;
	return errno == EINTR || errno == EAGAIN;
}

static bool park(struct vcpu *v)
{
	if (!complete_pending(v)) {
		stop(v, EXIT_VMM_ERROR, false, "cannot complete an exit "
		     "before parking for a snapshot");
		return false;
	}
	v->exits->park(v->exits->park_ctx, v);
	/* Cleared before the loop looks at stopping again, so a stop's kick
	 * (which sets it) is never lost. */
	__atomic_store_n(&v->run->immediate_exit, 0, __ATOMIC_SEQ_CST);
	return true;
}

static void *vcpu_thread(void *arg)
{
	struct vcpu *v = arg;
	sigset_t set;

	self = v;
	sigemptyset(&set);
	sigaddset(&set, VCPU_KICK_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	while (!*v->exits->stopping) {
		if (v->exits->pausing && *v->exits->pausing) {
			if (!park(v))
				break;
			continue;
		}
		if (ioctl(v->fd, KVM_RUN, 0) < 0) {
			char why[96];

			/* EINTR: kicked; EAGAIN: an AP woken by INIT/SIPI. */
			if (errno == EINTR || errno == EAGAIN)
				continue;
			snprintf(why, sizeof(why), "vCPU %u: KVM_RUN: %s",
				 v->id, strerror(errno));
			stop(v, EXIT_VMM_ERROR, false, why);
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
		munmap(v->run, v->run_size);
	if (v->fd >= 0)
		close(v->fd);
	v->run = NULL;
	v->fd = -1;
}
