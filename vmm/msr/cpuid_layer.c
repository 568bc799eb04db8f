// SPDX-License-Identifier: MIT
#include "vmm/msr/cpuid_layer.h"
#include "vmm/host/host.h"
#include "vmm/x86/cpuid.h"

#include <stdio.h>

#define EAX	0
#define EBX	1
#define EDX	3

static bool has(const struct kvm_cpuid2 *c, uint32_t leaf, int reg,
		unsigned int bit)
{
	return cpuid_table_has(c, leaf, 0, reg, bit);
}

int msr_cpuid_layer(struct msr_policy *p, const struct kvm_cpuid2 *c,
		    struct host *h, char *err, size_t errlen)
{
	const struct {
		const char *name;
		bool offered;
	} gated[] = {
		{ "IA32_SPEC_CTRL", has(c, 7, EDX, 26) || has(c, 7, EDX, 27) ||
		  has(c, 7, EDX, 31) || has(c, 0x80000008u, EBX, 14) ||
		  has(c, 0x80000008u, EBX, 15) ||
		  has(c, 0x80000008u, EBX, 24) },
		{ "IA32_PRED_CMD", has(c, 7, EDX, 26) ||
		  has(c, 0x80000008u, EBX, 12) ||
		  has(c, 0x80000021u, EAX, 27) },
		{ "IA32_FLUSH_CMD", has(c, 7, EDX, 28) },
		{ "IA32_ARCH_CAPABILITIES", has(c, 7, EDX, 29) },
	};
	unsigned int line = 0;

	for (size_t i = 0; i < sizeof(gated) / sizeof(gated[0]); i++) {
		const char *action = gated[i].offered ?
				     host_msr_offered(h, gated[i].name) :
				     "deny";
		char rule[64];

		if (!action)
			continue;	/* KVM's, as the CPUID says */
		snprintf(rule, sizeof(rule), "%s %s", gated[i].name, action);
		if (msr_policy_add_line(p, "cpuid", ++line, rule, err, errlen))
			return -1;
	}
	return 0;
}
