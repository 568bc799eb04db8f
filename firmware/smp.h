/* SPDX-License-Identifier: MIT */
/*
 * Starting the application processors (ring 0): INIT and SIPI broadcast
 * through the local APIC, each AP runs ap.S (the MTRR list of mtrr.h, then
 * halt), and the boot CPU waits, bounded, until all have checked in.  One
 * that does not is reported and ends the VM (ABI_FW_FAIL_CPUS).
 */
#ifndef FW_SMP_H
#define FW_SMP_H

#include "firmware/machine.h"

/* Call after mtrr_plan(): the APs apply its list. */
void smp_start_aps(const struct machine *m);

#endif
