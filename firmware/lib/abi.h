/* SPDX-License-Identifier: MIT */
/*
 * The contract between the VMM and the guest side (firmware and test
 * payloads): the fixed I/O ports, addresses and interrupt lines both sides
 * hard-code (the part of the machine map in vmm/layout.h that the guest
 * side shares), where the machine description lives, and the names of the
 * device-tree properties.  Everything else about the machine is read from
 * the device tree, never assumed.
 *
 * Freestanding: only <stdint.h> types, no functions.
 */
#ifndef MINIVMM_ABI_H
#define MINIVMM_ABI_H

/* 16550A UART (COM1) and its ISA IRQ. */
#define ABI_UART_PORT		0x3f8
#define ABI_UART_IRQ		4
/* COM2, when the VMM has one (the FDT's serial@2f8 node says so). */
#define ABI_UART2_PORT		0x2f8
#define ABI_UART2_IRQ		3

/* CMOS RTC: index and data ports, ISA IRQ (the DSDT's PNP0B00). */
#define ABI_RTC_PORT		0x70
#define ABI_RTC_IRQ		8

/* ACPI PM block, as the FADT describes it: PM1a event (status, enable),
 * PM1a control, PM timer; the SCI (raised for the power button only). */
#define ABI_ACPI_PM_PORT	0x600
#define ABI_ACPI_PM_PORTS_LEN	0x0c	/* 0x600..0x60b */
#define ABI_ACPI_PM1A_EVT_PORT	ABI_ACPI_PM_PORT
#define ABI_ACPI_PM1A_CNT_PORT	(ABI_ACPI_PM_PORT + 4)
#define ABI_ACPI_PM_TMR_PORT	(ABI_ACPI_PM_PORT + 8)
#define ABI_ACPI_SCI_IRQ	9

/* The interrupt controllers, at their architectural defaults. */
#define ABI_IOAPIC_BASE		0xfec00000u
#define ABI_LAPIC_BASE		0xfee00000u

/* PCI INTx: pin (0 = INTA, the Interrupt Pin register minus 1) of device
 * dev on bus 0 raises IOAPIC GSI 16 + ((dev + pin) & 3); the firmware's
 * _PRT and Interrupt Line registers say so, the VMM raises them there. */
#define ABI_PCI_INTX_GSI_BASE	16
#define ABI_PCI_INTX_GSI(dev, pin) \
	(ABI_PCI_INTX_GSI_BASE + (((dev) + (pin)) & 3))

/* Conventional memory below 1 MiB: the real-mode IVT and BIOS data area
 * end at 0x500, the VGA hole and BIOS area start at 640 KiB. */
#define ABI_LOW_MEM_MIN		0x500u
#define ABI_LOW_MEM_END		0xa0000u

/* Test-exit port: a write of V (8, 16 or 32 bits) ends the VM with status
 * V & 0xff (or, with --exit-style qemu, (V << 1 | 1) & 0xff). */
#define ABI_TEST_EXIT_PORT	0xf4
/* The same register at a guest-physical address, for guest code that
 * cannot do port I/O: Linux user space (where ring-3 port I/O faults, as
 * on PVM hosts) reaches it with `busybox devmem 0xfeb00000 32 V` through
 * /dev/mem.  Nothing else decodes that page and no table lists it. */
#define ABI_TEST_EXIT_MMIO	0xfeb00000u

/* Boot-progress port: a byte write records a milestone with a host time. */
#define ABI_PROGRESS_PORT	0xf5

/* Milestone bytes written to ABI_PROGRESS_PORT (0x01-0x3f: firmware,
 * 0x40-0x7f: payloads; 0x80-0xff: free for tests). */
#define ABI_MS_FW_ENTRY		0x01	/* first instruction after reset */
#define ABI_MS_FW_PROTECTED	0x02	/* 32-bit protected mode */
#define ABI_MS_FW_LONG		0x03	/* 64-bit long mode, C entry */
#define ABI_MS_FW_FDT		0x04	/* machine description parsed */
#define ABI_MS_FW_PCI		0x05	/* PCI enumerated, BARs assigned */
#define ABI_MS_FW_MTRR		0x06	/* MTRRs programmed on all CPUs */
#define ABI_MS_FW_TABLES	0x07	/* e820/ACPI/SMBIOS built */
#define ABI_MS_FW_HANDOFF	0x08	/* about to jump to the payload */
#define ABI_MS_PAYLOAD_ENTRY	0x40	/* payload's first instruction */
#define ABI_MS_PAYLOAD_MAIN	0x41	/* payload's C main */
#define ABI_MS_INIT_START	0x42	/* Linux init script started */

