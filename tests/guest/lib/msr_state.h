/* SPDX-License-Identifier: MIT */
/*
 * Known patterns in the per-vCPU MSRs a snapshot must carry beyond
 * KVM's index list (vmm/snapshot/sections/msr_extra.h): MTRRdefType, the
 * eleven fixed-range MTRRs, every variable pair MTRRcap counts, PAT, the
 * machine-check banks MCG_CAP counts (MCi_CTL, _ADDR, _MISC; MCi_STATUS
 * takes only 0 from a guest) and MCG_STATUS.  The patterns differ from
 * what a fresh vCPU holds, and keep RAM write-back (the variable ranges
 * lie above any guest RAM, PAT entry 0 stays WB), so the guest runs on
 * unchanged.  Used by tests/guest/snapshot.c ("mtrr").
 */
#ifndef GUEST_LIB_MSR_STATE_H
#define GUEST_LIB_MSR_STATE_H

#include <stdint.h>

#define MSR_STATE_MAX	256

struct msr_state {
	uint32_t n;
	uint32_t index[MSR_STATE_MAX];
	uint64_t value[MSR_STATE_MAX];
	uint32_t vcnt, banks;		/* from MTRRcap and MCG_CAP */
};

/* Writes the patterns, reads each back (a check per MSR) and records
 * them in s. */
void msr_state_fill(struct msr_state *s);
/* Checks that every MSR in s still reads its pattern; returns how many
 * do not. */
unsigned int msr_state_check(const struct msr_state *s);

#endif
