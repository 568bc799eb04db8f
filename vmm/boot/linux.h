/* SPDX-License-Identifier: MIT */
/*
 * Loading the payload named by --kernel/--initrd/--append: a bzImage (the
 * Linux 64-bit boot protocol: the protected-mode kernel placed in RAM, its
 * setup header handed to the firmware, which builds boot_params) or an ELF
 * with a PVH entry note (loader.c); the initrd per the kernel's limits; and
 * the command line the guest gets, checked against the kernel's limit,
 * as the host's quirks have it for a Linux kernel (host/host.h: exactly the
 * user's on hardware virtualization).  Every failure is bad input: one
 * line on stderr, and the caller exits with status 2 before any guest code
 * runs.
 */
#ifndef MINIVMM_LINUX_LOAD_H
#define MINIVMM_LINUX_LOAD_H

#include "vmm/cli/cli.h"
#include "vmm/boot/loader.h"
#include "vmm/memory.h"

/* Longest PVH command line: the firmware's boot-info area (pvh.c). */
#define PVH_CMDLINE_LIMIT	4095
/* Linux's COMMAND_LINE_SIZE - 1, for kernels booted through PVH (they
 * carry no header saying so). */
#define LINUX_PVH_CMDLINE_LIMIT	2047

struct host;

int payload_load(struct gmem *mem, const struct vmm_config *cfg,
		 struct host *h, struct payload *p);

#endif
