// SPDX-License-Identifier: MIT
/* MSRs outside KVM's index list that a snapshot carries (msr_extra.h).
 * Numbers from the SDM volume 4 (architectural MSRs). */
#include "vmm/snapshot/sections/msr_extra.h"

#include <stdbool.h>

#include "vmm/msr/exit.h"

#define MSR_MTRRCAP		0xfeu
#define MSR_MCG_CAP		0x179u
#define MSR_MCG_STATUS		0x17au
#define MSR_MCG_CTL		0x17bu
#define MSR_DEBUGCTL		0x1d9u
#define MSR_MTRR_PHYSBASE0	0x200u
#define MSR_PAT			0x277u
#define MSR_MC0_CTL2		0x280u
#define MSR_MTRR_DEF_TYPE	0x2ffu
#define MSR_MC0_CTL		0x400u
#define MSR_XSS			0xda0u

#define MTRRCAP_VCNT(c)		((uint32_t)(c) & 0xff)
#define MTRRCAP_FIX		(1u << 8)
#define MCG_COUNT(c)		((uint32_t)(c) & 0xff)
#define MCG_CTL_P		(1u << 8)
#define MCG_CMCI_P		(1u << 10)
#define MAX_VAR_MTRRS		32u	/* VCNT is 8 bits; no CPU has more */
#define MAX_MC_BANKS		32u	/* KVM_MAX_MCE_BANKS */

static const uint32_t fixed_mtrrs[] = {
	0x250, 0x258, 0x259, 0x268, 0x269, 0x26a, 0x26b, 0x26c, 0x26d,
	0x26e, 0x26f,
};

/* An MSR KVM does not hold reads as an error: left out of the snapshot. */
static bool read_msr(int fd, uint32_t index, uint64_t *value)
{
	return msr_kvm_vcpu_access(fd, MSR_READ, index, value) == 0;
}

struct adder {
	int fd;
	uint32_t *list, *n, max, added;
};

/* A restore writes what the save read, so a candidate KVM reads but will
 * not take back would make every snapshot unrestorable: PVM reads XSS and
 * refuses every write of it.  Only XSS is written back (on the new vCPU,
 * which has not run: its reset value changes nothing); a write of
 * DEBUGCTL would log "Unhandled WRMSR" on every VM of a kvm_amd without
 * LBR virtualization, which does take it. */
static void add_if(struct adder *a, uint32_t index, bool written_back)
{
	uint64_t v;

	for (uint32_t i = 0; i < *a->n; i++)
		if (a->list[i] == index)
			return;
	if (*a->n >= a->max || !read_msr(a->fd, index, &v))
		return;
	if (written_back &&
	    msr_kvm_vcpu_access(a->fd, MSR_WRITE, index, &v) != 0)
		return;
	a->list[(*a->n)++] = index;
	a->added++;
}

static void add(struct adder *a, uint32_t index)
{
	add_if(a, index, false);
}

static void add_mtrrs(struct adder *a)
{
	uint64_t cap;
	uint32_t vcnt;

	if (!read_msr(a->fd, MSR_MTRRCAP, &cap))
		return;
	add(a, MSR_MTRR_DEF_TYPE);
	if (cap & MTRRCAP_FIX)
		for (unsigned int i = 0; i < sizeof(fixed_mtrrs) /
					     sizeof(fixed_mtrrs[0]); i++)
			add(a, fixed_mtrrs[i]);
	vcnt = MTRRCAP_VCNT(cap);
	if (vcnt > MAX_VAR_MTRRS)
		vcnt = MAX_VAR_MTRRS;
	for (uint32_t i = 0; i < 2 * vcnt; i++)
		add(a, MSR_MTRR_PHYSBASE0 + i);
}

static void add_mce(struct adder *a)
{
	uint64_t cap;
	uint32_t banks;

	if (!read_msr(a->fd, MSR_MCG_CAP, &cap))
		return;
	add(a, MSR_MCG_STATUS);
	if (cap & MCG_CTL_P)
		add(a, MSR_MCG_CTL);
	banks = MCG_COUNT(cap);
	if (banks > MAX_MC_BANKS)
		banks = MAX_MC_BANKS;
	for (uint32_t i = 0; i < 4 * banks; i++)
		add(a, MSR_MC0_CTL + i);
	if (cap & MCG_CMCI_P)
		for (uint32_t i = 0; i < banks; i++)
			add(a, MSR_MC0_CTL2 + i);
}

uint32_t snap_msr_extra(int vcpu_fd, uint32_t *list, uint32_t *n,
			uint32_t max)
{
	struct adder a = { vcpu_fd, list, n, max, 0 };

	add_mtrrs(&a);
	add(&a, MSR_PAT);
	add_mce(&a);
	add(&a, MSR_DEBUGCTL);
	add_if(&a, MSR_XSS, true);
	return a.added;
}
