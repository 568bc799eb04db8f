// SPDX-License-Identifier: MIT
#include "vmm/machine/suspend.h"
#include "firmware/lib/le.h"
#include "vmm/layout.h"
#include "vmm/machine/acpi_dump.h"
#include "vmm/run/exit_status.h"
#include "vmm/machine/platform.h"
#include "vmm/vm.h"

#include <linux/kvm.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#define FACS_VECTOR	12		/* u32 Firmware_Waking_Vector */
#define FACS_X_VECTOR	24		/* u64 X_Firmware_Waking_Vector */
#define FACS_MIN_LEN	32
#define MSI_DM_INIT	0x500u
#define POLL_NS		50000000ull	/* how often a sleeper checks for
					 * the end of the run */

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* An INIT IPI as a device would send it (an MSI with delivery mode INIT):
 * the in-kernel LAPIC resets the vCPU to wait for a SIPI. */
static void init_aps(struct vm *vm, unsigned int self)
{
	for (unsigned int i = 0; i < vm->ncpus; i++) {
		struct kvm_msi msi = {
			.address_lo = (uint32_t)LAYOUT_MSI_BASE | i << 12,
			.data = MSI_DM_INIT,
		};

		if (i != self)
			ioctl(vm->kvm.vm_fd, KVM_SIGNAL_MSI, &msi);
	}
}

/* Sleeps until host time t (0: forever), or until the run ends (false). */
static bool sleep_until(struct vm *vm, uint64_t t)
{
	while (!vm->stopping) {
		uint64_t now = realtime_ns(), d = POLL_NS;
		struct timespec ts;

		if (t && now >= t)
			return true;
		if (t && t - now < d)
			d = t - now;
		ts = (struct timespec){ (time_t)(d / 1000000000ull),
					(long)(d % 1000000000ull) };
		nanosleep(&ts, NULL);
	}
	return false;
}

static void segment(struct kvm_segment *s, uint16_t sel, uint64_t base,
		    bool flat32, uint8_t type)
{
	*s = (struct kvm_segment){
		.selector = sel, .base = base, .type = type, .present = 1,
		.s = 1, .limit = flat32 ? 0xffffffffu : 0xffffu,
		.db = flat32, .g = flat32,
	};
}

/* The boot vCPU as firmware leaves it at the waking vector. */
static int enter_vector(struct vcpu *v, uint64_t vec, bool flat32)
{
	struct kvm_regs r = { .rflags = 2 };
	struct kvm_sregs s;
	struct kvm_vcpu_events ev;
	uint16_t cs = flat32 ? 0x08 : (uint16_t)(vec >> 4);

	if (ioctl(v->fd, KVM_GET_SREGS, &s) < 0)
		return -1;
	segment(&s.cs, cs, flat32 ? 0 : (uint64_t)cs << 4, flat32, 0xb);
	segment(&s.ds, flat32 ? 0x10 : 0, 0, flat32, 0x3);
	s.es = s.fs = s.gs = s.ss = s.ds;
	s.tr = (struct kvm_segment){ .type = 0xb, .present = 1,
				     .limit = 0xffff };
	s.ldt = (struct kvm_segment){ .type = 0x2, .present = 1,
				      .limit = 0xffff };
	s.gdt = (struct kvm_dtable){ .limit = 0xffff };
	s.idt = (struct kvm_dtable){ .limit = 0x3ff };
	s.cr0 = flat32 ? 0x11 : 0x60000010;	/* PE|ET, or CD|NW|ET */
	s.cr2 = s.cr3 = s.cr4 = s.efer = 0;
	memset(s.interrupt_bitmap, 0, sizeof(s.interrupt_bitmap));
	r.rip = flat32 ? vec : (vec & 0xf);
	if (ioctl(v->fd, KVM_GET_VCPU_EVENTS, &ev) < 0)
		return -1;
	memset(&ev.exception, 0, sizeof(ev.exception));
	memset(&ev.interrupt, 0, sizeof(ev.interrupt));
	ev.nmi.injected = ev.nmi.pending = 0;
	ev.flags = 0;
	return ioctl(v->fd, KVM_SET_SREGS, &s) < 0 ||
	       ioctl(v->fd, KVM_SET_REGS, &r) < 0 ||
	       ioctl(v->fd, KVM_SET_VCPU_EVENTS, &ev) < 0 ? -1 : 0;
}

/* Reads the waking vector; false if the OS left none. */
static bool waking_vector(struct vm *vm, uint64_t *vec, bool *flat32)
{
	uint64_t facs = acpi_find_facs(&vm->mem);
	const uint8_t *f = facs ? gmem_ptr(&vm->mem, facs, FACS_MIN_LEN) :
			   NULL;
	uint32_t v32;
	uint64_t v64;

	if (!f)
		return false;
	v32 = le32_get(f + FACS_VECTOR);
	v64 = le64_get(f + FACS_X_VECTOR);
	*flat32 = v64 != 0 && v64 < (1ull << 32);
	*vec = *flat32 ? v64 : v32;
	return *vec != 0;
}

void suspend_to_ram(void *ctx)
{
	struct vm *vm = ctx;
	struct platform *p = vm->platform;
	struct vcpu *v = vcpu_self();
	bool by_rtc = acpi_pm_rtc_wake(&vm->acpi_pm), flat32;
	uint64_t wake = by_rtc ? rtc_next_alarm_ns(&p->rtc) : 0, vec;

	if (!v || v->id != 0) {
		vm_stop(vm, EXIT_VMM_ERROR, "S3 requested on vCPU %u: minivmm "
			"resumes only the boot vCPU", v ? v->id : 0);
		return;
	}
	init_aps(vm, v->id);
	if (!sleep_until(vm, wake))
		return;
	rtc_poll(&p->rtc);
	acpi_pm_woken(&vm->acpi_pm, by_rtc);
	if (!waking_vector(vm, &vec, &flat32)) {
		vm_stop(vm, EXIT_GUEST_RESET, "resume from S3 without a FACS "
			"waking vector: a reset");
		return;
	}
	if (enter_vector(v, vec, flat32) < 0)
		vm_stop(vm, EXIT_VMM_ERROR, "resume from S3: setting the boot "
			"vCPU's state failed");
}
