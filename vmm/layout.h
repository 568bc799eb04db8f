/* SPDX-License-Identifier: MIT */
/*
 * The minivmm machine's map, in one place: every guest-physical address,
 * I/O port and interrupt line of the machine.  What the guest side also
 * hard-codes (firmware, test payloads) is defined in firmware/lib/abi.h,
 * which both sides include and this header includes; the rest is defined
 * here.  Devices never know where they sit: the wiring in vmm/machine/
 * registers them at these addresses.
 *
 * Memory:
 *   0                 .. low_ram_end       RAM (low part, at most 3 GiB);
 *                                          ABI_LOW_MEM_MIN..END is what
 *                                          real-mode payloads may use, the
 *                                          firmware's own areas and the FDT
 *                                          are ABI_* too
 *   0xc0000000        .. 0xe0000000        32-bit PCI memory window
 *   0xe0000000        .. +buses MiB        PCIe ECAM window
 *   0xfe000000        .. +4 KiB            snapshot control page
 *   0xfeb00000        .. +4                test-exit register (ABI_)
 *   0xfec00000        .. +4 KiB            IOAPIC (ABI_, in KVM)
 *   0xfee00000        .. +4 KiB            LAPIC (ABI_, in KVM); MSIs
 *   0xfeffc000        .. 0xff000000        KVM's identity map and VMX TSS
 *   0xff000000        .. +64 KiB           pc-testdev memory
 *   4 GiB - fw_size   .. 4 GiB             firmware ROM (read-only slot)
 *   4 GiB             .. 4 GiB + high RAM  RAM (the rest)
 *   align(ram top, 1 GiB) .. +64 GiB       64-bit PCI memory window
 *
 * Ports:
 *   0x0010-0x001f  Xen platform legacy ports (--xen-platform)
 *   0x0064         i8042 command (reset only)
 *   0x0070-0x0071  CMOS RTC (ABI_)
 *   0x00e0-0x00eb  pc-testdev
 *   0x00f4         test-exit (ABI_)
 *   0x00f5         boot progress (ABI_)
 *   0x03f8-0x03ff  16550A UART, COM1 (ABI_)
 *   0x0510-0x0511  fw_cfg
 *   0x0600-0x060b  ACPI PM block (ABI_)
 *   0x0cf8-0x0cff  PCI config address/data (PCI_CONF1_ADDR_PORT, from
 *                  the PCI spec: firmware/lib/pci_regs.h)
 *   0x2000-0x2017  pc-testdev interrupt lines
 *   0xc000-0xffff  PCI I/O window
 *
 * Interrupts (GSIs): 0-15 ISA IRQs on the PICs and the IOAPIC (UART 4,
 * RTC 8, SCI 9: ABI_), 16-23 IOAPIC only (PCI INTx after the ABI_ swizzle),
 * 24 and up MSI routes (vmm/machine/gsi.c hands them out).
 *
 * The firmware learns the memory windows from the device tree.
 */
#ifndef MINIVMM_LAYOUT_H
#define MINIVMM_LAYOUT_H

#include "firmware/lib/abi.h"

#define GiB			(1ull << 30)
#define MiB			(1ull << 20)
#define KiB			(1ull << 10)

/* --- memory ----------------------------------------------------------- */

#define LAYOUT_LOW_RAM_MAX	0xc0000000ull	/* RAM above moves past 4G */
#define LAYOUT_PCI32_BASE	0xc0000000ull
#define LAYOUT_PCI32_SIZE	0x20000000ull
#define LAYOUT_ECAM_BASE	0xe0000000ull
#define LAYOUT_ECAM_MAX_BUSES	256
#define LAYOUT_SNAPCTL_BASE	0xfe000000ull	/* devices/test/snapctl.h */
#define LAYOUT_SNAPCTL_SIZE	0x1000ull
#define LAYOUT_APIC_SIZE	0x1000ull	/* each of IOAPIC and LAPIC */
#define LAYOUT_MSI_BASE		0xfee00000ull	/* MSI writes land here */
#define LAYOUT_PC_TESTDEV_IOMEM	0xff000000ull
#define LAYOUT_FW_MAX		(1ull * MiB)	/* ROM window below 4 GiB */
#define LAYOUT_HIGH_RAM_BASE	(4ull * GiB)
#define LAYOUT_PCI64_ALIGN	(1ull * GiB)
#define LAYOUT_PCI64_SIZE	(64ull * GiB)

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

/* --- I/O ports ---------------------------------------------------------- */

#define LAYOUT_XEN_LEGACY_PORT	0x10
#define LAYOUT_I8042_CMD_PORT	0x64
#define LAYOUT_PC_TESTDEV_PORT	0xe0
#define LAYOUT_FW_CFG_PORT	0x510
#define LAYOUT_PC_TESTDEV_IRQ_PORT 0x2000

/* Port window for PCI I/O BARs. */
#define LAYOUT_PCI_IO_BASE	0xc000u
#define LAYOUT_PCI_IO_SIZE	0x4000u

/* --- interrupts --------------------------------------------------------- */

#define LAYOUT_PIC_IRQS		16	/* GSIs also on the PICs */
#define LAYOUT_IOAPIC_PINS	24
#define LAYOUT_GSI_MSI_FIRST	LAYOUT_IOAPIC_PINS

#endif
