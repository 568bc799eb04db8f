/* SPDX-License-Identifier: MIT */
/*
 * Host quirks: the fixed points at which generic code lets the work-arounds
 * for a host's KVM act (struct host_quirks, one table per kind of host,
 * chosen by the host profile: host.h), and the record of what they did
 * (struct quirk_log: the "host quirks" section of --stats, and a --verbose
 * line the first time each acts).
 *
 * On hardware virtualization (SVM, VMX) the table is empty: every hook
 * NULL, so each fixed point does what it would without this header.  The
 * one other table, PVM's (guest ring 0 emulated), and every hook's code
 * live under vmm/pvm/, each file named for what it fixes:
 *
 *   cpuid-hide     pvm/cpuid_hide.c     CPUID bits emulated ring 0 cannot
 *                                       use (CX16; KVM PV features whose use
 *                                       is a VMCALL from ring 0)
 *   linux-cmdline  pvm/linux_cmdline.c  words a Linux kernel's command line
 *                                       gets (noxsave, clearcpuid=...)
 *   spec-ctrl      pvm/spec_ctrl.c      IA32_SPEC_CTRL kept per vCPU (the
 *                                       guest's writes do not stick in KVM)
 *   insn-complete  pvm/emulate.c,       instructions the host's ring-0
 *                  pvm/emulate_sys.c    emulator rejects, completed
 *   syscall-fix    pvm/syscall*.c       guest user-mode SYSCALL and int
 *                                       $0x80 completed (--syscall-fix)
 *   qemu-cpu       pvm/quirks.c         QEMU peers of minivmm bench|test
 *                                       run with -cpu host,-arch-capabilities
 */
#ifndef MINIVMM_QUIRKS_H
#define MINIVMM_QUIRKS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cJSON;
struct gmem;
struct kvm_cpuid2;
struct stats;
struct vcpu;
struct vm;

enum quirk_id {
	QUIRK_CPUID_HIDE,
	QUIRK_LINUX_CMDLINE,
	QUIRK_SPEC_CTRL,
	QUIRK_INSN_COMPLETE,
	QUIRK_SYSCALL_FIX,
	QUIRK_QEMU_CPU,
	QUIRK_DEBUG_RING0,
	QUIRK_COUNT
};

/* The hooks; NULL: the host needs nothing there. */
struct host_quirks {
	/* CPUID set-up: clears in c what the guest must not see here;
	 * returns the number of bits cleared. */
	unsigned int (*cpuid_hide)(struct kvm_cpuid2 *c);
	/* A Linux kernel's command line: the words this host needs that
	 * append lacks, then append, into buf; snapshot: the boot may be
	 * snapshotted.  -1 if it does not fit in size bytes. */
	int (*linux_cmdline)(const char *append, bool snapshot, char *buf,
			     size_t size);
	/* Says on stderr what linux_cmdline adds and why (and which of the
	 * user's words it kept); returns the number of words added. */
	unsigned int (*linux_cmdline_notes)(const char *append,
					    bool snapshot);
	/* The MSR policy's CPUID layer (msr/cpuid_layer.h): the action for
	 * a CPUID-gated MSR (by name) the guest's CPUID offers; NULL
	 * leaves it to KVM. */
	const char *(*msr_offered)(const char *name);
	/* KVM_EXIT_INTERNAL_ERROR (a struct vcpu_hook function; ctx is a
	 * struct quirk_ctx): true if handled and the vCPU may re-enter. */
	bool (*internal_error)(void *ctx, struct vcpu *v);
	/* A quirk that plugs into the VM (the syscall fix), at the points
	 * machine.c and main.c name: before the MSR filter is compiled,
	 * after the vCPUs exist (0 or -1 after saying why), when the guest
	 * is about to run, and at the end. */
	void (*vm_prepare)(struct vm *vm);
	int (*vm_install)(struct vm *vm);
	void (*vm_announce)(const struct vm *vm);
	void (*vm_destroy)(struct vm *vm);
	/* QEMU's -cpu value for minivmm bench|test peer runs. */
	const char *qemu_cpu;
	/* Why the debugger cannot single-step or break in guest ring 3
	 * here (gdb hears it as the error; NULL: it can). */
	const char *debug_limit;
};

/* How often each quirk acted, and whether to say so (--verbose). */
struct quirk_log {
	atomic_uint_least64_t n[QUIRK_COUNT];
	atomic_bool said[QUIRK_COUNT];
	bool verbose;
};

/* What a quirk acting in a vCPU's exit may use. */
struct quirk_ctx {
	struct gmem *mem;
	struct stats *stats;
	struct quirk_log *log;
};

/* "cpuid-hide" etc.; what the quirk fixes; what its count counts. */
const char *quirk_name(enum quirk_id q);
const char *quirk_what(enum quirk_id q);
const char *quirk_unit(enum quirk_id q);
/* True if the table has quirk q (its hooks are set). */
bool quirk_in(const struct host_quirks *t, enum quirk_id q);
/* Quirk q acted n times (n > 0); with verbose, the first time says so
 * on stderr.  Safe from any thread. */
void quirk_acted(struct quirk_log *log, enum quirk_id q, uint64_t n);
uint64_t quirk_count(const struct quirk_log *log, enum quirk_id q);

#endif
