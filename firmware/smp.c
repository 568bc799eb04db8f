// SPDX-License-Identifier: MIT
/*
 * AP start-up (see smp.h).  xAPIC in MMIO at ABI_LAPIC_BASE.  One INIT
 * and one SIPI, both "all excluding self": KVM's in-kernel APIC needs no
 * delays and no second SIPI, and broadcasts spare a loop over APIC IDs.
 */
#include <string.h>

#include "firmware/entry.h"
#include "firmware/io.h"
#include "firmware/lib/abi.h"
#include "firmware/print.h"
#include "firmware/smp.h"

#define APIC_ICR_LO		0x300
#define ICR_INIT		0x00000500u
#define ICR_STARTUP		0x00000600u
#define ICR_LEVEL_ASSERT	0x00004000u
#define ICR_ALL_BUT_SELF	0x000c0000u
/* How long the APs may take, in TSC cycles: at least 1 s at any TSC
 * frequency up to 4 GHz.  Bounded by time, not iterations: the emulated
 * loop is 100 times slower here than on a normal host. */
#define AP_TIMEOUT_TSC		(1ull << 32)

extern const char ap_trampoline[], ap_trampoline_end[];

_Static_assert((FW_AP_ADDR & 0xfff) == 0 && FW_AP_ADDR < 0x100000,
	       "SIPI vector must be a page below 1 MiB");
_Static_assert(FW_AP_COUNT < FW_AP_MSRS, "AP page layout");

static void icr(uint32_t v)
{
	mmio_write32(ABI_LAPIC_BASE + APIC_ICR_LO, v);
}

void smp_start_aps(const struct machine *m)
{
	volatile uint16_t *count = phys_ptr(FW_AP_COUNT);
	unsigned int want = m->n_cpus - 1;
	uint64_t deadline;

	if (!want)
		return;
	if (ap_trampoline_end - ap_trampoline > FW_AP_COUNT - FW_AP_ADDR)
		fw_fail(ABI_FW_FAIL_INTERNAL, "AP trampoline too large");
	memcpy(phys_ptr(FW_AP_ADDR), ap_trampoline,
	       (size_t)(ap_trampoline_end - ap_trampoline));
	*count = 0;
	icr(ICR_ALL_BUT_SELF | ICR_LEVEL_ASSERT | ICR_INIT);
	icr(ICR_ALL_BUT_SELF | ICR_LEVEL_ASSERT | ICR_STARTUP |
	    (FW_AP_ADDR >> 12));
	deadline = rdtsc() + AP_TIMEOUT_TSC;
	while (*count < want) {
		if (rdtsc() > deadline)
			fw_fail(ABI_FW_FAIL_CPUS, "only %u of %u APs started",
				*count, want);
		__asm__ volatile("pause");
	}
	if (*count != want)
		fw_fail(ABI_FW_FAIL_CPUS, "%u APs started, %u expected",
			*count, want);
}
