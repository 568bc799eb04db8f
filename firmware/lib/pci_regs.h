/* SPDX-License-Identifier: MIT */
/*
 * PCI register numbers and bit definitions shared by the firmware and the
 * VMM's PCI model: the type-0 configuration header, capability IDs, the
 * PCI Express capability, and the CF8 (type-1) and ECAM address encodings.
 * Names follow Linux's include/uapi/linux/pci_regs.h where one exists.
 *
 * Freestanding: macros only, no types, no functions.
 */
#ifndef MINIVMM_PCI_REGS_H
#define MINIVMM_PCI_REGS_H

#define PCI_CFG_SPACE_SIZE	256	/* conventional header + capabilities */
#define PCI_CFG_SPACE_EXP_SIZE	4096	/* with PCIe extended space */

/* Type-0 header. */
#define PCI_VENDOR_ID		0x00	/* 16 bits */
#define PCI_DEVICE_ID		0x02	/* 16 bits */
#define PCI_COMMAND		0x04	/* 16 bits */
#define  PCI_COMMAND_IO		0x0001	/* decode I/O BARs */
#define  PCI_COMMAND_MEMORY	0x0002	/* decode memory BARs */
#define  PCI_COMMAND_MASTER	0x0004	/* bus mastering (DMA) */
#define  PCI_COMMAND_PARITY	0x0040
#define  PCI_COMMAND_SERR	0x0100
#define  PCI_COMMAND_INTX_DISABLE 0x0400
#define PCI_STATUS		0x06	/* 16 bits */
#define  PCI_STATUS_INTERRUPT	0x0008	/* INTx asserted (read-only) */
#define  PCI_STATUS_CAP_LIST	0x0010	/* PCI_CAPABILITY_LIST is valid */
#define  PCI_STATUS_PARITY	0x0100	/* master data parity error, RW1C */
#define  PCI_STATUS_SIG_TARGET_ABORT 0x0800	/* RW1C */
#define  PCI_STATUS_REC_TARGET_ABORT 0x1000	/* RW1C */
#define  PCI_STATUS_REC_MASTER_ABORT 0x2000	/* RW1C */
#define  PCI_STATUS_SIG_SYSTEM_ERROR 0x4000	/* RW1C */
#define  PCI_STATUS_DETECTED_PARITY 0x8000	/* RW1C */
#define  PCI_STATUS_ERROR_BITS	0xf900	/* all RW1C error bits */
#define PCI_REVISION_ID		0x08	/* 8 bits */
#define PCI_CLASS_PROG		0x09	/* 8 bits: programming interface */
#define PCI_CLASS_DEVICE	0x0a	/* 16 bits: base class << 8 | sub */
#define PCI_CACHE_LINE_SIZE	0x0c
#define PCI_LATENCY_TIMER	0x0d
#define PCI_HEADER_TYPE		0x0e
#define  PCI_HEADER_TYPE_MASK	0x7f
#define  PCI_HEADER_TYPE_NORMAL	0x00
#define  PCI_HEADER_TYPE_MFD	0x80	/* multi-function device */
#define PCI_BIST		0x0f
#define PCI_BASE_ADDRESS_0	0x10	/* six 32-bit BARs, 0x10-0x27 */
#define PCI_BASE_ADDRESS_5	0x24
#define PCI_NUM_BARS		6
#define  PCI_BASE_ADDRESS_SPACE_IO	0x01
#define  PCI_BASE_ADDRESS_MEM_TYPE_32	0x00
#define  PCI_BASE_ADDRESS_MEM_TYPE_64	0x04
#define  PCI_BASE_ADDRESS_MEM_TYPE_MASK	0x06
#define  PCI_BASE_ADDRESS_MEM_PREFETCH	0x08
#define  PCI_BASE_ADDRESS_MEM_MASK	0xfffffff0u
#define  PCI_BASE_ADDRESS_IO_MASK	0xfffffffcu
#define PCI_CARDBUS_CIS		0x28
#define PCI_SUBSYSTEM_VENDOR_ID	0x2c
#define PCI_SUBSYSTEM_ID	0x2e
#define PCI_ROM_ADDRESS		0x30
#define PCI_CAPABILITY_LIST	0x34	/* 8 bits: offset of the first cap */
#define PCI_INTERRUPT_LINE	0x3c
#define PCI_INTERRUPT_PIN	0x3d	/* 0 none, 1..4 = INTA..INTD */
#define PCI_MIN_GNT		0x3e
#define PCI_MAX_LAT		0x3f
#define PCI_STD_HEADER_SIZEOF	0x40	/* capabilities start here */

/* Class codes (base << 16 | sub << 8 | prog-if). */
#define PCI_CLASS_BRIDGE_HOST	0x060000
#define PCI_CLASS_OTHERS	0xff0000

/* Capability list: each entry starts with ID (byte 0) and next (byte 1). */
#define PCI_CAP_LIST_ID		0
#define PCI_CAP_LIST_NEXT	1
#define PCI_CAP_ID_PM		0x01
#define PCI_CAP_ID_MSI		0x05
#define PCI_CAP_ID_VNDR		0x09
#define PCI_CAP_ID_EXP		0x10	/* PCI Express */
#define PCI_CAP_ID_MSIX		0x11

