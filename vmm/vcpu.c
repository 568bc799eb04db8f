// SPDX-License-Identifier: MIT
#include "vmm/vcpu.h"
#include "vmm/exit.h"
#include "vmm/run/exit_status.h"

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

/* Returns false when this vCPU must stop. */
static bool dispatch(struct vcpu *v)
{
	return exit_dispatch(v->exits, v->run, v, v->id);
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
	__atomic_store_n(&v->tid, (long)gettid(), __ATOMIC_RELAXED);
	sigemptyset(&set);
	sigaddset(&set, VCPU_KICK_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	while (!*v->exits->stopping) {
		/* Parked until the VM goes on or this vCPU alone may run
		 * (a debugger's single step): then straight into KVM_RUN. */
		if (v->exits->pausing && *v->exits->pausing) {
			if (!park(v) || *v->exits->stopping)
				break;
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
