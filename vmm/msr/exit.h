/* SPDX-License-Identifier: MIT */
/*
 * The runtime side of the MSR policy: the answer to one KVM_EXIT_X86_RDMSR
 * or WRMSR exit, given the policy (policy.h), the vCPU's emulated-MSR
 * store and callbacks for host reads, KVM passthrough and logging; plus the
 * per-MSR statistics, and the host-MSR device (/dev/cpu/N/msr) and KVM
 * passthrough helpers that are the only parts touching the system.
 *
 * Thread safety: the policy is read-only, stats take their own lock, and a
 * store belongs to one vCPU thread, so msr_exit_handle() may run on every
 * vCPU thread at once.
 *
 * Answers, by effective action of the accessed direction:
 *	deny			#GP
 *	ignore			read 0 / write dropped
 *	value=V			read V
 *	emulate=V		read the vCPU's last written value (V at first) /
 *				write stores it
 *	host[=V]		read the host MSR on the current CPU; if that
 *				fails, V, or #GP without a fallback
 *	allow,log / allow,count	exits only because it is logged or counted:
 *				done through kvm_access (host-initiated
 *				KVM_GET/SET_MSRS), #GP if that fails
 *	plain allow		KVM handled (or would have faulted) it; an exit
 *				here (reason UNKNOWN or INVAL, or a stale
 *				filter) cannot be attributed to a rule: #GP,
 *				counted apart and logged once per MSR.  An
 *				access an observer watches (observer.h) exits
 *				by the filter and is done through kvm_access.
 * A store that is full (MSR_EMUL_MAX MSRs) faults further new writes.
 */
#ifndef MINIVMM_MSR_EXIT_H
#define MINIVMM_MSR_EXIT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/msr/observer.h"
#include "vmm/msr/policy.h"

struct kvm_run;

/* ---- one exit ------------------------------------------------------- */

struct msr_exit_req {
	int vcpu;		/* vCPU id, for logs and host/KVM callbacks */
	uint64_t rip;		/* guest RIP, for logs only */
	enum msr_dir dir;
	uint32_t index;
	uint64_t value;		/* the value written (writes) */
	uint32_t reason;	/* KVM_MSR_EXIT_REASON_* */
};

struct msr_exit_res {
	uint64_t value;		/* for reads, unless gp */
	bool gp;		/* inject #GP (kvm_run->msr.error = 1) */
};

/* 0 and *value, or a negative errno. */
typedef int (*msr_host_read_fn)(void *opaque, int vcpu, uint32_t index,
				uint64_t *value);
/* Performs a read (fills *value) or write (of *value) as KVM would, for
 * allow,log and allow,count MSRs.  0 or a negative errno. */
typedef int (*msr_kvm_access_fn)(void *opaque, int vcpu, enum msr_dir dir,
				 uint32_t index, uint64_t *value);

struct msr_log_event {
	int vcpu;
	uint64_t rip;
	enum msr_dir dir;
	uint32_t index;
	const char *name;	/* NULL if the MSR has none */
	uint64_t value;		/* read: returned; write: written */
	bool gp;
	bool unattributed;	/* no rule explains this exit */
	uint32_t reason;
	struct msr_entry entry;	/* the effective entry used */
};
typedef void (*msr_log_fn)(void *opaque, const struct msr_log_event *ev);

/* "msr: vcpu 0 rip 0x1234 rdmsr 0x19a IA32_THERM_CONTROL -> 0x10
 * [value=0x10,log]" into buf (always terminated, no newline). */
void msr_log_format(char *buf, size_t len, const struct msr_log_event *ev);

/* ---- per-vCPU emulated values --------------------------------------- */

#define MSR_EMUL_MAX	4096

struct msr_emul_store {
	struct msr_emul_val { uint32_t index; uint64_t value; } *v;
	size_t n, cap;		/* v sorted by index */
};

void msr_emul_store_init(struct msr_emul_store *s);
void msr_emul_store_free(struct msr_emul_store *s);
/* True and *value if this vCPU wrote index. */
bool msr_emul_store_get(const struct msr_emul_store *s, uint32_t index,
			uint64_t *value);
/* Stores value for index (a guest write, or a snapshot being restored).
 * -1 if the store is full (MSR_EMUL_MAX) or out of memory. */
int msr_emul_store_set(struct msr_emul_store *s, uint32_t index,
		       uint64_t value);

