/* SPDX-License-Identifier: MIT */
/*
 * Compiles an MSR policy into a KVM MSR filter (KVM_X86_SET_MSR_FILTER):
 * every access whose effective action is not a plain allow (or carries log
 * or count) is denied in the filter, so it exits to user space as
 * KVM_EXIT_X86_RDMSR/WRMSR with KVM_MSR_EXIT_REASON_FILTER.  A silent
 * denial (deny without log or count) needs no exit: when no other denied
 * access needs one (exits false), the VM leaves KVM_MSR_EXIT_REASON_FILTER
 * off and KVM injects the #GP itself.  The choice is per VM (KVM has one
 * exit mask), so one rule that needs user space makes them all exit.
 * Owns the filter and its bitmaps; makes no ioctls.
 *
 * KVM's limits are enforced, never worked around by dropping a rule: at
 * most 16 ranges, each at most 12288 MSRs (0x600 bitmap bytes), READ and
 * WRITE ranges counted separately unless one range can carry both (same
 * bits); x2APIC MSRs 0x800-0x8ff cannot be filtered, so a rule there that
 * is not a plain allow is refused.  The compiler finds the fewest ranges
 * (see filter.c).
 *
 * Use: enable KVM_CAP_X86_USER_SPACE_MSR, with KVM_MSR_EXIT_REASON_FILTER
 * if f.exits, on the VM before the ioctl (and keep it), then
 * if (msr_filter_needed(&f)) ioctl(vm_fd, KVM_X86_SET_MSR_FILTER, &f.kvm).
 */
#ifndef MINIVMM_MSR_FILTER_H
#define MINIVMM_MSR_FILTER_H

#include <linux/kvm.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vmm/msr/observer.h"
#include "vmm/msr/policy.h"

/* The largest number of MSRs one range may cover. */
#define MSR_FILTER_RANGE_MAX	(KVM_MSR_FILTER_MAX_BITMAP_SIZE * 8)

struct msr_filter {
	struct kvm_msr_filter kvm;	/* ranges[i].bitmap malloc'ed, ours */
	unsigned int nranges;		/* used entries of kvm.ranges */
	bool exits;	/* a denied access needs user space (not silent) */
	bool silent;	/* an access is denied silently (deny, no log/count) */
};

/* 0, or -1 with one line in err (table needs > 16 ranges, x2APIC rule,
 * out of memory).  f is valid (and must be freed) either way. */
int msr_filter_compile(struct msr_filter *f, const struct msr_policy *p,
		       char *err, size_t errlen);
/* The same, with the watched accesses (observer.h) made to exit as if
 * their rules carried count; the policy itself is not changed.  Watches
 * on x2APIC MSRs, which KVM cannot filter, are refused like rules. */
int msr_filter_compile_watch(struct msr_filter *f, const struct msr_policy *p,
			     const struct msr_watch *watch, size_t nwatch,
			     char *err, size_t errlen);
void msr_filter_free(struct msr_filter *f);

/* False when the filter would change nothing (default allow, no ranges):
 * the ioctl can then be skipped. */
bool msr_filter_needed(const struct msr_filter *f);

/* What KVM will decide for one guest access, mirroring kvm_msr_allowed():
 * true = handled in the kernel, false = denied (an exit to user space, or
 * KVM's own #GP when exits is false). */
bool msr_filter_allows(const struct msr_filter *f, uint32_t index,
		       enum msr_dir dir);

/* A summary of the ranges, for --msr-policy-check. */
void msr_filter_print(const struct msr_filter *f, FILE *out);

#endif
