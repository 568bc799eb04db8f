/* SPDX-License-Identifier: MIT */
/*
 * I/O buses: the port-I/O and MMIO range tables the vCPU loop dispatches
 * exits through.  A device registers [base, base+len) with an ops table and
 * an opaque pointer; handlers see the offset into their range, never the
 * absolute address.  The bus owns the ranges, not the devices.
 */
#ifndef MINIVMM_BUS_H
#define MINIVMM_BUS_H

#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>

struct bus_ops {
	/* Read len (1, 2, 4 or 8) bytes at offset into *data (zeroed by the
	 * bus before the call). */
	void (*read)(void *opaque, uint64_t offset, uint8_t *data, uint32_t len);
	void (*write)(void *opaque, uint64_t offset, const uint8_t *data,
		      uint32_t len);
};

struct bus_range {
	uint64_t base;
	uint64_t len;
	const struct bus_ops *ops;
	void *opaque;
	const char *name;	/* for --stats; owned by the registrant */
	uint64_t reads, writes;	/* exit counts, for --stats */
	uint64_t queued;	/* writes applied without an exit (coalesced) */
};

#define BUS_MAX_RANGES	64

struct bus {
	const char *name;		/* "pio" or "mmio" */
	uint64_t limit;			/* addresses are < limit */
	/* Port I/O semantics: the device decoding the first port takes the
	 * whole access (an outl to 0xf4 is one cycle to port 0xf4), so
	 * accesses are not clipped to the range; handlers bounds-check
	 * offset + len themselves.  MMIO buses clip. */
	bool whole_access;
	pthread_mutex_t lock;
	int n;
	struct bus_range ranges[BUS_MAX_RANGES];	/* sorted by base */
	uint64_t unclaimed_reads, unclaimed_writes;
};

void bus_init(struct bus *bus, const char *name, uint64_t limit);
void bus_destroy(struct bus *bus);

/* 0 on success; -1 on zero length, overflow, out of limit, overlap with an
 * existing range, or a full table.  Nothing changes on failure. */
int bus_register(struct bus *bus, uint64_t base, uint64_t len,
		 const struct bus_ops *ops, void *opaque, const char *name);
/* True if [base, base+len) overlaps a registered range. */
bool bus_overlaps(struct bus *bus, uint64_t base, uint64_t len);
/* Remove the range registered at base with this opaque; -1 if none. */
int bus_unregister(struct bus *bus, uint64_t base, void *opaque);
/* Move a range; on failure (overlap, overflow) the old range stays. */
int bus_move(struct bus *bus, uint64_t old_base, uint64_t new_base,
	     void *opaque);

/* Dispatch one access.  Returns false if no range claims addr (reads then
 * return all-ones, writes are dropped; both are counted). An access that
 * runs past the end of its range is truncated to the range unless the bus
 * has whole_access.  The handler
 * runs without the bus lock (devices serialise themselves) and may
 * register, move or unregister ranges on any bus. */
bool bus_access(struct bus *bus, uint64_t addr, uint8_t *data, uint32_t len,
		bool is_write);

/* A write KVM queued instead of exiting (vmm/coalesced.h): dispatched
 * like bus_access, counted as queued rather than as an exit. */
bool bus_access_queued(struct bus *bus, uint64_t addr, uint8_t *data,
		       uint32_t len);

/* Calls fn for each range (under the lock), for stats and invariant checks. */
void bus_for_each(struct bus *bus,
		  void (*fn)(const struct bus_range *r, void *ctx), void *ctx);

#endif
