/* SPDX-License-Identifier: MIT */
/*
 * Every guest-physical constant of the minivmm machine, in one place.
 *
 *   0                 .. low_ram_end       RAM (low part, at most 3 GiB)
 *   0xc0000000        .. 0xe0000000        32-bit PCI memory window
 *   0xe0000000        .. +buses MiB        PCIe ECAM window
 *   0xfe000000        .. +4 KiB            snapshot control page
 *   0xfeb00000        .. +4                test-exit register (MMIO)
 *   0xfec00000                             IOAPIC
 *   0xfee00000                             LAPIC
 *   4 GiB - fw_size   .. 4 GiB             firmware ROM (read-only slot)
 *   4 GiB             .. 4 GiB + high RAM  RAM (the rest)
 *   align(ram top, 1 GiB) .. +64 GiB       64-bit PCI memory window
 *
 * The firmware learns all of this from the device tree.
 */
#ifndef MINIVMM_LAYOUT_H
#define MINIVMM_LAYOUT_H

#include "firmware/lib/abi.h"

#define GiB			(1ull << 30)
#define MiB			(1ull << 20)
#define KiB			(1ull << 10)

#define LAYOUT_LOW_RAM_MAX	0xc0000000ull	/* RAM above moves past 4G */
#define LAYOUT_PCI32_BASE	0xc0000000ull
#define LAYOUT_PCI32_SIZE	0x20000000ull
#define LAYOUT_ECAM_BASE	0xe0000000ull
#define LAYOUT_ECAM_MAX_BUSES	256
#define LAYOUT_SNAPCTL_BASE	0xfe000000ull	/* devices/test/snapctl.h */
#define LAYOUT_SNAPCTL_SIZE	0x1000ull
#define LAYOUT_IOAPIC_BASE	0xfec00000ull
#define LAYOUT_LAPIC_BASE	0xfee00000ull
#define LAYOUT_FW_MAX		(1ull * MiB)	/* ROM window below 4 GiB */
#define LAYOUT_HIGH_RAM_BASE	(4ull * GiB)
#define LAYOUT_PCI64_ALIGN	(1ull * GiB)
#define LAYOUT_PCI64_SIZE	(64ull * GiB)

/* I/O port window for PCI I/O BARs. */
#define LAYOUT_PCI_IO_BASE	0xc000u
#define LAYOUT_PCI_IO_SIZE	0x4000u

/* KVM needs three pages for the VMX TSS and one for the identity map. */
#define LAYOUT_TSS_ADDR		0xfeffd000ull
#define LAYOUT_IDENT_MAP_ADDR	0xfeffc000ull

/* The 64-bit PCI window starts at the first 1 GiB boundary above RAM. */
static inline unsigned long long layout_pci64_base(unsigned long long
						   high_ram_end)
{
	unsigned long long top = high_ram_end > LAYOUT_HIGH_RAM_BASE ?
				 high_ram_end : LAYOUT_HIGH_RAM_BASE;

	return (top + LAYOUT_PCI64_ALIGN - 1) & ~(LAYOUT_PCI64_ALIGN - 1);
}

#define LAYOUT_RAM_MIN		(2ull * MiB)
#define LAYOUT_RAM_DEFAULT	(256ull * MiB)

#endif
