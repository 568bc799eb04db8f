/* SPDX-License-Identifier: MIT */
/*
 * The CI form of a payload test (docs/snapshot.md, tools/test/snap.h):
 * after its set-up, a payload calls ready_args() at its ready point.  It
 * asks minivmm for a snapshot there (the control page's REQUEST register,
 * MMIO; ignored unless minivmm runs with --snapshot-at port) and returns
 * the test's parameters: in a restored copy (the control page's
 * GENERATION changed across the request) the ARGS= line of its ENV, else
 * the boot command line.  The same payload thus runs alone, under QEMU
 * (no control page: nothing changes) and from a snapshot.
 */
#ifndef GUEST_LIB_READY_H
#define GUEST_LIB_READY_H

#include <stdbool.h>
#include <stdint.h>

#define READY_ARGS_MAX	3840

/* boot_cmdline: what the payload was started with.  *generation: the
 * control page's GENERATION after the request (0: never restored). */
const char *ready_args(const char *boot_cmdline, uint32_t *generation);

#endif
