// SPDX-License-Identifier: MIT
/* The gdb target over the VM (target.h). */
#include "vmm/gdb/target.h"
#include "vmm/host/host.h"
#include "vmm/vm.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

static struct vcpu *vcpu_of(struct vm *vm, unsigned int tid)
{
	return tid < vm->ncpus ? &vm->vcpus[tid] : NULL;
}

static int get(void *ctx, unsigned int tid, struct gdb_kvm_state *s)
{
	struct vcpu *v = vcpu_of(ctx, tid);

	if (!v || ioctl(v->fd, KVM_GET_REGS, &s->regs) < 0 ||
	    ioctl(v->fd, KVM_GET_SREGS, &s->sregs) < 0 ||
	    ioctl(v->fd, KVM_GET_FPU, &s->fpu) < 0)
		return -1;
	return 0;
}

static int set(void *ctx, unsigned int tid, const struct gdb_kvm_state *s)
{
	struct vcpu *v = vcpu_of(ctx, tid);

	if (!v || ioctl(v->fd, KVM_SET_REGS, &s->regs) < 0 ||
	    ioctl(v->fd, KVM_SET_SREGS, &s->sregs) < 0 ||
	    ioctl(v->fd, KVM_SET_FPU, &s->fpu) < 0)
		return -1;
	return 0;
}

static int translate(void *ctx, unsigned int tid, uint64_t la, uint64_t *gpa)
{
	struct vcpu *v = vcpu_of(ctx, tid);
	struct kvm_translation t = { .linear_address = la };

	if (!v || ioctl(v->fd, KVM_TRANSLATE, &t) < 0 || !t.valid)
		return -1;
	*gpa = t.physical_address;
	return 0;
}

static int mem_read(void *ctx, uint64_t gpa, void *buf, size_t len)
{
	struct vm *vm = ctx;

	return gmem_debug_read(&vm->mem, gpa, buf, len);
}

static int mem_write(void *ctx, uint64_t gpa, const void *buf, size_t len)
{
	struct vm *vm = ctx;

	return gmem_debug_write(&vm->mem, gpa, buf, len);
}

/* On a host whose debug support covers ring 0 only, a step from ring 3
 * would run on unseen: refused with the reason. */
static const char *cannot_step(void *ctx, unsigned int tid)
{
	struct vm *vm = ctx;
	const char *limit = host_debug_limit(vm->host);
	struct gdb_kvm_state s;

	if (!limit)
		return NULL;
	if (get(vm, tid, &s) < 0)
		return "cannot read the vCPU's registers";
	if ((s.sregs.cs.selector & 3) != 3)
		return NULL;
	quirk_acted(&vm->host->log, QUIRK_DEBUG_RING0, 1);
	return limit;
}

void gdb_target_init(struct gdb_target *t, struct vm *vm)
{
	*t = (struct gdb_target){
		.nthreads = vm->ncpus,
		.ctx = vm,
		.get = get,
		.set = set,
		.translate = translate,
		.mem = { mem_read, mem_write, vm },
		.cannot_step = cannot_step,
		.notes = host_debug_limit(vm->host),
	};
}

int gdb_target_debug(struct vm *vm, const struct gdb_bkpts *b, int step_tid)
{
	int rc = 0;

	for (unsigned int i = 0; i < vm->ncpus; i++) {
		struct kvm_guest_debug dbg;

		gdb_bkpts_debug(b, (int)i == step_tid, &dbg);
		if (ioctl(vm->vcpus[i].fd, KVM_SET_GUEST_DEBUG, &dbg) < 0) {
			fprintf(stderr, "minivmm: gdb: KVM_SET_GUEST_DEBUG on "
				"vCPU %u: %s\n", i, strerror(errno));
			rc = -1;
		}
	}
	return rc;
}

void gdb_target_reinject(struct vm *vm, unsigned int tid, unsigned int vec)
{
	struct vcpu *v = vcpu_of(vm, tid);
	struct kvm_vcpu_events ev;

	if (!v || ioctl(v->fd, KVM_GET_VCPU_EVENTS, &ev) < 0)
		return;
	ev.exception.injected = 1;
	ev.exception.nr = (uint8_t)vec;
	ev.exception.has_error_code = 0;
	ev.flags = 0;
	ioctl(v->fd, KVM_SET_VCPU_EVENTS, &ev);
}
