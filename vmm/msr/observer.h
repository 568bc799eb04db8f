/* SPDX-License-Identifier: MIT */
/*
 * A part of the VMM that must see some of the guest's MSR accesses as
 * they take effect in KVM, whatever the policy says about exits (e.g.
 * pvm/syscall.c follows LSTAR, STAR, CSTAR and FMASK).  Owns only the
 * contract:
 *
 *  - every watched access exits to user space (the filter compiler denies
 *    it in the KVM filter, filter.h);
 *  - the policy still decides the answer: deny still raises #GP, ignore
 *    and value still drop writes, emulate keeps its own register, and the
 *    observer never hears of them, because KVM's MSR does not change;
 *  - an access the policy lets reach KVM (allow, also with log or count)
 *    is performed by the observer's access() instead of a plain
 *    KVM_GET/SET_MSRS, after the policy has decided: the observer learns
 *    the value and may keep KVM's copy different from what the guest
 *    reads back.
 */
#ifndef MINIVMM_MSR_OBSERVER_H
#define MINIVMM_MSR_OBSERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MSR_WATCH_MAX	8

/* One MSR whose reads and/or writes must exit. */
struct msr_watch {
	uint32_t index;
	bool read, write;
};

struct msr_observer {
	struct msr_watch watch[MSR_WATCH_MAX];
	size_t nwatch;		/* 0: no observer */
	/* Performs a read (fills *value) or write (of *value) of a watched
	 * MSR for vCPU vcpu: 0, or a negative errno (the guest gets #GP).
	 * Runs on that vCPU's thread. */
	int (*access)(void *ctx, unsigned int vcpu, bool write,
		      uint32_t index, uint64_t *value);
	void *ctx;
};

/* True if o watches index in that direction. */
static inline bool msr_observer_watches(const struct msr_observer *o,
					uint32_t index, bool write)
{
	for (size_t i = 0; o && i < o->nwatch; i++)
		if (o->watch[i].index == index &&
		    (write ? o->watch[i].write : o->watch[i].read))
			return true;
	return false;
}

#endif
