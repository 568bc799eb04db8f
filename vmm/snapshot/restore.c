// SPDX-License-Identifier: MIT
/* Restoring a snapshot (restore.h). */
#include "vmm/snapshot/restore.h"
#include "vmm/snapshot/errmsg.h"
#include "vmm/snapshot/config.h"
#include "vmm/snapshot/file.h"
#include "vmm/snapshot/meta.h"
#include "vmm/snapshot/snapshot.h"
#include "vmm/vm.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

struct snap_restore {
	const char *path;
	struct snap_file f;
	struct snap_meta meta;
	struct snap_config config;
	bool config_ok;
};

static int refuse(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int refuse(const char *path, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "minivmm: error: --restore '%s': ", path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* The file alone, no host: the container, every state checksum, META and
 * CONFIG decoded, and with verify every memory checksum. */
static int read_file(struct snap_restore *rs, bool verify, char *err,
		     size_t errlen)
{
	const uint8_t *d;
	size_t len;

	if (snap_file_open(rs->path, &rs->f, err, errlen) < 0)
		return -1;
	d = snap_file_state(&rs->f, SNAP_SEC_META, 0, &len);
	if (!d)
		return fail(err, errlen, "no meta section");
	if (snap_meta_decode(d, len, &rs->meta, err, errlen) < 0)
		return -1;
	d = snap_file_state(&rs->f, SNAP_SEC_CONFIG, 0, &len);
	if (!d)
		return fail(err, errlen, "no config section");
	if (snap_config_decode(d, len, &rs->config, err, errlen) < 0)
		return -1;
	rs->config_ok = true;
	if (verify && snap_file_verify_memory(&rs->f, err, errlen) < 0)
		return -1;
	return 0;
}

static struct snap_restore *restore_new(const char *path)
{
	struct snap_restore *rs = calloc(1, sizeof(*rs));

	if (!rs)
		return NULL;
	rs->path = path;
	rs->f.fd = -1;
	return rs;
}

int snapshot_restore_check(const char *path, bool verify, char *err,
			   size_t errlen)
{
	struct snap_restore *rs = restore_new(path);
	int rc;

	if (!rs)
		return fail(err, errlen, "out of memory");
	rc = read_file(rs, verify, err, errlen);
	snapshot_restore_close(rs);
	return rc;
}

/* Then against this binary and host (META) and the command line
 * (CONFIG). */
static int check_here(struct snap_restore *rs, struct vmm_config *cfg,
		      const struct host *h, char *err, size_t errlen)
{
	struct snap_meta here;

	if (snap_meta_here(&here, h, -1, err, errlen) < 0 ||
	    snap_meta_compatible(&rs->meta, &here, err, errlen) < 0)
		return -1;
	return snap_config_merge(cfg, &rs->config, err, errlen);
}

int snapshot_restore_open(struct vmm_config *cfg, const struct host *h,
			  struct snap_restore **out)
{
	struct snap_restore *rs = restore_new(cfg->restore);
	char err[SNAP_ERR_MAX];

	*out = NULL;
	if (!rs)
		return refuse(cfg->restore, "out of memory");
	if (read_file(rs, cfg->restore_verify, err, sizeof(err)) < 0 ||
	    check_here(rs, cfg, h, err, sizeof(err)) < 0) {
		snapshot_restore_close(rs);
		return refuse(cfg->restore, "%s", err);
	}
	*out = rs;
	return 0;
}

void snapshot_restore_close(struct snap_restore *rs)
{
	if (!rs)
		return;
	snap_file_close(&rs->f);
	if (rs->config_ok)
		snap_config_free(&rs->config);
	free(rs);
}

/* --- into the VM ---------------------------------------------------------- */

static int map_rom(struct vm *vm, struct snap_restore *rs,
		   const struct snap_entry *e)
{
	void *p = mmap(NULL, e->length, PROT_READ, MAP_PRIVATE, rs->f.fd,
		       (off_t)e->offset);

	if (p == MAP_FAILED)
		return refuse(rs->path, "cannot map the ROM");
	if (e->length > 1u << 20 || rom_place(&vm->mem, p, e->length,
					      &vm->rom) < 0) {
		munmap(p, e->length);
		return refuse(rs->path, "the ROM does not fit");
	}
	return snapshot_add_rom(vm) < 0 ? refuse(rs->path, "ROM section") : 0;
}

/* Every memory image onto the range registered for it, and no range
 * left without one. */
static int map_memory(struct vm *vm, struct snap_restore *rs)
{
	const struct snap_registry *r = &vm->snap_reg;
	size_t mapped = 0;

	for (uint32_t i = 0; i < rs->f.idx.n; i++) {
		const struct snap_entry *e = &rs->f.idx.e[i];
		struct snap_memory *m;

		if (!(e->flags & SNAP_F_MEMORY))
			continue;
		if (e->type == SNAP_SEC_ROM && !vm->rom.host) {
			if (map_rom(vm, rs, e) < 0)
				return -1;
			mapped++;
			continue;
		}
		m = snap_memory_find(r, e->type, e->instance);
		if (!m || m->size != e->length)
			return refuse(rs->path, "memory section %s/%u does "
				      "not fit this machine",
				      snap_type_name(e->type), e->instance);
		if (snap_file_map(&rs->f, e, m->host, m->readonly) < 0)
			return refuse(rs->path, "cannot map %s/%u",
				      snap_type_name(e->type), e->instance);
		m->from_file = true;
		mapped++;
	}
	if (mapped != r->nmem)
		return refuse(rs->path, "guest memory is missing from the "
			      "snapshot");
	return 0;
}

/* The first state section of the file nothing registered (named for the
 * refusal: "syscall-fix/0" says the snapshot ran with --syscall-fix on). */
static const char *unclaimed(const struct snap_registry *r,
			     const struct snap_file *f)
{
	static char name[64];

	for (uint32_t i = 0; i < f->idx.n; i++) {
		const struct snap_entry *e = &f->idx.e[i];
		bool known = e->flags & SNAP_F_MEMORY;

		for (size_t k = 0; k < r->nstate && !known; k++)
			known = r->state[k].type == e->type &&
				r->state[k].instance == e->instance;
		if (!known) {
			snprintf(name, sizeof(name), "%s/%u",
				 snap_type_name(e->type), e->instance);
			return name;
		}
	}
	return "?";
}

static int load_states(struct vm *vm, struct snap_restore *rs)
{
	const struct snap_registry *r = &vm->snap_reg;
	size_t *order = calloc(r->nstate + 1, sizeof(*order));
	char err[SNAP_ERR_MAX];
	size_t nfile = 0;

	if (!order)
		return refuse(rs->path, "out of memory");
	snap_load_order(r, order);
	for (size_t k = 0; k < r->nstate; k++) {
		const struct snap_state_ops *o = &r->state[order[k]];
		size_t len;
		const uint8_t *d = snap_file_state(&rs->f, o->type,
						   o->instance, &len);

		err[0] = 0;
		if (!d || o->load(o->ctx, d, len, err, sizeof(err)) < 0) {
			free(order);
			return refuse(rs->path, "%s/%u: %s",
				      snap_type_name(o->type), o->instance,
				      d ? err : "missing from the snapshot");
		}
	}
	free(order);
	for (uint32_t i = 0; i < rs->f.idx.n; i++)
		nfile += !(rs->f.idx.e[i].flags & SNAP_F_MEMORY);
	if (nfile != r->nstate)
		return refuse(rs->path, "it holds state this machine has no "
			      "device for (%s)", unclaimed(r, &rs->f));
	return 0;
}

int snapshot_restore(struct vm *vm, struct snap_restore *rs)
{
	int rc;

	if (map_memory(vm, rs) < 0)
		return -1;
	/* Devices stay parked until every section is in.  A device that
	 * ran on its state at once (a frame waiting on the tap) raised an
	 * interrupt that the LAPIC's load, a later phase, wiped out; with
	 * the event index the driver, waiting for it, never heard from that
	 * queue again. */
	if (snap_quiesce_all(&vm->snap_reg) < 0) {
		snap_resume_all(&vm->snap_reg);
		return refuse(rs->path, "a device would not stop for the load");
	}
	rc = load_states(vm, rs);
	snap_resume_all(&vm->snap_reg);
	if (rc < 0)
		return -1;
	timing_event(&vm->timing, "snapshot restored");
	return 0;
}
