/* SPDX-License-Identifier: MIT */
/*
 * The snapshot section registry: what each part of the machine saves and
 * restores.  Modules register as they are built (vm_create): a state
 * section is a save callback (append the bytes to a snap_buf) and a load
 * callback (apply them), a memory section is a host range mapped
 * copy-on-write from the file at restore, a quiesce hook drains in-flight
 * device work before anything is saved.  The snapshot code walks the
 * registry and knows nothing of what the sections hold.
 *
 * Loads run in phase order (machine-wide KVM state, devices, vCPUs, the
 * clock last), and within a phase in registration order.
 */
#ifndef MINIVMM_SNAPSHOT_REGISTRY_H
#define MINIVMM_SNAPSHOT_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/snapshot/format.h"

enum snap_phase {
	SNAP_PHASE_MACHINE = 0,	/* irqchip, PIT */
	SNAP_PHASE_DEVICES,	/* device models, PCI, BAR mappings */
	SNAP_PHASE_VCPU,	/* registers, MSRs, LAPIC, events */
	SNAP_PHASE_VCPU_LATE,	/* VMM state derived from a vCPU's (e.g.
				 * breakpoints re-armed from restored MSRs) */
	SNAP_PHASE_CLOCK,	/* kvmclock: after the TSCs */
	SNAP_PHASES
};

#define SNAP_ERR_MAX	200

struct snap_state_ops {
	uint32_t type, instance;
	enum snap_phase phase;
	/* Appends the section's bytes; 0 or -1 (with a message printed). */
	int (*save)(void *ctx, struct snap_buf *out);
	/* Applies them (before any vCPU runs); 0, or -1 with one line in
	 * err (the restore is refused). */
	int (*load)(void *ctx, const uint8_t *data, size_t len, char *err,
		    size_t errlen);
	void *ctx;
};

struct snap_memory {
	uint32_t type, instance;
	uint8_t *host;			/* page-aligned */
	size_t size;			/* page multiple */
	bool readonly;			/* mapped PROT_READ at restore */
	bool from_file;			/* mapped from a snapshot (restore):
					 * an untouched page is not zero */
};

struct snap_quiesce {
	/* Finishes in-flight work and takes no new work (vCPUs are
	 * parked); 0, or -1 (the snapshot fails, resume is still called). */
	int (*quiesce)(void *ctx);
	/* Takes work again (after the snapshot, whether the run goes on or
	 * ends); may be NULL. */
	void (*resume)(void *ctx);
	void *ctx;
};

#define SNAP_MAX_QUIESCE	16

struct snap_registry {
	struct snap_state_ops *state;
	size_t nstate, state_cap;
	struct snap_memory *mem;
	size_t nmem, mem_cap;
	struct snap_quiesce quiesce[SNAP_MAX_QUIESCE];
	size_t nquiesce;
};

void snap_registry_init(struct snap_registry *r);
void snap_registry_free(struct snap_registry *r);
/* 0, or -1 (out of memory, or the (type, instance) is taken). */
int snap_add_state(struct snap_registry *r, const struct snap_state_ops *o);
int snap_add_memory(struct snap_registry *r, const struct snap_memory *m);
int snap_add_quiesce(struct snap_registry *r, struct snap_quiesce q);

/* Runs every quiesce hook; -1 if one failed. */
int snap_quiesce_all(struct snap_registry *r);
/* Runs every resume hook (after snap_quiesce_all, whatever it returned). */
void snap_resume_all(struct snap_registry *r);
/* The load order: fills order[0..nstate) with state indices. */
void snap_load_order(const struct snap_registry *r, size_t *order);
/* The registered memory range of (type, instance), or NULL. */
struct snap_memory *snap_memory_find(const struct snap_registry *r,
				     uint32_t type, uint32_t instance);

#endif
