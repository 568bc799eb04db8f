// SPDX-License-Identifier: MIT
/* The quirks' names and record (quirks.h). */
#include "vmm/host/quirks.h"

static const struct {
	const char *name, *what, *unit;
} quirks[QUIRK_COUNT] = {
	[QUIRK_CPUID_HIDE] = { "cpuid-hide",
		"CPUID bits emulated ring 0 cannot use hidden from the guest "
		"(CX16; KVM PV features whose use is a VMCALL)",
		"vCPU CPUID tables" },
	[QUIRK_LINUX_CMDLINE] = { "linux-cmdline",
		"words added to the Linux kernel command line for emulated "
		"ring 0", "words added" },
	[QUIRK_SPEC_CTRL] = { "spec-ctrl",
		"IA32_SPEC_CTRL kept per vCPU (the guest's writes do not stick "
		"in this KVM)", "rules" },
	[QUIRK_INSN_COMPLETE] = { "insn-complete",
		"instructions the host's ring-0 emulator rejects completed by "
		"minivmm", "instructions" },
	[QUIRK_SYSCALL_FIX] = { "syscall-fix",
		"guest user-mode SYSCALL and int $0x80 completed by minivmm",
		"system calls" },
	[QUIRK_QEMU_CPU] = { "qemu-cpu",
		"QEMU peers run with -cpu host,-arch-capabilities (this KVM "
		"refuses IA32_ARCH_CAPABILITIES)", "QEMU runs" },
	[QUIRK_DEBUG_RING0] = { "debug-ring0",
		"gdb single-steps and hardware breakpoints cover guest ring 0 "
		"only: a step in ring 3 is refused with the reason",
		"steps refused" },
};

const char *quirk_name(enum quirk_id q)
{
	return q < QUIRK_COUNT ? quirks[q].name : "?";
}

const char *quirk_what(enum quirk_id q)
{
	return q < QUIRK_COUNT ? quirks[q].what : "?";
}

const char *quirk_unit(enum quirk_id q)
{
	return q < QUIRK_COUNT ? quirks[q].unit : "?";
}

bool quirk_in(const struct host_quirks *t, enum quirk_id q)
{
	switch (q) {
	case QUIRK_CPUID_HIDE:
		return t->cpuid_hide;
	case QUIRK_LINUX_CMDLINE:
		return t->linux_cmdline;
	case QUIRK_SPEC_CTRL:
		return t->msr_offered;
	case QUIRK_INSN_COMPLETE:
		return t->internal_error;
	case QUIRK_SYSCALL_FIX:
		return t->vm_prepare;
	case QUIRK_QEMU_CPU:
		return t->qemu_cpu;
	case QUIRK_DEBUG_RING0:
		return t->debug_limit;
	default:
		return false;
	}
}

void quirk_acted(struct quirk_log *log, enum quirk_id q, uint64_t n)
{
	bool no = false;

	if (!log || q >= QUIRK_COUNT || !n)
		return;
	atomic_fetch_add(&log->n[q], n);
	if (log->verbose &&
	    atomic_compare_exchange_strong(&log->said[q], &no, true))
		fprintf(stderr, "minivmm: host quirk %s acts: %s\n",
			quirks[q].name, quirks[q].what);
}

uint64_t quirk_count(const struct quirk_log *log, enum quirk_id q)
{
	return q < QUIRK_COUNT ?
	       atomic_load((atomic_uint_least64_t *)&log->n[q]) : 0;
}
