// SPDX-License-Identifier: MIT
#include "vmm/exit.h"
#include "vmm/bus.h"
#include "vmm/coalesced.h"
#include "vmm/run/exit_reason.h"
#include "vmm/run/exit_status.h"
#include "vmm/run/stats.h"

#include <linux/kvm.h>
#include <stdio.h>

/* One exit being dispatched. */
struct exit {
	const struct vcpu_exits *x;
	struct kvm_run *run;
	struct vcpu *v;
	unsigned int id;
};

static void stop(const struct exit *e, int status, bool report,
		 const char *why)
{
	e->x->stop(e->x->stop_ctx, e->v, status, report, why);
}

/* Runs a registered handler; an unregistered one fails the run. */
static bool hook(const struct exit *e, const struct vcpu_hook *h)
{
	return h->fn && h->fn(h->ctx, e->v);
}

static void handle_io(const struct exit *e)
{
	struct kvm_run *run = e->run;
	uint8_t *data = (uint8_t *)run + run->io.data_offset;
	bool wr = run->io.direction == KVM_EXIT_IO_OUT;

	/* String I/O (rep outsb/insb) arrives as count items. */
	for (uint32_t i = 0; i < run->io.count; i++)
		bus_access(e->x->pio, run->io.port, data + i * run->io.size,
			   run->io.size, wr);
}

static void handle_mmio(const struct exit *e)
{
	struct kvm_run *run = e->run;
	uint32_t len = run->mmio.len;

	if (len > sizeof(run->mmio.data))
		len = sizeof(run->mmio.data);
	bus_access(e->x->mmio, run->mmio.phys_addr, run->mmio.data, len,
		   run->mmio.is_write);
}

static void handle_msr(const struct exit *e)
{
	if (!hook(e, &e->x->msr))
		e->run->msr.error = 1;	/* fail safe: #GP */
}

static void handle_system_event(const struct exit *e)
{
	char why[64];

	switch (e->run->system_event.type) {
	case KVM_SYSTEM_EVENT_SHUTDOWN:
		stop(e, EXIT_POWEROFF, false, "guest powered off");
		break;
	case KVM_SYSTEM_EVENT_RESET:
		stop(e, EXIT_GUEST_RESET, false, "guest requested a reset");
		break;
	default:
		snprintf(why, sizeof(why), "vCPU %u: unexpected system event "
			 "%u", e->id, e->run->system_event.type);
		stop(e, EXIT_VMM_ERROR, false, why);
	}
}

/* An exit minivmm never asks for: named, so the report says which. */
static void unhandled(const struct exit *e)
{
	const char *name = exit_reason_name(e->run->exit_reason);
	char why[80];

	snprintf(why, sizeof(why), "unhandled KVM exit %u (%s)",
		 e->run->exit_reason, name ? name : "no name known");
	stop(e, EXIT_VMM_ERROR, true, why);
}

static bool dispatch(const struct exit *e)
{
	switch (e->run->exit_reason) {
	case KVM_EXIT_IO:
		handle_io(e);
		return true;
	case KVM_EXIT_MMIO:
		handle_mmio(e);
		return true;
	case KVM_EXIT_X86_RDMSR:
	case KVM_EXIT_X86_WRMSR:
		handle_msr(e);
		return true;
	case KVM_EXIT_INTR:
		return true;
	case KVM_EXIT_SHUTDOWN:
		stop(e, EXIT_TRIPLE_FAULT, true,
		     "triple fault (KVM_EXIT_SHUTDOWN)");
		return false;
	case KVM_EXIT_SYSTEM_EVENT:
		handle_system_event(e);
		return false;
	case KVM_EXIT_INTERNAL_ERROR:
		if (hook(e, &e->x->internal_error))
			return true;
		stop(e, EXIT_EMULATION, true, "KVM internal error");
		return false;
	case KVM_EXIT_DEBUG:
		if (hook(e, &e->x->debug))
			return true;
		stop(e, EXIT_VMM_ERROR, true, "unexpected debug exit");
		return false;
	case KVM_EXIT_FAIL_ENTRY:
		stop(e, EXIT_EMULATION, true, "VM entry failed");
		return false;
	default:
		unhandled(e);
		return false;
	}
}

bool exit_dispatch(const struct vcpu_exits *x, struct kvm_run *run,
		   struct vcpu *v, unsigned int id)
{
	struct exit e = { .x = x, .run = run, .v = v, .id = id };

	/* Writes KVM queued come before this exit (coalesced.h). */
	if (x->queued)
		coalesced_drain(x->queued);
	stats_count_exit(x->stats, id, run->exit_reason);
	if (x->exit_seen.fn && !hook(&e, &x->exit_seen)) {
		stop(&e, EXIT_VMM_ERROR, true, "exit hook failed");
		return false;
	}
	return dispatch(&e);
}
