/* SPDX-License-Identifier: MIT */
/*
 * ACPI table builder: RSDP (rev 2), XSDT, FADT (rev 6), FACS, DSDT, MADT
 * and MCFG for the minivmm machine, written into a caller buffer that the
 * guest will see at a caller-given guest-physical address.
 *
 * Platform contract the VMM must implement (ports and lines: abi.h):
 *   - ACPI PM device, I/O ports (all little-endian, "always in ACPI mode":
 *     FADT SMI_CMD = 0, so SCI_EN in PM1a_CNT must read as 1):
 *       PM1a_EVT  0x600, 4 bytes: PM1_STS (16 bit, write-1-to-clear) at
 *                 0x600, PM1_EN (16 bit) at 0x602.
 *       PM1a_CNT  0x604, 2 bytes: writing SLP_TYP (bits 12:10) =
 *                 ACPI_SLP_TYP_S5 together with SLP_EN (bit 13) powers
 *                 the machine off; ACPI_SLP_TYP_S3 suspends it to RAM
 *                 (woken by the RTC alarm if PM1_EN.RTC_EN; the boot CPU
 *                 resumes in real mode at the FACS waking vector).
 *                 Bit 0 (SCI_EN) reads as 1.
 *       PM_TMR    0x608, 4 bytes: free-running 32-bit counter at
 *                 3.579545 MHz (FADT TMR_VAL_EXT is set).
 *     The fixed power button: PWRBTN_STS (bit 8 of PM1_STS) set when
 *     it is pressed; with PWRBTN_EN (bit 8 of PM1_EN) the SCI is raised
 *     while the status is set.  No GPE block, no PM1b/PM2, no fixed
 *     sleep button.
 *   - SCI: ISA IRQ 9 = GSI 9, level-triggered, active-high (MADT override).
 *   - ISA IRQ 0 (PIT) is GSI 2 (MADT override); other ISA IRQs map 1:1.
 *   - One IOAPIC, id 0, GSI base 0; LAPIC ids 0..ncpus-1, UID = id.
 *   - PCI INTx of device D on bus 0, pin P (0 = INTA .. 3 = INTD), goes to
 *     GSI 16 + ((D + P) & 3), level-triggered, active-low (the _PRT GSI
 *     convention).  KVM's IOAPIC ignores polarity: assert with level 1.
 *
 * Layout from the base (which must be 64-byte aligned, below 4 GiB):
 * RSDP at offset 0 (so the RSDP address is the base), then FACS, XSDT,
 * FADT, MADT, MCFG (unless no_ecam) and the DSDT last.
 *
 * Freestanding: <stdint.h>, <stddef.h>, <stdbool.h> only.
 */
#ifndef MINIVMM_ACPI_BUILD_H
#define MINIVMM_ACPI_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ACPI_SLP_TYP_S5		5	/* the _S5 package's SLP_TYPa */
#define ACPI_SLP_TYP_S3		1	/* _S3, as QEMU's PIIX4 has it */
#define ACPI_PM1_TMR_STS	(1u << 0)
#define ACPI_PM1_RTC_STS	(1u << 10)
#define ACPI_PM1_WAK_STS	(1u << 15)
#define ACPI_PM1_RTC_EN		(1u << 10)	/* in PM1_EN */
#define ACPI_PM1_PWRBTN_STS	(1u << 8)
#define ACPI_PM1_PWRBTN_EN	(1u << 8)	/* in PM1_EN */
#define ACPI_RTC_CENTURY	0x32	/* CMOS index, FADT CENTURY */
#define ACPI_PM1_SCI_EN		(1u << 0)
#define ACPI_PM1_SLP_TYP_SHIFT	10
#define ACPI_PM1_SLP_EN		(1u << 13)

#define ACPI_MAX_UARTS		4	/* COM1..COM4 */

/* xAPIC ids are 8 bits and 0xff is the broadcast id. */
#define ACPI_MAX_CPUS		255

/* FADT IAPC_BOOT_ARCH bits (acpi_config.iapc_boot_arch). */
#define ACPI_BOOT_LEGACY_DEVICES	(1u << 0)
#define ACPI_BOOT_8042			(1u << 1)
#define ACPI_BOOT_NO_VGA		(1u << 2)
#define ACPI_BOOT_NO_MSI		(1u << 3)
#define ACPI_BOOT_NO_CMOS_RTC		(1u << 5)

/* Return values. */
#define ACPI_OK			0
#define ACPI_ERR_NOSPACE	(-1)	/* buffer too small */
#define ACPI_ERR_CPUS		(-2)	/* ncpus is 0 or > ACPI_MAX_CPUS */
#define ACPI_ERR_CONFIG		(-3)	/* an impossible window/port/base */

struct acpi_config {
	uint32_t ncpus;
	uint32_t lapic_base;		/* ABI_LAPIC_BASE */
	uint32_t ioapic_base;		/* ABI_IOAPIC_BASE */
	uint64_t ecam_base;		/* LAYOUT_ECAM_BASE, 1 MiB aligned */
	uint32_t ecam_buses;		/* 1..256: buses 0..ecam_buses-1 */
	/* No ECAM (--ecam off): no MCFG, no _CBA, no ECAM motherboard
	 * resource; ecam_base is ignored, ecam_buses still gives the root
	 * bus range. */
	bool no_ecam;
	/* MMIO the VMM keeps for itself (the snapshot control page): a
	 * motherboard resource, so the OS places nothing there.  Size 0:
	 * none. */
	uint64_t snapctl_base, snapctl_size;
	/* PCI I/O BAR window; must lie inside 0xd00..0xffff. */
	uint32_t pci_io_base, pci_io_size;
	/* 32-bit and 64-bit PCI memory windows; pci64_size 0 = none. */
	uint64_t pci32_base, pci32_size;
	uint64_t pci64_base, pci64_size;
	/* Bit D set: the _PRT lists INTA-INTD of device D on bus 0.  ~0u
	 * covers every slot; fewer entries make Linux's boot cheaper. */
	uint32_t prt_slots;
	uint8_t sci_irq;		/* ABI_ACPI_SCI_IRQ; 1..15, not 2 */
	uint16_t pm1a_evt_port;		/* ABI_ACPI_PM1A_EVT_PORT */
	uint16_t pm1a_cnt_port;		/* ABI_ACPI_PM1A_CNT_PORT */
	uint16_t pm_tmr_port;		/* ABI_ACPI_PM_TMR_PORT */
	uint16_t iapc_boot_arch;	/* ACPI_BOOT_* bits */
	/* A CMOS RTC at ABI_RTC_PORT, ABI_RTC_IRQ (PNP0B00 in the DSDT,
	 * FADT CENTURY = ACPI_RTC_CENTURY); clear ACPI_BOOT_NO_CMOS_RTC. */
	bool rtc;
	/* 16550A UARTs, COM1 first (Device COMn, PNP0501, in the DSDT);
	 * port 0 ends the list.  Ports below 0xd00, IRQs 1..15 but 2. */
	struct acpi_uart {
		uint16_t port;
		uint8_t irq;
	} uart[ACPI_MAX_UARTS];
};

/*
 * Build all tables into buf[0..size) for guest-physical address gpa.
 * On success returns ACPI_OK, sets *rsdp to the RSDP's guest-physical
 * address and *used to the bytes written.  On error nothing useful is in
 * buf, and *rsdp / *used are left alone.
 */
int acpi_build(const struct acpi_config *cfg, void *buf, size_t size,
	       uint64_t gpa, uint64_t *rsdp, size_t *used);

/* A static message for an ACPI_* return value. */
const char *acpi_build_strerror(int err);

#endif
