/* SPDX-License-Identifier: MIT */
/*
 * The boot page tables the firmware enters long mode on: written into
 * guest RAM at ABI_BOOT_PT_BASE before the first instruction (the layout
 * and why they are RAM, not ROM: firmware/lib/abi.h).
 */
#ifndef MINIVMM_BOOT_PT_H
#define MINIVMM_BOOT_PT_H

#include "vmm/memory.h"

/* Writes them; -1 (after a message) if that range is not RAM. */
int boot_pt_write(struct gmem *mem);

#endif