/* ---- statistics ----------------------------------------------------- */

#define MSR_STATS_MAX	4096	/* distinct MSRs; more go to "untracked" */

struct msr_stat {
	uint32_t index;
	const char *name;		/* NULL if the MSR has none */
	uint64_t reads, writes;		/* exits to user space, by direction */
	uint64_t gp;			/* of which answered with #GP */
	uint64_t unattributed;		/* of which no rule explains */
	struct msr_entry rd, wr;	/* effective entries (format them with
					 * msr_entry_format) */
};

struct msr_stats_totals {
	uint64_t exits, gp, unattributed;
	uint64_t untracked;		/* exits of MSRs past MSR_STATS_MAX */
};

struct msr_stats {
	pthread_mutex_t lock;
	struct msr_stat *v;		/* sorted by index */
	size_t n, cap;
	struct msr_stats_totals t;
};

void msr_stats_init(struct msr_stats *s);
void msr_stats_destroy(struct msr_stats *s);
/* Calls fn for every MSR that exited, by ascending index, under the lock
 * (fn must not call back into the stats). */
void msr_stats_for_each(struct msr_stats *s,
			void (*fn)(const struct msr_stat *st, void *ctx),
			void *ctx);
void msr_stats_totals(struct msr_stats *s, struct msr_stats_totals *out);

/* ---- the handler ---------------------------------------------------- */

struct msr_exit_ctx {
	const struct msr_policy *policy;
	struct msr_stats *stats;		/* may be NULL */
	msr_host_read_fn host_read;		/* NULL: host reads fail */
	void *host_opaque;
	msr_kvm_access_fn kvm_access;		/* NULL: allow,log faults */
	void *kvm_opaque;
	msr_log_fn log;				/* NULL: no logging */
	void *log_opaque;
	const struct msr_observer *observer;	/* NULL: none */
};

struct msr_exit_res msr_exit_handle(const struct msr_exit_ctx *ctx,
				    struct msr_emul_store *store,
				    const struct msr_exit_req *req);

/* True if logging this access wants a real RIP (else pass rip 0 and skip
 * KVM_GET_REGS). */
bool msr_exit_wants_rip(const struct msr_exit_ctx *ctx, enum msr_dir dir,
			uint32_t index);

/* Decodes run->msr of a KVM_EXIT_X86_RDMSR/WRMSR exit into a request, and
 * writes a result back (error, and data for reads). */
struct msr_exit_req msr_exit_req_from_run(const struct kvm_run *run, int vcpu,
					  uint64_t rip);
void msr_exit_complete_run(struct kvm_run *run, const struct msr_exit_req *req,
			   const struct msr_exit_res *res);

/* ---- the system side ------------------------------------------------ */

/* The host MSR devices, opened once at start-up (before any sandbox). */
struct msr_host_dev {
	int *fds;		/* per host CPU; -1 where unavailable */
	int ncpus;
	char warning[256];	/* non-empty: print it, the run may go on */
};

/* Opens ROOT/N/msr ("/dev/cpu" if root is NULL) for every host CPU when
 * the policy uses host, and test-reads each host rule's first MSR on the
 * current CPU.  0 (maybe with dev->warning set when only rules with a
 * fallback are affected), or -1 with one line in err (no msr driver, no
 * permission, an MSR the host CPU cannot read).  Does nothing and returns
 * 0 when the policy has no host rules.  Free with msr_host_dev_close(). */
int msr_host_dev_open(struct msr_host_dev *dev, const char *root,
		      const struct msr_policy *p, char *err, size_t errlen);
void msr_host_dev_close(struct msr_host_dev *dev);
/* msr_host_read_fn over a struct msr_host_dev: reads index on the CPU the
 * calling thread runs on (sched_getcpu()). */
int msr_host_dev_read(void *dev, int vcpu, uint32_t index, uint64_t *value);

/* KVM passthrough for one vCPU fd: host-initiated KVM_GET_MSRS or
 * KVM_SET_MSRS of one MSR (these bypass the filter).  0 or -EIO/-errno.
 * The only ioctl here; note host-initiated accesses skip some guest checks
 * (e.g. a write to IA32_TSC is treated as a VMM-initiated TSC sync). */
int msr_kvm_vcpu_access(int vcpu_fd, enum msr_dir dir, uint32_t index,
			uint64_t *value);

#endif
