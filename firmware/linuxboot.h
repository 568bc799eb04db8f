/* SPDX-License-Identifier: MIT */
/*
 * Booting a bzImage the VMM has already placed in RAM, through the Linux
 * 64-bit boot protocol: checks, boot_params and the command line in
 * [ABI_BOOTINFO_BASE, ABI_BOOTINFO_END) (linux_prepare, ring 3), then the
 * jump to load address + 0x200 in long mode (linux_enter, ring 0).
 */
#ifndef FW_LINUXBOOT_H
#define FW_LINUXBOOT_H

#include <stdint.h>

#include "firmware/machine.h"

void linux_prepare(const struct machine *m, uint64_t rsdp);
__attribute__((noreturn)) void linux_enter(const struct machine *m);

#endif
