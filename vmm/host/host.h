/* SPDX-License-Identifier: MIT */
/*
 * The host profile: what kind of KVM minivmm runs on, probed once at
 * start-up (host_probe, the only function that looks at the host for
 * this) and passed to whatever depends on it, with the quirk table that
 * kind of host needs (quirks.h) and the record of what those quirks did.
 * Generic code never asks which host it runs on: it calls the host_*
 * fixed points below, which do nothing on hardware virtualization.
 *
 * The kinds: PVM (the kvm_pvm module: guest ring 3 runs natively, guest
 * ring 0 is emulated instruction by instruction), and hardware
 * virtualization, told apart as AMD SVM or Intel VMX by the loaded module
 * (kvm_amd, kvm_intel) or else the CPU's flags in /proc/cpuinfo.
 *
 * MINIVMM_HOST_EMULATES_RING0=1 or 0 in the environment overrides the
 * probe (tests use it): 1 is a PVM host, 0 hardware virtualization (its
 * kind then as the modules or CPU flags say).  Any other value is
 * ignored.
 */
#ifndef MINIVMM_HOST_H
#define MINIVMM_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "vmm/host/quirks.h"
#include "vmm/run/stats.h"

struct kvm_cpuid2;
struct vcpu_hook;

enum host_kind {
	HOST_HW,		/* hardware virtualization, kind not told */
	HOST_SVM,		/* AMD SVM */
	HOST_VMX,		/* Intel VMX */
	HOST_PVM,		/* guest ring 0 emulated */
};

/* What the probe reads, for host_from_facts. */
struct host_facts {
	bool kvm_pvm, kvm_amd, kvm_intel;	/* loaded: /sys/module/NAME */
	bool cpu_svm, cpu_vmx;			/* /proc/cpuinfo flags */
	int ring0_override;	/* MINIVMM_HOST_EMULATES_RING0: 1, 0, -1 */
};

struct host {
	enum host_kind kind;
	bool ring0_emulated;
	bool forced;		/* by MINIVMM_HOST_EMULATES_RING0 */
	char modules[64];	/* the KVM modules loaded ("kvm kvm_pvm") */
	const struct host_quirks *quirks;	/* never NULL */
	struct quirk_log log;
};

/* This host, from /sys/module, /proc/cpuinfo and the environment. */
void host_probe(struct host *h);
/* The profile for the given facts (tests build "hardware" and "PVM"
 * hosts with it). */
void host_from_facts(struct host *h, const struct host_facts *f);

/* "PVM (guest ring 0 emulated)", "AMD SVM", "Intel VMX" or "hardware
 * virtualization". */
const char *host_kind_name(const struct host *h);
/* One line for --verbose: "host: AMD SVM: no quirks" / "host: PVM (guest
 * ring 0 emulated): quirks on: cpuid-hide, ...", with "(MINIVMM_HOST_
 * EMULATES_RING0=N)" when forced. */
void host_describe(const struct host *h, char *buf, size_t len);
bool host_quirk_on(const struct host *h, enum quirk_id q);
/* Why the debugger cannot step or break in guest ring 3 here (the
 * debug-ring0 quirk's reason), or NULL. */
const char *host_debug_limit(const struct host *h);
/* --stats and --stats-json: the "host quirks" section. */
struct stats_reporter host_stats_reporter(struct host *h);

/* --- the fixed points ------------------------------------------------ */

/* The guest's CPUID table c, after minivmm's own adjustments; record: a
 * vCPU's real set-up (counted), not a preview. */
void host_cpuid(struct host *h, struct kvm_cpuid2 *c, bool record);
/* A Linux kernel's command line from the user's append: exactly append
 * unless the host needs more.  -1 if it does not fit in size bytes. */
int host_linux_cmdline(const struct host *h, const char *append,
		       bool snapshot, char *buf, size_t size);
/* Says what host_linux_cmdline added (once the input is known good). */
void host_linux_cmdline_notes(struct host *h, const char *append,
			      bool snapshot);
/* The action for a CPUID-gated MSR the guest's CPUID offers; NULL: KVM
 * handles it. */
const char *host_msr_offered(struct host *h, const char *name);
/* The KVM_EXIT_INTERNAL_ERROR hook, ctx a struct quirk_ctx (fn NULL:
 * none). */
void host_internal_error_hook(const struct host *h, void *ctx,
			      struct vcpu_hook *hook);
/* VM-level quirks (quirks.h: vm_prepare ...). */
void host_vm_prepare(const struct host *h, struct vm *vm);
int host_vm_install(const struct host *h, struct vm *vm);
void host_vm_announce(const struct host *h, const struct vm *vm);
void host_vm_destroy(const struct host *h, struct vm *vm);
/* QEMU's -cpu for a peer run (minivmm bench|test); NULL: what the caller
 * would use anyway.  Tools only: never counted. */
const char *host_qemu_cpu(const struct host *h);

#endif
