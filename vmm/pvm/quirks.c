// SPDX-License-Identifier: MIT
/* The PVM quirk table (host/quirks.h). */
#include "vmm/pvm/quirks.h"
#include "vmm/pvm/cpuid_hide.h"
#include "vmm/pvm/emulate.h"
#include "vmm/pvm/linux_cmdline.h"
#include "vmm/pvm/spec_ctrl.h"
#include "vmm/pvm/syscall.h"

const struct host_quirks pvm_quirks = {
	.cpuid_hide = pvm_cpuid_hide,
	.linux_cmdline = pvm_linux_cmdline,
	.linux_cmdline_notes = pvm_linux_cmdline_notes,
	.msr_offered = pvm_spec_ctrl,
	.internal_error = emulate_failure,
	.vm_prepare = syscall_fix_prepare,
	.vm_install = syscall_fix_install,
	.vm_announce = syscall_fix_announce,
	.vm_destroy = syscall_fix_destroy,
	/* This KVM refuses QEMU's write of IA32_ARCH_CAPABILITIES (MSR
	 * 0x10a), on which QEMU asserts: QEMU runs here only with it
	 * hidden (bench and kvm-unit-tests payloads never need it). */
	.qemu_cpu = "host,-arch-capabilities",
	.debug_limit = "this host's KVM (PVM) single-steps and fires "
		"hardware breakpoints on guest ring-0 instructions only; "
		"the vCPU is in ring 3 (docs/debugging.md)",
};
