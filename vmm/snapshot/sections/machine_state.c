// SPDX-License-Identifier: MIT
/* irqchip, PIT and kvmclock sections (machine_state.h).  Payloads are the
 * KVM structures as KVM defines them. */
#include "vmm/snapshot/sections/machine_state.h"
#include "vmm/snapshot/registry.h"

#include <errno.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#define NCHIPS	3	/* KVM_IRQCHIP_PIC_MASTER, _SLAVE, _IOAPIC */

static int fd_of(void *ctx)
{
	return *(const int *)ctx;
}

static int sys_fail(const char *what)
{
	fprintf(stderr, "minivmm: snapshot: %s: %s\n", what, strerror(errno));
	return -1;
}

static int load_fail(char *err, size_t len, const char *what)
{
	snprintf(err, len, "KVM refused the %s state: %s", what,
		 strerror(errno));
	return -1;
}

static int irqchip_save(void *ctx, struct snap_buf *out)
{
	for (uint32_t i = 0; i < NCHIPS; i++) {
		struct kvm_irqchip c = { .chip_id = i };

		if (ioctl(fd_of(ctx), KVM_GET_IRQCHIP, &c) < 0)
			return sys_fail("KVM_GET_IRQCHIP");
		snap_put(out, &c, sizeof(c));
	}
	return 0;
}

static int irqchip_load(void *ctx, const uint8_t *data, size_t len,
			char *err, size_t errlen)
{
	struct kvm_irqchip c;

	if (len != NCHIPS * sizeof(c)) {
		snprintf(err, errlen, "irqchip section is malformed");
		return -1;
	}
	for (uint32_t i = 0; i < NCHIPS; i++) {
		memcpy(&c, data + i * sizeof(c), sizeof(c));
		if (c.chip_id != i) {
			snprintf(err, errlen, "irqchip section is malformed");
			return -1;
		}
		if (ioctl(fd_of(ctx), KVM_SET_IRQCHIP, &c) < 0)
			return load_fail(err, errlen, "irqchip");
	}
	return 0;
}

static int pit_save(void *ctx, struct snap_buf *out)
{
	struct kvm_pit_state2 p;

	if (ioctl(fd_of(ctx), KVM_GET_PIT2, &p) < 0)
		return sys_fail("KVM_GET_PIT2");
	snap_put(out, &p, sizeof(p));
	return 0;
}

static int pit_load(void *ctx, const uint8_t *data, size_t len, char *err,
		    size_t errlen)
{
	struct kvm_pit_state2 p;

	if (len != sizeof(p)) {
		snprintf(err, errlen, "PIT section is malformed");
		return -1;
	}
	memcpy(&p, data, sizeof(p));
	if (ioctl(fd_of(ctx), KVM_SET_PIT2, &p) < 0)
		return load_fail(err, errlen, "PIT");
	return 0;
}

static int clock_save(void *ctx, struct snap_buf *out)
{
	struct kvm_clock_data c = { 0 };

	if (ioctl(fd_of(ctx), KVM_GET_CLOCK, &c) < 0)
		return sys_fail("KVM_GET_CLOCK");
	snap_put_u64(out, c.clock);
	return 0;
}

/* Only the clock value: the guest sees kvmclock go on from it.  (With
 * KVM_CLOCK_REALTIME it would jump by the wall time since the snapshot.) */
static int clock_load(void *ctx, const uint8_t *data, size_t len, char *err,
		      size_t errlen)
{
	struct kvm_clock_data c = { 0 };

	if (len != 8) {
		snprintf(err, errlen, "kvmclock section is malformed");
		return -1;
	}
	memcpy(&c.clock, data, 8);
	if (ioctl(fd_of(ctx), KVM_SET_CLOCK, &c) < 0)
		return load_fail(err, errlen, "kvmclock");
	return 0;
}

int snap_machine_register(struct snap_registry *r, const int *vm_fd)
{
	const struct snap_state_ops ops[] = {
		{ SNAP_SEC_IRQCHIP, 0, SNAP_PHASE_MACHINE, irqchip_save,
		  irqchip_load, (void *)vm_fd },
		{ SNAP_SEC_PIT, 0, SNAP_PHASE_MACHINE, pit_save, pit_load,
		  (void *)vm_fd },
		{ SNAP_SEC_CLOCK, 0, SNAP_PHASE_CLOCK, clock_save, clock_load,
		  (void *)vm_fd },
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (snap_add_state(r, &ops[i]) < 0)
			return -1;
	return 0;
}
