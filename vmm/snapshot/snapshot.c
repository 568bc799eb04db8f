// SPDX-License-Identifier: MIT
/* Making a VM snapshot-able and taking snapshots (snapshot.h). */
#include "vmm/snapshot/snapshot.h"
#include "devices/test/snapctl.h"
#include "vmm/run/exit_status.h"
#include "vmm/layout.h"
#include "vmm/snapshot/config.h"
#include "vmm/snapshot/file.h"
#include "vmm/snapshot/sections/machine_state.h"
#include "vmm/snapshot/meta.h"
#include "vmm/snapshot/sections/vcpu_state.h"
#include "vmm/snapshot/sections/device_snap.h"
#include "vmm/vm.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

struct snapshot {
	struct snapctl ctl;
	uint8_t *ctl_page;
	struct snap_vcpus *vcpus;
	struct snap_buf config, meta;	/* encoded at set-up */
	int tmp_fd;			/* the next snapshot's temp file */
	char tmp[PATH_MAX];
	int req_fd;			/* eventfd: wakes the main thread */
	int pagemap_fd;			/* /proc/self/pagemap, or -1 */
	volatile bool requested;
	const char *why;
	size_t matched, marker_len;	/* console marker */
	bool await_output;		/* restored, --timing: the guest has
					 * not written to the console yet */
	uint32_t generation, taken;
	uint32_t xsave_size;
	bool meta_ok;			/* this KVM can save snapshots */
};

/* --- triggers ------------------------------------------------------------- */

void snapshot_request(struct vm *vm, const char *why)
{
	struct snapshot *s = vm->snap;
	uint64_t one = 1;

	if (!s || !vm->cfg->snapshot) {
		fprintf(stderr, "\r\nminivmm: no --snapshot FILE given: no "
			"snapshot taken\r\n");
		return;
	}
	if (__atomic_exchange_n(&s->requested, true, __ATOMIC_SEQ_CST))
		return;		/* one is on its way */
	s->why = why;
	vm_pause_hold(&vm->pause);	/* released by take() */
	if (write(s->req_fd, &one, sizeof(one)) < 0)
		perror("minivmm: eventfd");
}

/* The control page's REQUEST register (a vCPU thread). */
static void on_guest_request(void *ctx)
{
	struct vm *vm = ctx;

	if (vm->cfg->snapshot_at != SNAP_AT_PORT) {
		snapctl_set(&vm->snap->ctl, SNAPCTL_REG_STATUS,
			    SNAPCTL_NOT_ARMED);
		return;
	}
	snapshot_request(vm, "the guest asked");
}

/* Console output (a vCPU thread, or virtio-console's; under the console
 * lock): a restored guest's first output is a --timing milestone (its
 * software running again, e.g. a Linux shell), and the bytes are matched
 * against the marker. */
static void watch_console(void *ctx, const uint8_t *buf, size_t n)
{
	struct vm *vm = ctx;
	struct snapshot *s = vm->snap;
	const char *m = vm->cfg->snapshot_marker;

	if (n && __atomic_exchange_n(&s->await_output, false,
				     __ATOMIC_RELAXED))
		timing_event(&vm->timing, "first guest output after the "
			     "restore");
	for (size_t i = 0; m && i < n; i++) {
		/* Restart the match where it can still go on (markers are
		 * short: the quadratic fallback is fine). */
		while (s->matched && m[s->matched] != (char)buf[i]) {
			size_t k = s->matched - 1;

			while (k && memcmp(m, m + s->matched - k, k))
				k--;
			s->matched = k;
		}
		if (m[s->matched] == (char)buf[i])
			s->matched++;
		if (s->matched == s->marker_len) {
			s->matched = 0;
			snapshot_request(vm, "console marker");
		}
	}
}

/* --- taking ---------------------------------------------------------------- */

static int collect(struct vm *vm, struct snap_out *out, struct snap_buf *b,
		   uint32_t *n)
{
	struct snap_registry *r = &vm->snap_reg;
	uint32_t k = 0;

	for (size_t i = 0; i < r->nstate; i++) {
		snap_buf_init(&b[i]);
		if (r->state[i].save(r->state[i].ctx, &b[i]) < 0)
			return -1;
		if (b[i].failed) {
			fprintf(stderr, "minivmm: snapshot: out of memory\n");
			return -1;
		}
		out[k++] = (struct snap_out){ r->state[i].type,
					      r->state[i].instance, b[i].p,
					      b[i].len };
	}
	/* The ROM is a file-less private mapping too, but read-only: it is
	 * read whole (and small). */
	for (size_t i = 0; i < r->nmem; i++)
		out[k++] = (struct snap_out){ r->mem[i].type,
					      r->mem[i].instance,
					      r->mem[i].host, r->mem[i].size,
					      !r->mem[i].from_file &&
					      !r->mem[i].readonly };
	*n = k;
	return 0;
}

