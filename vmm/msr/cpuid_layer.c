// SPDX-License-Identifier: MIT
#include "vmm/msr/cpuid_layer.h"
#include "vmm/x86/cpuid.h"

#define EAX	0
#define EBX	1
#define EDX	3

static bool has(const struct kvm_cpuid2 *c, uint32_t leaf, int reg,
		unsigned int bit)
{
	return cpuid_table_has(c, leaf, 0, reg, bit);
}

int msr_cpuid_layer(struct msr_policy *p, const struct kvm_cpuid2 *c,
		    bool ring0_emulated, char *err, size_t errlen)
{
	const char *rules[4];
	unsigned int n = 0;
	bool spec = has(c, 7, EDX, 26) || has(c, 7, EDX, 27) ||
		    has(c, 7, EDX, 31) || has(c, 0x80000008u, EBX, 14) ||
		    has(c, 0x80000008u, EBX, 15) ||
		    has(c, 0x80000008u, EBX, 24);
	bool ibpb = has(c, 7, EDX, 26) || has(c, 0x80000008u, EBX, 12) ||
		    has(c, 0x80000021u, EAX, 27);

	if (!spec)
		rules[n++] = "IA32_SPEC_CTRL deny";
	else if (ring0_emulated)
		rules[n++] = "IA32_SPEC_CTRL emulate";
	if (!ibpb)
		rules[n++] = "IA32_PRED_CMD deny";
	if (!has(c, 7, EDX, 28))
		rules[n++] = "IA32_FLUSH_CMD deny";
	if (!has(c, 7, EDX, 29))
		rules[n++] = "IA32_ARCH_CAPABILITIES deny";
	for (unsigned int i = 0; i < n; i++)
		if (msr_policy_add_line(p, "cpuid", i + 1, rules[i], err,
					errlen))
			return -1;
	return 0;
}
