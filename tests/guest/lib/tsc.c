// SPDX-License-Identifier: MIT
/*
 * TSC frequency discovery from CPUID, in order of trust:
 *   0x40000010 EAX  hypervisor timing leaf (VMware, some KVM VMMs), kHz
 *   0x15            TSC/crystal ratio EBX/EAX times crystal Hz in ECX
 *   0x16 EAX        processor base MHz (Intel; equals the TSC rate on
 *                   parts with an invariant TSC, an approximation else)
 * Each leaf is used only if the maximum leaf says it exists.
 */
#include "guest.h"

#define HV_BASE_LEAF	0x40000000u
#define HV_TIMING_LEAF	0x40000010u
#define CPUID1_ECX_HV	(1u << 31)

static uint32_t from_hypervisor(void)
{
	struct cpuid_regs r;

	if (!(cpuid(1, 0).ecx & CPUID1_ECX_HV))
		return 0;
	r = cpuid(HV_BASE_LEAF, 0);
	if (r.eax < HV_TIMING_LEAF || r.eax > HV_BASE_LEAF + 0xffff)
		return 0;
	return cpuid(HV_TIMING_LEAF, 0).eax;
}

static uint32_t from_leaf15(uint32_t max)
{
	struct cpuid_regs r;

	if (max < 0x15)
		return 0;
	r = cpuid(0x15, 0);
	if (!r.eax || !r.ebx || !r.ecx)
		return 0;
	return (uint32_t)((uint64_t)r.ecx * r.ebx / r.eax / 1000);
}

static uint32_t from_leaf16(uint32_t max)
{
	if (max < 0x16)
		return 0;
	return (cpuid(0x16, 0).eax & 0xffff) * 1000;
}

uint32_t tsc_khz(const char **source)
{
	uint32_t max = cpuid(0, 0).eax;
	uint32_t khz;
	const char *src = "none";

	if ((khz = from_hypervisor()))
		src = "cpuid 0x40000010";
	else if ((khz = from_leaf15(max)))
		src = "cpuid 0x15";
	else if ((khz = from_leaf16(max)))
		src = "cpuid 0x16";
	if (source)
		*source = src;
	return khz;
}
