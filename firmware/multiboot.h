/* SPDX-License-Identifier: MIT */
/*
 * Multiboot v1 boot (the kvm-unit-tests .flat files and other multiboot
 * kernels the VMM placed): checks, the multiboot information, the list of
 * low segments to copy, and the real-mode interrupt vectors in
 * [ABI_BOOTINFO_BASE, ABI_BOOTINFO_END) and at 0 (multiboot_prepare, ring
 * 3); then the legacy interrupt hardware as a PC BIOS leaves it (8259s at
 * vectors 0x08/0x70, IRQ 0 and the cascade unmasked; PIT channel 0 at
 * 18.2 Hz) and the jump in 32-bit protected mode with %eax = 0x2badb002,
 * %ebx = the information (multiboot_enter, ring 0).
 */
#ifndef FW_MULTIBOOT_H
#define FW_MULTIBOOT_H

#include "firmware/machine.h"

void multiboot_prepare(const struct machine *m);
__attribute__((noreturn)) void multiboot_enter(const struct machine *m);

#endif
