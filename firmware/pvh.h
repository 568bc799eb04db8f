/* SPDX-License-Identifier: MIT */
/*
 * Booting a PVH payload the VMM has already placed in RAM: checks and the
 * hvm_start_info in [ABI_BOOTINFO_BASE, ABI_BOOTINFO_END) (pvh_prepare,
 * ring 3), then the jump (pvh_enter, ring 0).
 */
#ifndef FW_PVH_H
#define FW_PVH_H

#include <stdint.h>

#include "firmware/machine.h"

void pvh_prepare(const struct machine *m, uint64_t rsdp);
__attribute__((noreturn)) void pvh_enter(const struct machine *m);

#endif