/* Firmware failure statuses written to ABI_TEST_EXIT_PORT.  The VMM maps a
 * test-exit value of ABI_FW_FAIL_BASE + reason to its own "firmware error"
 * exit status; payload tests only use small values (0 pass, 1 fail). */
#define ABI_FW_FAIL_MAGIC	0x4d460000u	/* 'MF' << 16 | reason */
#define ABI_FW_FAIL_FDT		1	/* machine description missing/bad */
#define ABI_FW_FAIL_PAYLOAD	2	/* payload failed validation */
#define ABI_FW_FAIL_WINDOW	3	/* impossible device window */
#define ABI_FW_FAIL_CPUS	4	/* more vCPUs than supported */
#define ABI_FW_FAIL_MTRR	5	/* MTRR layout does not fit */
#define ABI_FW_FAIL_INTERNAL	6	/* anything else */

/*
 * The flattened device tree is placed by the VMM at this guest-physical
 * address, at most ABI_FDT_MAX bytes.  Layout (all numbers big-endian cells,
 * #address-cells = #size-cells = 2 at the root):
 *
 *   / { compatible = "minivmm,machine"; model = "minivmm";
 *       memory@0 { device_type = "memory"; reg = <addr size>...; };
 *       cpus { #address-cells = <1>; #size-cells = <0>;
 *              cpu@N { device_type = "cpu"; reg = <N>; }; ... };
 *       chosen {
 *           bootargs = "...";                       (from --append)
 *           minivmm,version = "...";                (VMM version)
 *           minivmm,payload-kind = "pvh" | "bzimage" | "multiboot" |
 *                                  "none";
 *           minivmm,payload-entry = <u64>;          (PVH entry, guest phys;
 *                                                    bzimage: the 64-bit
 *                                                    entry, load + 0x200;
 *                                                    multiboot: the 32-bit
 *                                                    entry, maybe < 1 MiB)
 *           minivmm,payload-range = <u64 start, u64 size>;  (pre-placed;
 *                                                    bzimage: load address,
 *                                                    init_size; multiboot:
 *                                                    what it holds above
 *                                                    1 MiB, staging incl.)
 *           minivmm,low-segments = <u64 dst, u64 src, u64 filesz,
 *                                   u64 memsz>...;  (multiboot, optional:
 *                                                    segments below 1 MiB,
 *                                                    staged at src; copied
 *                                                    to dst and zero-filled
 *                                                    to memsz at the jump)
 *           minivmm,linux-setup-header = [bytes];   (bzimage: the setup
 *                                                    header, file offset
 *                                                    0x1f1 to its end)
 *           minivmm,initrd-range = <u64 start, u64 size>;   (optional)
 *           minivmm,options = "key=value" list;     (e.g. "xen-bar-mtrr=wb")
 *       };
 *       pci {                                       (absent: no PCI bus)
 *           compatible = "minivmm,pci";
 *           bus-range = <u32 first, u32 last>;      (segment 0)
 *           minivmm,ecam = <u64 base, u64 size>;    (absent: --ecam off)
 *           minivmm,pio = <u32 0|1>;                (CF8/CFC decoded)
 *           minivmm,io-window = <u64 base, u64 size>;
 *           minivmm,mem32-window = <u64 base, u64 size>;
 *           minivmm,mem64-window = <u64 base, u64 size>;
 *       };
 *       serial@PORT {                               (each 16550A UART,
 *           compatible = "ns16550a";                    COM1 always; the
 *           minivmm,io-port = <u32 port>;               DSDT lists them
 *           interrupts = <u32 ISA IRQ>;                 as PNP0501)
 *       };
 *       snapshot-control@ADDR {                     (the snapshot control
 *           compatible = "minivmm,snapshot-control";    page: MMIO the OS
 *           reg = <u64 base, u64 size>;                 must leave alone;
 *       };                                              reserved in e820
 *   };                                                  and ACPI)
 */
