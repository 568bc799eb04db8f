/* SPDX-License-Identifier: MIT */
/*
 * The platform devices' snapshot sections (docs/snapshot.md): the CMOS
 * RTC (54), fw_cfg (97) and pc-testdev (98, instance SNAP_TESTDEV_PC),
 * and the quiesce hook that stops the RTC's timer thread while a
 * snapshot is taken.
 */
#ifndef MINIVMM_PLATFORM_SNAP_H
#define MINIVMM_PLATFORM_SNAP_H

struct vm;

/* 0, or -1 (out of memory). */
int platform_snap_register(struct vm *vm);

#endif
