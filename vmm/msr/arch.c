// SPDX-License-Identifier: MIT
#include "vmm/msr/arch.h"

/* Sorted, disjoint, inclusive. */
static const struct { uint32_t first, last; } arch[] = {
	{ 0x00000010, 0x00000012 },	/* TSC; KVM_WALL_CLOCK, SYSTEM_TIME */
	{ 0x0000001b, 0x0000001b },	/* APIC_BASE */
	{ 0x0000003b, 0x0000003b },	/* TSC_ADJUST */
	{ 0x0000008b, 0x0000008b },	/* BIOS_SIGN_ID (microcode rev.) */
	{ 0x000000fe, 0x000000fe },	/* MTRRcap */
	{ 0x00000174, 0x00000176 },	/* SYSENTER_CS, ESP, EIP */
	{ 0x00000179, 0x0000017a },	/* MCG_CAP, MCG_STATUS */
	{ 0x000001a0, 0x000001a0 },	/* MISC_ENABLE */
	{ 0x00000200, 0x0000020f },	/* MTRRphysBase0..MTRRphysMask7 */
	{ 0x00000250, 0x00000250 },	/* MTRRfix64K_00000 */
	{ 0x00000258, 0x00000259 },	/* MTRRfix16K */
	{ 0x00000268, 0x0000026f },	/* MTRRfix4K */
	{ 0x00000277, 0x00000277 },	/* PAT */
	{ 0x000002ff, 0x000002ff },	/* MTRRdefType */
	{ 0x000006e0, 0x000006e0 },	/* TSC_DEADLINE */
	{ 0x4b564d00, 0x4b564d08 },	/* KVM paravirtual MSRs */
	{ 0xc0000080, 0xc0000084 },	/* EFER, STAR, LSTAR, CSTAR, SFMASK */
	{ 0xc0000100, 0xc0000103 },	/* FS/GS/KERNEL_GS base, TSC_AUX */
};

#define N	(sizeof(arch) / sizeof(arch[0]))

bool msr_arch_covers(uint32_t index)
{
	for (unsigned int i = 0; i < N; i++)
		if (index >= arch[i].first && index <= arch[i].last)
			return true;
	return false;
}

uint64_t msr_arch_next_edge(uint64_t from)
{
	for (unsigned int i = 0; i < N; i++) {
		if (arch[i].first > from)
			return arch[i].first;
		if ((uint64_t)arch[i].last + 1 > from)
			return (uint64_t)arch[i].last + 1;
	}
	return 1ull << 32;
}
