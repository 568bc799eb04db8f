// SPDX-License-Identifier: MIT
#include "vmm/boot/boot_pt.h"
#include "firmware/lib/abi.h"
#include "firmware/lib/le.h"

#include <stdio.h>
#include <string.h>

#define PT_PML4		ABI_BOOT_PT_BASE
#define PT_PDPT		(ABI_BOOT_PT_BASE + 0x1000u)
#define PT_PD(n)	(ABI_BOOT_PT_BASE + 0x2000u + (n) * 0x1000u)
#define PT_ENTRIES	512u
#define LARGE_PAGE	0x200000ull

_Static_assert(PT_PD(4) == ABI_BOOT_PT_END, "abi.h: PML4, PDPT, 4 PDs");

static void set(uint8_t *pt, uint64_t gpa, uint64_t value)
{
	le64_put(pt + (gpa - ABI_BOOT_PT_BASE), value);
}

int boot_pt_write(struct gmem *mem)
{
	uint8_t *pt = gmem_ptr(mem, ABI_BOOT_PT_BASE,
			       ABI_BOOT_PT_END - ABI_BOOT_PT_BASE);

	if (!pt) {
		fprintf(stderr, "minivmm: error: no RAM for the boot page "
			"tables at 0x%x\n", ABI_BOOT_PT_BASE);
		return -1;
	}
	/* Fresh RAM is zero; a second call must not leave old entries. */
	memset(pt, 0, ABI_BOOT_PT_END - ABI_BOOT_PT_BASE);
	set(pt, PT_PML4, PT_PDPT | ABI_BOOT_PTE_TABLE);
	set(pt, PT_PML4 + 511 * 8, PT_PDPT | ABI_BOOT_PTE_TABLE);
	for (uint32_t n = 0; n < 4; n++)
		set(pt, PT_PDPT + n * 8, PT_PD(n) | ABI_BOOT_PTE_TABLE);
	set(pt, PT_PDPT + 511 * 8, PT_PD(3) | ABI_BOOT_PTE_TABLE);
	for (uint64_t i = 0; i < 4 * PT_ENTRIES; i++)
		set(pt, PT_PD(0) + i * 8, i * LARGE_PAGE | ABI_BOOT_PTE_LARGE);
	return 0;
}
