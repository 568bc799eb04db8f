/* SPDX-License-Identifier: MIT */
/*
 * The snapshot control page: one 4 KiB register page through which a
 * guest asks for a snapshot and learns, after a restore, that it was
 * restored and what parameters it was given (--append-env).  The VMM maps
 * the page read-only into the guest (reads never exit, also from ring 3
 * through /dev/mem) and registers these ops for its MMIO range, which
 * then only ever see writes.  Layout (32-bit little-endian registers):
 *
 *	0x000 MAGIC	 "MVSN" (0x4e53564d)
 *	0x004 VERSION	 1
 *	0x008 GENERATION restores this guest went through (0: a fresh boot)
 *	0x00c STATUS	 last request: 0 none, 1 snapshot written (the run
 *			 went on), 2 snapshot failed, 3 not armed (no
 *			 --snapshot-at port)
 *	0x010 REQUEST	 write SNAPCTL_REQUEST_MAGIC: take a snapshot
 *	0x014 ENV_LEN	 bytes of ENV
 *	0x018 TAKEN	 snapshots written by this run
 *	0x100 ENV	 "KEY=VALUE\n" lines (--append-env), NUL-padded
 *
 * Which address: the VMM's business (LAYOUT_SNAPCTL_BASE; the device tree
 * and docs/snapshot.md name it).
 */
#ifndef MINIVMM_SNAPCTL_H
#define MINIVMM_SNAPCTL_H

#include <stddef.h>
#include <stdint.h>

#include "vmm/bus.h"

#define SNAPCTL_SIZE		4096u
#define SNAPCTL_MAGIC		0x4e53564du
#define SNAPCTL_VERSION		1u
#define SNAPCTL_REG_MAGIC	0x000
#define SNAPCTL_REG_VERSION	0x004
#define SNAPCTL_REG_GENERATION	0x008
#define SNAPCTL_REG_STATUS	0x00c
#define SNAPCTL_REG_REQUEST	0x010
#define SNAPCTL_REG_ENV_LEN	0x014
#define SNAPCTL_REG_TAKEN	0x018
#define SNAPCTL_ENV		0x100
#define SNAPCTL_ENV_MAX		(SNAPCTL_SIZE - SNAPCTL_ENV)
#define SNAPCTL_REQUEST_MAGIC	0x50414e53u	/* "SNAP" */

enum snapctl_status {
	SNAPCTL_NONE = 0, SNAPCTL_TAKEN = 1, SNAPCTL_FAILED = 2,
	SNAPCTL_NOT_ARMED = 3,
};

struct snapctl {
	uint8_t *page;		/* SNAPCTL_SIZE bytes, page-aligned */
	void (*request)(void *ctx);	/* the guest asked for a snapshot */
	void *ctx;
};

/* Fills the page: magic, version, zero counters, no environment. */
void snapctl_init(struct snapctl *s, uint8_t *page,
		  void (*request)(void *ctx), void *ctx);
/* "K=V\n" for each of the n strings; -1 (nothing changes) if they do not
 * fit in SNAPCTL_ENV_MAX bytes. */
int snapctl_set_env(struct snapctl *s, const char *const *env, int n);
void snapctl_set(struct snapctl *s, unsigned int reg, uint32_t value);
uint32_t snapctl_get(const struct snapctl *s, unsigned int reg);

/* Registered over the page's MMIO range, opaque = the struct snapctl. */
extern const struct bus_ops snapctl_ops;

#endif
