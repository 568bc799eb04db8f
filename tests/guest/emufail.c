// SPDX-License-Identifier: MIT
/*
 * emufail: executes cmpxchg16b in ring 0, an instruction that hosts which
 * emulate guest ring 0 (e.g. PVM) cannot emulate, so the VMM must report
 * an emulation failure.  Where the instruction simply runs (hardware
 * virtualization, QEMU) the payload says so and exits 1.
 */
#include "lib/guest.h"

#define CPUID1_ECX_CX16	(1u << 13)

static uint64_t buf[2] __attribute__((aligned(16))) = { 1, 2 };

int payload_main(const struct hvm_start_info *si)
{
	uint64_t lo = 1, hi = 2;

	(void)si;
	if (!(cpuid(1, 0).ecx & CPUID1_ECX_CX16)) {
		gputs("emufail: CPUID reports no cmpxchg16b\n");
		return 1;
	}
	gputs("cmpxchg16b next\n");
	/* Compare rdx:rax with buf; equal, so store rcx:rbx. */
	__asm__ volatile("lock cmpxchg16b %0"
			 : "+m"(buf), "+a"(lo), "+d"(hi)
			 : "b"(3ull), "c"(4ull) : "memory", "cc");
	gprintf("emufail: cmpxchg16b executed (buf %llu %llu)\n",
		(unsigned long long)buf[0], (unsigned long long)buf[1]);
	return 1;
}