/* Writes the snapshot into fd (the temp file tmp), renamed to path;
 * closes fd and removes tmp on failure. */
static int write_snapshot(struct vm *vm, int fd, const char *tmp,
			  const char *path, struct snap_write_stats *st)
{
	struct snapshot *s = vm->snap;
	struct snap_registry *r = &vm->snap_reg;
	struct snap_out *out = calloc(r->nstate + r->nmem, sizeof(*out));
	struct snap_buf *b = calloc(r->nstate + 1, sizeof(*b));
	char err[SNAP_ERR_MAX];
	uint32_t n = 0;
	int rc = -1;

	/* Devices stay quiet until guest memory is in the file too: their
	 * work writes guest RAM. */
	if (out && b && snap_quiesce_all(r) == 0 && !collect(vm, out, b, &n)) {
		if (snap_file_write(fd, tmp, path, out, n, s->pagemap_fd, st,
				    err, sizeof(err)))
			fprintf(stderr, "minivmm: snapshot: %s\n", err);
		else
			rc = 0;
	}
	snap_resume_all(r);
	for (size_t i = 0; b && i < r->nstate; i++)
		snap_buf_free(&b[i]);
	free(b);
	free(out);
	close(fd);
	if (rc < 0)
		unlink(tmp);
	return rc;
}

static void report(struct vm *vm, const char *path,
		   const struct snap_write_stats *st, uint64_t t0)
{
	fprintf(stderr, "minivmm: snapshot written to %s (%s): %.1f MiB, "
		"%.1f MiB of data, %.1f ms\n", path,
		vm->snap->why, st->file_size / 1048576.0,
		st->data_bytes / 1048576.0,
		(timing_now_ns() - t0) / 1e6);
}

/* After one in --snapshot-continue mode: the next temp file. */
static void next_tmp(struct vm *vm)
{
	struct snapshot *s = vm->snap;
	char err[SNAP_ERR_MAX];

	s->tmp_fd = snap_file_create_tmp(vm->cfg->snapshot, s->tmp, err,
					 sizeof(err));
	if (s->tmp_fd < 0)
		fprintf(stderr, "minivmm: snapshot: %s\n", err);
}

static void take(struct vm *vm)
{
	struct snapshot *s = vm->snap;
	struct snap_write_stats st;
	uint64_t t0 = timing_now_ns();
	int ok;

	if (vm_pause_wait(&vm->pause) < 0) {
		__atomic_store_n(&s->requested, false, __ATOMIC_SEQ_CST);
		vm_pause_release(&vm->pause);
		return;		/* the run is ending anyway */
	}
	timing_event(&vm->timing, "snapshot: vCPUs paused");
	/* Writes a parked vCPU made without an exit (CF8) are state too. */
	coalesced_drain(&vm->coalesced);
	console_flush(&vm->console);
	ok = s->tmp_fd >= 0 && write_snapshot(vm, s->tmp_fd, s->tmp,
					      vm->cfg->snapshot, &st) == 0;
	s->tmp_fd = -1;
	timing_event(&vm->timing, "snapshot written");
	if (ok) {
		s->taken++;
		report(vm, vm->cfg->snapshot, &st, t0);
	}
	snapctl_set(&s->ctl, SNAPCTL_REG_STATUS, ok ? SNAPCTL_TAKEN :
		    SNAPCTL_FAILED);
	snapctl_set(&s->ctl, SNAPCTL_REG_TAKEN, s->taken);
	if (!ok)
		vm_stop(vm, EXIT_VMM_ERROR, "snapshot failed");
	else if (!vm->cfg->snapshot_continue)
		vm_stop(vm, 0, "snapshot taken; stopping "
			"(--snapshot-continue would go on)");
	else
		next_tmp(vm);
	__atomic_store_n(&s->requested, false, __ATOMIC_SEQ_CST);
	vm_pause_release(&vm->pause);
}

