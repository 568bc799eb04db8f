// SPDX-License-Identifier: MIT
/* The built-in MSR policies, as rule text the parser reads like a file,
 * and the rule-syntax help.  Kept apart from the parser so the policies
 * read as data. */
#include "vmm/msr/presets.h"

#include <string.h>
#include <strings.h>


/*
 * kvm: KVM's own behaviour; every MSR is left to the kernel.
 */
static const char *const preset_kvm[] = {
	"default allow",
	NULL,
};

/*
 * xen-strict: unknown MSRs raise #GP, as Xen does for HVM guests since 4.15
 * (322ec7c89f66 PV, 84e848fd7a HVM; shared/reference/msr.md section 2).
 * "Known" means what Xen itself handles for an HVM guest in guest_rdmsr()/
 * guest_wrmsr() (xen/arch/x86/msr.c) and the VMX/SVM intercepts: that is
 * left to KVM (allow), or given Xen's fixed answer where it has one (the
 * read-as-zero MSRs of 3059178798 and 6280558224, the PV-era K8 P-states).
 * Write-only and read-only MSRs keep Xen's direction.  Left out on purpose:
 * PMU, LBR, VMX capability and RAPL MSRs (Xen offers them only with vPMU or
 * nested virtualisation, which minivmm does not model); hide the PMU in
 * CPUID or add rules after the preset.
 */
static const char *const preset_xen_strict[] = {
	"default deny",
	"IA32_TSC allow",
	"KVM_WALL_CLOCK-KVM_SYSTEM_TIME allow	# KVM PV MSRs, like Xen's own",
	"IA32_PLATFORM_ID r allow",
	"IA32_APIC_BASE allow",
	"IA32_FEATURE_CONTROL r allow		# ca88a43e66",
	"IA32_TSC_ADJUST allow",
	"IA32_SPEC_CTRL allow",
	"IA32_PRED_CMD w allow			# write-only",
	"IA32_BIOS_UPDT_TRIG w allow		# dropped; Windows writes it",
	"IA32_BIOS_SIGN_ID allow",
	"PLATFORM_INFO r allow",
	"IA32_ARCH_CAPABILITIES r allow",
	"IA32_FLUSH_CMD w allow			# write-only",
	"MISC_FEATURES_ENABLES allow",
	"IA32_SYSENTER_CS-IA32_SYSENTER_EIP allow",
	"IA32_MCG_CAP r allow",
	"IA32_MCG_STATUS-IA32_MCG_CTL allow",
	"0x400-0x47f allow			# MCi banks (vMCE)",
	"IA32_PERF_STATUS value=0,wgp		# read as zero: 3059178798",
	"IA32_PERF_CTL ignore			# RAZ, writes discarded",
	"IA32_THERM_STATUS value=0,wgp		# read as zero: 6280558224",
	"IA32_MISC_ENABLE allow",
	"IA32_DEBUGCTL allow",
	"IA32_MTRRCAP r allow",
	"IA32_MTRR_PHYSBASE0-IA32_MTRR_PHYSMASK7 allow",
	"IA32_MTRR_FIX64K_00000 allow",
	"IA32_MTRR_FIX16K_80000-IA32_MTRR_FIX16K_A0000 allow",
	"IA32_MTRR_FIX4K_C0000-IA32_MTRR_FIX4K_F8000 allow",
	"IA32_PAT allow",
	"IA32_MTRR_DEF_TYPE allow",
	"IA32_TSC_DEADLINE allow",
	"IA32_XSS allow",
	"0x40000000-0x400002ff allow		# Viridian and Xen ranges",
	"KVM_WALL_CLOCK_NEW-KVM_MIGRATION_CONTROL allow",
	"EFER-SFMASK allow",
	"FS_BASE-TSC_AUX allow",
	"K8_HWCR allow",
	"K8_PSTATE_LIMIT-K8_PSTATE7 ignore	# RAZ/WI as for Xen PV",
	"AMD64_VIRT_SPEC_CTRL allow",
	"AMD64_OSVW_ID_LENGTH-AMD64_OSVW_STATUS allow",
	"AMD64_DE_CFG r allow",
	NULL,
};

