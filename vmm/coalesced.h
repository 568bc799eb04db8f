/* SPDX-License-Identifier: MIT */
/*
 * Coalesced I/O: port writes KVM queues in a ring shared with user space
 * instead of exiting (KVM_REGISTER_COALESCED_MMIO with pio set,
 * KVM_CAP_COALESCED_PIO).  Owns the zones and the ring's consumer side: the
 * queued writes reach the port bus in the order KVM queued them, when any
 * vCPU exits (before its exit is handled) and before a snapshot is saved.
 *
 * The ring is one per VM and its entries do not say which vCPU wrote.  That
 * is right only for a register that is one per machine, whose writes have
 * no effect until a read or another port's access (both exit), like the
 * PCI host bridge's CF8 address latch: KVM appends under its ring lock, so
 * the ring holds the machine's order of writes; a vCPU's own write is in
 * the ring before its next exit, so draining at every exit gives each
 * access the latch the hardware would (its own write, or another CPU's
 * later one: guests serialise CF8/CFC pairs with a lock, as on hardware).
 * A register with side effects of its own (0xCF9's reset) must not be
 * queued: nothing guarantees a next exit.
 */
#ifndef MINIVMM_COALESCED_H
#define MINIVMM_COALESCED_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct bus;
struct kvm_coalesced_mmio_ring;

struct coalesced {
	struct kvm_coalesced_mmio_ring *ring;	/* NULL: nothing queued */
	uint32_t max;			/* entries the ring holds */
	struct bus *pio;
	pthread_mutex_t lock;		/* one drainer at a time */
	bool asked, offered;		/* a zone wanted; KVM_CAP_COALESCED_PIO */
	unsigned int zones;		/* ports registered */
	atomic_uint_least64_t applied;	/* writes drained, for --stats */
	atomic_uint_least64_t drains;	/* drains that found writes */
};

void coalesced_init(struct coalesced *c, struct bus *pio);
void coalesced_destroy(struct coalesced *c);
/* Queues writes to ports [port, port+len) from now on.  1 if KVM lacks
 * KVM_CAP_COALESCED_PIO (every write keeps exiting), 0, or -1 (errno). */
int coalesced_add_pio(struct coalesced *c, int vm_fd, uint16_t port,
		      uint32_t len);
/* The ring, from a vCPU's kvm_run mapping (run_size bytes): call once the
 * first vCPU exists; until then (and without zones) drains do nothing.
 * -1 if the mapping does not hold it. */
int coalesced_attach(struct coalesced *c, void *run, size_t run_size);
/* Applies every queued write in order; cheap when none is queued.  Safe
 * from any thread. */
void coalesced_drain(struct coalesced *c);

#endif
