/* SPDX-License-Identifier: MIT */
/*
 * Starting an application processor from a payload: INIT, SIPI, SIPI to
 * a real-mode trampoline that enters long mode on the payload's GDT, page
 * tables and IDT, then calls fn(arg) on its own stack and halts when fn
 * returns.  One AP at a time (one stack); calling ap_start again restarts
 * the AP (INIT).  Ring 0.
 */
#ifndef GUEST_AP_H
#define GUEST_AP_H

#include <stdint.h>

/* Where the trampoline goes: RAM the payload owns (not firmware RAM, the
 * FDT, the boot info or the ACPI/SMBIOS area; firmware/lib/abi.h). */
#define AP_TRAMP	0x70000u

void ap_start(uint32_t apic_id, void (*fn)(void *), void *arg);

#endif
