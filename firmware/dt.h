/* SPDX-License-Identifier: MIT */
/*
 * Reading the machine description (the FDT the VMM writes) into struct
 * machine, checked: a missing node or property ends the VM with
 * ABI_FW_FAIL_FDT, an impossible PCI window with ABI_FW_FAIL_WINDOW, too
 * many CPUs with ABI_FW_FAIL_CPUS.  Pure: runs in ring 3.
 */
#ifndef FW_DT_H
#define FW_DT_H

#include "firmware/machine.h"

/* Read and check the description; ends the VM with a message when it is
 * missing or malformed. */
void machine_read(struct machine *m, const void *fdt);

#endif