#define ABI_FDT_ADDR		0x10000u
#define ABI_FDT_MAX		0x10000u

#define ABI_FDT_COMPATIBLE	"minivmm,machine"
#define ABI_PROP_VERSION	"minivmm,version"
#define ABI_PROP_PAYLOAD_KIND	"minivmm,payload-kind"
#define ABI_PROP_PAYLOAD_ENTRY	"minivmm,payload-entry"
#define ABI_PROP_PAYLOAD_RANGE	"minivmm,payload-range"
#define ABI_PROP_INITRD_RANGE	"minivmm,initrd-range"
#define ABI_PROP_SETUP_HEADER	"minivmm,linux-setup-header"
#define ABI_PROP_OPTIONS	"minivmm,options"
#define ABI_PROP_LOW_SEGMENTS	"minivmm,low-segments"
#define ABI_PCI_NODE		"pci"
#define ABI_PCI_COMPATIBLE	"minivmm,pci"
#define ABI_PROP_BUS_RANGE	"bus-range"
#define ABI_PROP_ECAM		"minivmm,ecam"
#define ABI_PROP_PIO		"minivmm,pio"
#define ABI_PROP_IO_WINDOW	"minivmm,io-window"
#define ABI_PROP_MEM32_WINDOW	"minivmm,mem32-window"
#define ABI_PROP_MEM64_WINDOW	"minivmm,mem64-window"
#define ABI_SERIAL_NODE		"serial"
#define ABI_SERIAL_COMPATIBLE	"ns16550a"
#define ABI_PROP_IO_PORT	"minivmm,io-port"
#define ABI_PROP_INTERRUPTS	"interrupts"
#define ABI_SNAPCTL_NODE	"snapshot-control"
#define ABI_SNAPCTL_COMPATIBLE	"minivmm,snapshot-control"

/* Low RAM the firmware uses for itself, reserved in the memory map it
 * hands over: GDT/TSS/IDT, the AP start-up page (SIPI vector 2; parked
 * APs halt there until the OS sends INIT/SIPI), .bss, stacks (the map is
 * in firmware/fw.lds).  The boot info and the tables follow. */
#define ABI_FW_RAM_BASE		0x1000u
#define ABI_FW_RAM_END		0x10000u	/* FDT follows */
#define ABI_BOOTINFO_BASE	0x20000u	/* start_info/boot_params/cmdline */
#define ABI_BOOTINFO_END	0x30000u

/*
 * The boot page tables, written into RAM by the VMM before the first
 * instruction (as the FDT is) and loaded into CR3 by the firmware when it
 * enters long mode; a bzImage kernel is entered on them too.  They must be
 * RAM: with nested paging (AMD NPT, Intel EPT with A/D bits) the CPU's
 * walk of the guest's tables counts as a write, which a read-only (ROM)
 * memslot turns into a fault KVM cannot emulate.  Reserved in e820.
 *
 *   +0x0000  PML4: [0] and [511] -> PDPT
 *   +0x1000  PDPT: [0..3] -> PD 0..3, [511] -> PD 3
 *   +0x2000  PD 0..3: 2 MiB pages, identity 0..4 GiB
 *
 * So 0..4 GiB is identity-mapped and the top 1 GiB of the 64-bit address
 * space (0xffffffff_c0000000..) shows 3..4 GiB, the ROM alias the
 * firmware's 64-bit code is linked at (fw.lds).  Every entry is present,
 * writable, user (the firmware's ring-3 calls see all memory), with the
 * accessed and dirty bits preset so the CPU never writes them.  Write-back
 * in the page tables; MMIO is left to the MTRRs.
 */
#define ABI_BOOT_PT_BASE	0x30000		/* no 'u': entry.S uses it */
#define ABI_BOOT_PT_END		0x36000
#define ABI_BOOT_PTE_TABLE	0x27		/* P, RW, US, A */
#define ABI_BOOT_PTE_LARGE	0xe7		/* P, RW, US, A, D, PS */
#define ABI_TABLES_BASE		0xe0000u	/* ACPI + SMBIOS, scannable */
#define ABI_TABLES_END		0x100000u

/* Payloads are loaded at or above 1 MiB. */
#define ABI_PAYLOAD_MIN		0x100000u

#endif