int snapshot_take_file(struct vm *vm, const char *path, bool go_on,
		       char *err, size_t errlen)
{
	struct snapshot *s = vm->snap;
	struct snap_write_stats st;
	uint64_t t0 = timing_now_ns();
	char tmp[PATH_MAX], why[SNAP_ERR_MAX];
	int fd, rc = -1;

	if (!s || !s->meta_ok) {
		snprintf(err, errlen, "this host's KVM cannot save a snapshot");
		return -1;
	}
	if (__atomic_exchange_n(&s->requested, true, __ATOMIC_SEQ_CST)) {
		snprintf(err, errlen, "a snapshot is being taken");
		return -1;
	}
	fd = snap_file_create_tmp(path, tmp, why, sizeof(why));
	if (fd < 0) {
		snprintf(err, errlen, "%s", why);
		goto out;
	}
	vm_pause_hold(&vm->pause);
	if (vm_pause_wait(&vm->pause) < 0) {
		close(fd);
		unlink(tmp);
		snprintf(err, errlen, "the run is ending");
		goto release;
	}
	coalesced_drain(&vm->coalesced);
	console_flush(&vm->console);
	s->why = "QMP";
	if (write_snapshot(vm, fd, tmp, path, &st) < 0) {
		snprintf(err, errlen, "writing %s failed (minivmm's stderr "
			 "says why); the guest runs on", path);
		goto release;
	}
	rc = 0;
	s->taken++;
	report(vm, path, &st, t0);
	snapctl_set(&s->ctl, SNAPCTL_REG_TAKEN, s->taken);
	if (!go_on)
		vm_stop(vm, 0, "snapshot taken (QMP); stopping");
release:
	vm_pause_release(&vm->pause);
out:
	__atomic_store_n(&s->requested, false, __ATOMIC_SEQ_CST);
	return rc;
}

int snapshot_poll_fd(struct vm *vm)
{
	return vm->snap ? vm->snap->req_fd : -1;
}

void snapshot_service(struct vm *vm)
{
	uint64_t v;

	if (read(vm->snap->req_fd, &v, sizeof(v)) != sizeof(v))
		return;
	if (!vm->stopping)
		take(vm);
}

void snapshot_release(struct vm *vm)
{
	vm_pause_wake(&vm->pause);
}

/* --- set-up ---------------------------------------------------------------- */

static int copy_save(void *ctx, struct snap_buf *out)
{
	const struct snap_buf *b = ctx;

	snap_put(out, b->p, b->len);
	return 0;
}

/* META and CONFIG were checked before the VM was built (restore.c). */
static int checked_load(void *ctx, const uint8_t *data, size_t len,
			char *err, size_t errlen)
{
	(void)ctx, (void)data, (void)len, (void)err, (void)errlen;
	return 0;
}

static int ctl_save(void *ctx, struct snap_buf *out)
{
	struct snapshot *s = ctx;

	snap_put_u32(out, s->generation);
	return 0;
}

static int ctl_load(void *ctx, const uint8_t *data, size_t len, char *err,
		    size_t errlen)
{
	struct snapshot *s = ctx;
	uint32_t g;

	if (len != 4) {
		snprintf(err, errlen, "snapshot-control section is malformed");
		return -1;
	}
	memcpy(&g, data, 4);
	s->generation = g + 1;
	snapctl_set(&s->ctl, SNAPCTL_REG_GENERATION, s->generation);
	return 0;
}

static int add_control(struct vm *vm, struct snapshot *s, int *usage)
{
	const struct vmm_config *cfg = vm->cfg;

	s->ctl_page = mmap(NULL, SNAPCTL_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->ctl_page == MAP_FAILED) {
		s->ctl_page = NULL;
		return -1;
	}
	snapctl_init(&s->ctl, s->ctl_page, on_guest_request, vm);
	if (snapctl_set_env(&s->ctl, cfg->append_env, cfg->n_append_env)) {
		fprintf(stderr, "minivmm: error: --append-env: more than %u "
			"bytes in all\n", SNAPCTL_ENV_MAX);
		*usage = 1;
		return -1;
	}
	if (gmem_add_region(&vm->mem, LAYOUT_SNAPCTL_BASE, SNAPCTL_SIZE,
			    s->ctl_page, true, "snapshot-control") < 0 ||
	    bus_register(&vm->mmio, LAYOUT_SNAPCTL_BASE, SNAPCTL_SIZE,
			 &snapctl_ops, &s->ctl, "snapshot-control") < 0)
		return -1;
	return 0;
}

