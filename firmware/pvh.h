/* SPDX-License-Identifier: MIT */
/*
 * Booting a PVH payload the VMM has already placed in RAM: checks, the
 * hvm_start_info in [ABI_BOOTINFO_BASE, ABI_BOOTINFO_END), the jump.
 */
#ifndef FW_PVH_H
#define FW_PVH_H

#include "firmware/machine.h"

__attribute__((noreturn)) void pvh_boot(const struct machine *m);

#endif