/* PCI Express capability (version 2), offsets from the capability. */
#define PCI_EXP_FLAGS		0x02	/* 16 bits: version, port type */
#define  PCI_EXP_FLAGS_VERS	0x000f
#define  PCI_EXP_FLAGS_TYPE	0x00f0
#define  PCI_EXP_TYPE_ENDPOINT	0x0
#define  PCI_EXP_TYPE_RC_END	0x9	/* root complex integrated endpoint */
#define PCI_EXP_DEVCAP		0x04
#define PCI_EXP_DEVCTL		0x08	/* 16 bits */
#define  PCI_EXP_DEVCTL_CERE	0x0001
#define  PCI_EXP_DEVCTL_NFERE	0x0002
#define  PCI_EXP_DEVCTL_FERE	0x0004
#define  PCI_EXP_DEVCTL_URRE	0x0008
#define  PCI_EXP_DEVCTL_RELAX_EN 0x0010
#define  PCI_EXP_DEVCTL_PAYLOAD	0x00e0
#define  PCI_EXP_DEVCTL_EXT_TAG	0x0100
#define  PCI_EXP_DEVCTL_NOSNOOP_EN 0x0800
#define  PCI_EXP_DEVCTL_READRQ	0x7000
#define  PCI_EXP_DEVCTL_READRQ_512B 0x2000
#define PCI_EXP_DEVSTA		0x0a	/* 16 bits */
#define  PCI_EXP_DEVSTA_CED	0x0001	/* RW1C error bits 0-3 */
#define  PCI_EXP_DEVSTA_NFED	0x0002
#define  PCI_EXP_DEVSTA_FED	0x0004
#define  PCI_EXP_DEVSTA_URD	0x0008
#define PCI_EXP_LNKCAP		0x0c
#define PCI_EXP_DEVCAP2		0x24
#define PCI_EXP_DEVCTL2		0x28
#define PCI_CAP_EXP_SIZEOF	0x3c	/* version 2 structure */

/* Extended capabilities (offset >= 0x100): 32-bit header
 * ID [15:0], version [19:16], next [31:20]. */
#define PCI_EXT_CAP_START	0x100
#define PCI_EXT_CAP_ID(h)	((h) & 0xffff)
#define PCI_EXT_CAP_VER(h)	(((h) >> 16) & 0xf)
#define PCI_EXT_CAP_NEXT(h)	(((h) >> 20) & 0xffc)
#define PCI_EXT_CAP_ID_DSN	0x0003	/* device serial number */
#define PCI_EXT_CAP_ID_VNDR	0x000b
#define PCI_EXT_CAP_DSN_SIZEOF	12

/* Bus/device/function numbers: bdf = bus << 8 | dev << 3 | fn. */
#define PCI_BDF(bus, dev, fn)	((((bus) & 0xff) << 8) | (((dev) & 0x1f) << 3) \
				 | ((fn) & 0x7))
#define PCI_BDF_BUS(bdf)	(((bdf) >> 8) & 0xff)
#define PCI_BDF_DEVFN(bdf)	((bdf) & 0xff)
#define PCI_DEVFN(dev, fn)	((((dev) & 0x1f) << 3) | ((fn) & 0x7))
#define PCI_SLOT(devfn)		(((devfn) >> 3) & 0x1f)
#define PCI_FUNC(devfn)		((devfn) & 0x7)

/* Configuration mechanism #1: ports 0xCF8 (address) and 0xCFC (data). */
#define PCI_CONF1_ADDR_PORT	0xcf8
#define PCI_CONF1_DATA_PORT	0xcfc
#define PCI_CONF1_ENABLE	0x80000000u
#define PCI_CONF1_BUS_SHIFT	16
#define PCI_CONF1_DEVFN_SHIFT	8
#define PCI_CONF1_REG_MASK	0xfcu
/* AMD "extended configuration space" access through CF8 (family 10h+):
 * register bits 11:8 travel in address bits 27:24. */
#define PCI_CONF1_EXT_REG_MASK	0x0f000000u
#define PCI_CONF1_EXT_REG_SHIFT	16	/* (reg & 0xf00) << 16 */
#define PCI_CONF1_ADDRESS(bus, devfn, reg) \
	(PCI_CONF1_ENABLE | (((reg) & 0xf00u) << PCI_CONF1_EXT_REG_SHIFT) | \
	 (((bus) & 0xffu) << 16) | (((devfn) & 0xffu) << 8) | ((reg) & 0xfcu))

/* ECAM: 4 KiB per function, 1 MiB per bus. */
#define PCI_ECAM_BUS_SHIFT	20
#define PCI_ECAM_DEVFN_SHIFT	12
#define PCI_ECAM_OFFSET(bus, devfn, reg) \
	((((bus) & 0xffull) << 20) | (((devfn) & 0xffull) << 12) | \
	 ((reg) & 0xfffull))

#endif