static int add_sections(struct vm *vm, struct snapshot *s)
{
	struct snap_registry *r = &vm->snap_reg;
	const struct snap_state_ops ops[] = {
		{ SNAP_SEC_META, 0, SNAP_PHASE_MACHINE, copy_save,
		  checked_load, &s->meta },
		{ SNAP_SEC_CONFIG, 0, SNAP_PHASE_MACHINE, copy_save,
		  checked_load, &s->config },
		{ SNAP_SEC_SNAPCTL, 0, SNAP_PHASE_DEVICES, ctl_save, ctl_load,
		  s },
	};
	int fds[256];

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (snap_add_state(r, &ops[i]) < 0)
			return -1;
	for (int i = 0; i < vm->mem.n; i++) {
		const struct gmem_region *g = &vm->mem.regions[i];
		struct snap_memory m = { SNAP_SEC_RAM, g->gpa ? 1 : 0, g->host,
					 g->size, false };

		if (g->is_ram && snap_add_memory(r, &m) < 0)
			return -1;
	}
	if (vm->rom.host && snapshot_add_rom(vm) < 0)
		return -1;
	for (unsigned int i = 0; i < vm->ncpus; i++)
		fds[i] = vm->vcpus[i].fd;
	if (snap_machine_register(r, &vm->kvm.vm_fd) < 0)
		return -1;
	s->vcpus = snap_vcpus_register(r, vm->kvm.sys_fd, fds, vm->ncpus,
				       s->xsave_size);
	return s->vcpus ? 0 : -1;
}

int snapshot_add_rom(struct vm *vm)
{
	struct snap_memory m = { SNAP_SEC_ROM, 0, vm->rom.host, vm->rom.size,
				 true };

	return snap_add_memory(&vm->snap_reg, &m);
}

/* META and CONFIG as they will be saved; the first temp file. */
static int prepare_files(struct vm *vm, struct snapshot *s, int *usage)
{
	char err[SNAP_ERR_MAX];
	struct snap_meta meta;

	/* A KVM without what snapshots need only matters to --snapshot:
	 * the sections stay registered, a restore checks META anyway. */
	s->meta_ok = snap_meta_here(&meta, vm->host, vm->kvm.sys_fd, err,
				    sizeof(err)) == 0;
	if (!s->meta_ok && vm->cfg->snapshot) {
		fprintf(stderr, "minivmm: error: --snapshot: %s\n", err);
		return -1;
	}
	s->xsave_size = meta.xsave_size;
	snap_meta_encode(&meta, &s->meta);
	*usage = 1;
	if (snap_config_encode(vm->cfg, &s->config, err, sizeof(err)) < 0) {
		fprintf(stderr, "minivmm: error: %s\n", err);
		return -1;
	}
	/* Opened now: after set-up the sandbox would refuse it.  QMP may
	 * ask for snapshots too. */
	if (vm->cfg->snapshot || vm->cfg->qmp)
		s->pagemap_fd = open("/proc/self/pagemap",
				     O_RDONLY | O_CLOEXEC);
	if (!vm->cfg->snapshot) {
		*usage = 0;
		return 0;
	}
	s->tmp_fd = snap_file_create_tmp(vm->cfg->snapshot, s->tmp, err,
					 sizeof(err));
	if (s->tmp_fd < 0) {
		fprintf(stderr, "minivmm: error: --snapshot: %s\n", err);
		return -1;
	}
	*usage = 0;
	return 0;
}

int snapshot_setup(struct vm *vm, int *usage)
{
	struct snapshot *s = calloc(1, sizeof(*s));

	*usage = 0;
	if (!s)
		return -1;
	vm->snap = s;
	s->tmp_fd = -1;
	s->pagemap_fd = -1;
	snap_buf_init(&s->meta);
	snap_buf_init(&s->config);
	s->req_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->req_fd < 0 || prepare_files(vm, s, usage) < 0 ||
	    add_control(vm, s, usage) < 0)
		return -1;
	*usage = 0;
	if (add_sections(vm, s) < 0 || device_snap_register(vm) < 0) {
		fprintf(stderr, "minivmm: error: snapshot sections: %s\n",
			strerror(errno));
		return -1;
	}
	s->await_output = vm->cfg->restore && vm->cfg->timing;
	if (vm->cfg->snapshot_at == SNAP_AT_CONSOLE)
		s->marker_len = strlen(vm->cfg->snapshot_marker);
	if (s->marker_len || s->await_output) {
		vm->console.watch = watch_console;
		vm->console.watch_ctx = vm;
	}
	return 0;
}

void snapshot_destroy(struct vm *vm)
{
	struct snapshot *s = vm->snap;

	if (!s)
		return;
	if (s->tmp_fd >= 0) {
		close(s->tmp_fd);
		unlink(s->tmp);
	}
	if (s->req_fd >= 0)
		close(s->req_fd);
	if (s->pagemap_fd >= 0)
		close(s->pagemap_fd);
	snap_vcpus_free(s->vcpus);
	snap_buf_free(&s->meta);
	snap_buf_free(&s->config);
	if (s->ctl_page)
		munmap(s->ctl_page, SNAPCTL_SIZE);
	free(s);
	vm->snap = NULL;
}