/*
 * xen-relaxed: xen-strict, but unknown MSRs read as 0 and writes are
 * dropped, like Xen's msr_relaxed (0570d7f276).  Unlike Xen, which only
 * relaxes MSRs the host can read, any index reads 0.
 */
static const char *const preset_xen_relaxed[] = {
	"preset:xen-strict",
	"default ignore",
	NULL,
};

/*
 * therm-compat: xen-strict plus reads of IA32_THERM_CONTROL (0x19a) and
 * IA32_ENERGY_PERF_BIAS (0x1b0), the two reads Xen dropped by accident
 * (msr.md section 3).  "allow" would be wrong under KVM: it emulates
 * neither MSR, so the guest would still get #GP (or an UNKNOWN exit).
 * Reads return the host CPU's value instead (host, via /dev/cpu/N/msr, the
 * pre-4.15 Xen behaviour; the guest sees e.g. a BIOS-left 0x10), or 0 when
 * the host read fails, which is what Linux assumes after a #GP anyway.
 * Writes still #GP: minivmm never writes host MSRs.  The value belongs to
 * whatever host CPU the vCPU last ran on: pin vCPUs if it matters.
 */
static const char *const preset_therm_compat[] = {
	"preset:xen-strict",
	"IA32_THERM_CONTROL r host=0",
	"IA32_ENERGY_PERF_BIAS r host=0",
	NULL,
};

static const struct {
	const char *name;
	const char *const *rules;
} presets[] = {
	{ "kvm", preset_kvm },
	{ "xen-strict", preset_xen_strict },
	{ "xen-relaxed", preset_xen_relaxed },
	{ "therm-compat", preset_therm_compat },
};


const char *const *msr_preset_rules(const char *name, size_t len,
				    const char **canonical)
{
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
		if (strlen(presets[i].name) == len &&
		    !strncasecmp(presets[i].name, name, len)) {
			*canonical = presets[i].name;
			return presets[i].rules;
		}
	}
	return NULL;
}

const char *msr_policy_help(void)
{
	return
"MSR policy rules (--msr-policy FILE|preset:NAME, --msr RULE, repeatable):\n"
"  MSR[-MSR] [r|w|rw] ACTION[,MODIFIER...]   # comment\n"
"  default allow|deny|ignore[,log][,count]\n"
"  preset:NAME\n"
"MSR: 0x hex, decimal or a name (IA32_TSC, EFER, MTRRcap, ...).\n"
"Actions: allow (KVM handles it), deny (#GP), ignore (read 0, drop writes),\n"
"  value=V (read V, drop writes), emulate[=V] (per-vCPU register),\n"
"  host[=V] (read the host CPU's MSR, V if that fails; drop writes).\n"
"Modifiers: log, count, wgp (writes #GP instead of being dropped).\n"
"Later rules win per MSR and direction; --msr rules apply after the file.\n"
"x2APIC MSRs 0x800-0x8ff are always KVM's (only allow is accepted).\n"
"Presets:\n"
"  kvm           KVM defaults: everything allowed\n"
"  xen-strict    unknown MSRs #GP, as Xen since 4.15; known = the MSRs Xen\n"
"                handles for HVM guests (RAZ for PERF_STATUS/CTL,\n"
"                THERM_STATUS, K8 P-states)\n"
"  xen-relaxed   xen-strict, but unknown MSRs read 0 and drop writes\n"
"                (Xen's msr_relaxed)\n"
"  therm-compat  xen-strict plus reads of IA32_THERM_CONTROL and\n"
"                IA32_ENERGY_PERF_BIAS from the host CPU (0 if unreadable);\n"
"                writes #GP\n";
}
