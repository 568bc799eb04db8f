/* SPDX-License-Identifier: MIT */
/*
 * The real-mode interrupt vector table a BIOS leaves behind, for payloads
 * that drop to real mode (kvm-unit-tests' realmode.flat) and take
 * interrupts there: the 8259 vectors (IRQ 0-7 at 0x08, IRQ 8-15 at 0x70,
 * as a PC BIOS programs them) point at stubs that acknowledge the
 * interrupt (EOI) and return, every other vector at a bare IRET.  Pure
 * data building: the IVT (256 far pointers, at physical 0) and the stub
 * code, which the guest sees at stubs_gpa (16-byte aligned, below 1 MiB).
 *
 * Freestanding: <stdint.h> only.
 */
#ifndef FW_LIB_BIOS_IVT_H
#define FW_LIB_BIOS_IVT_H

#include <stdint.h>

#define BIOS_PIC_MASTER_BASE	0x08
#define BIOS_PIC_SLAVE_BASE	0x70
#define BIOS_IVT_VECTORS	256
#define BIOS_STUBS_SIZE		32

/* Returns 0, or -1 if stubs_gpa is not 16-byte aligned below 1 MiB. */
int bios_ivt_build(uint32_t ivt[BIOS_IVT_VECTORS],
		   uint8_t stubs[BIOS_STUBS_SIZE], uint32_t stubs_gpa);

#endif
