// SPDX-License-Identifier: MIT
/* The QMP target over the running VM (vm_target.h). */
#include "vmm/qmp/vm_target.h"
#include "vmm/msr/vm.h"
#include "vmm/run/exit_status.h"
#include "vmm/snapshot/snapshot.h"
#include "vmm/vm.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

/* An MSI in the local APICs' window with delivery mode NMI (100b),
 * physical destination: the vCPU's APIC id (= its index). */
#define MSI_ADDR_BASE	0xfee00000u
#define MSI_DEST_SHIFT	12
#define MSI_DATA_NMI	(4u << 8)

static enum qmp_run_state state(void *ctx)
{
	struct qmp_vm *q = ctx;

	if (q->vm->stopping)
		return QMP_SHUTDOWN;
	if (q->paused)
		return QMP_PAUSED;
	return vm_pause_holds(&q->vm->pause) ? QMP_DEBUG : QMP_RUNNING;
}

static int stop(void *ctx, char *err, size_t len)
{
	struct qmp_vm *q = ctx;

	if (q->paused)
		return 0;
	vm_pause_hold(&q->vm->pause);
	if (vm_pause_wait(&q->vm->pause) < 0) {
		vm_pause_release(&q->vm->pause);
		snprintf(err, len, "the run is ending");
		return -1;
	}
	q->paused = true;
	return 1;
}

static int cont(void *ctx, char *err, size_t len)
{
	struct qmp_vm *q = ctx;

	(void)err, (void)len;
	if (!q->paused)
		return 0;
	q->paused = false;
	vm_pause_release(&q->vm->pause);
	return 1;
}

void qmp_vm_release(struct qmp_vm *q)
{
	char err[8];

	cont(q, err, sizeof(err));
}

static int powerdown(void *ctx, char *err, size_t len)
{
	struct qmp_vm *q = ctx;

	(void)err, (void)len;
	if (!acpi_pm_power_button(&q->vm->acpi_pm))
		fprintf(stderr, "minivmm: qmp: power button pressed; the "
			"guest has not enabled its event (PM1_EN.PWRBTN_EN): "
			"it stays pending\n");
	return 0;
}

static int reset(void *ctx, char *err, size_t len)
{
	struct qmp_vm *q = ctx;

	(void)err, (void)len;
	q->reason = "host-qmp-system-reset";
	vm_stop(q->vm, EXIT_GUEST_RESET, "reset by QMP system_reset (minivmm "
		"ends the run: it does not reboot in place)");
	return 0;
}

static int quit(void *ctx, char *err, size_t len)
{
	struct qmp_vm *q = ctx;

	(void)err, (void)len;
	q->reason = "host-qmp-quit";
	vm_stop(q->vm, EXIT_USER_QUIT, "quit by QMP");
	return 0;
}

/* Through the APICs as an MSI: a VM ioctl, so no vCPU needs to leave
 * KVM_RUN (a vCPU ioctl such as KVM_NMI would wait for it). */
static int nmi(void *ctx, char *err, size_t len)
{
	struct qmp_vm *q = ctx;

	for (unsigned int i = 0; i < q->vm->ncpus; i++) {
		struct kvm_msi m = {
			.address_lo = MSI_ADDR_BASE | i << MSI_DEST_SHIFT,
			.data = MSI_DATA_NMI,
		};

		if (ioctl(q->vm->kvm.vm_fd, KVM_SIGNAL_MSI, &m) < 0) {
			snprintf(err, len, "KVM_SIGNAL_MSI (NMI to vCPU %u): "
				 "%s", i, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static unsigned int ncpus(void *ctx)
{
	struct qmp_vm *q = ctx;

	return q->vm->ncpus;
}

static long cpu_thread(void *ctx, unsigned int i)
{
	struct qmp_vm *q = ctx;

	if (i >= q->vm->ncpus)
		return 0;
	return __atomic_load_n(&q->vm->vcpus[i].tid, __ATOMIC_RELAXED);
}

static int snapshot(void *ctx, const char *file, bool go_on, char *err,
		    size_t len)
{
	struct qmp_vm *q = ctx;
	int rc = snapshot_take_file(q->vm, file, go_on, err, len);

	/* The run then ends at QMP's word: SHUTDOWN says so. */
	if (!rc && !go_on)
		q->reason = "host-qmp-quit";
	return rc;
}

/* Read with the vCPUs parked: the reporters walk tables the exit paths
 * grow.  The run goes on, so no exit status yet (null). */
static cJSON *stats(void *ctx, char *err, size_t len)
{
	struct qmp_vm *q = ctx;
	cJSON *root;

	vm_pause_hold(&q->vm->pause);
	if (vm_pause_wait(&q->vm->pause) < 0) {
		vm_pause_release(&q->vm->pause);
		snprintf(err, len, "the run is ending");
		return NULL;
	}
	root = stats_build_json(&q->vm->stats, 0);
	vm_pause_release(&q->vm->pause);
	if (!root) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	cJSON_ReplaceItemInObjectCaseSensitive(root, "exit_status",
					       cJSON_CreateNull());
	return root;
}

/* The policy table and the filter change with the vCPUs parked. */
static int msr_flags(void *ctx, int log, int count, bool *log_now,
		     bool *count_now, char *err, size_t len)
{
	struct qmp_vm *q = ctx;
	int rc;

	if (!q->vm->msr_state) {
		snprintf(err, len, "no MSR policy in this run");
		return -1;
	}
	vm_pause_hold(&q->vm->pause);
	if (vm_pause_wait(&q->vm->pause) < 0) {
		vm_pause_release(&q->vm->pause);
		snprintf(err, len, "the run is ending");
		return -1;
	}
	rc = msr_vm_set_flags(q->vm, log, count, log_now, count_now, err,
			      len);
	vm_pause_release(&q->vm->pause);
	return rc;
}

static void event(void *ctx, const char *name, cJSON *data)
{
	struct qmp_vm *q = ctx;

	q->broadcast(q->bctx, name, data);
}

const struct qmp_target_ops qmp_vm_ops = {
	.state = state, .stop = stop, .cont = cont, .powerdown = powerdown,
	.reset = reset, .quit = quit, .nmi = nmi, .ncpus = ncpus,
	.cpu_thread = cpu_thread, .snapshot = snapshot, .stats = stats,
	.msr_flags = msr_flags, .event = event,
};
