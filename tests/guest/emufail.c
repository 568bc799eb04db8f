// SPDX-License-Identifier: MIT
/*
 * emufail: executes xrstor in ring 0, an instruction that hosts which
 * emulate guest ring 0 (PVM) cannot emulate and minivmm does not complete
 * (a Linux guest is given 'noxsave' instead), so the VMM must stop with
 * its emulation-failure report.  Where the instruction simply runs
 * (hardware virtualization, QEMU) the payload says so and exits 1.
 */
#include "lib/guest.h"

#define CPUID1_ECX_XSAVE	(1u << 26)
#define CR4_OSXSAVE		(1ull << 18)

/* An XSAVE area: legacy region, header (XSTATE_BV = 0: init state). */
static uint8_t area[1024] __attribute__((aligned(64)));

int payload_main(const struct hvm_start_info *si)
{
	(void)si;
	/* This host's ring 0 sees XSAVE whatever CPUID says; elsewhere a
	 * CPU without it would #UD, which is not what this test is about. */
	if (!(cpuid(1, 0).ecx & CPUID1_ECX_XSAVE))
		gputs("emufail: CPUID hides XSAVE; trying anyway\n");
	write_cr4(read_cr4() | CR4_OSXSAVE);
	gputs("xrstor next\n");
	__asm__ volatile("xrstor %0" : : "m"(area), "a"(1u), "d"(0u) : "memory");
	gputs("emufail: xrstor executed\n");
	return 1;
}
