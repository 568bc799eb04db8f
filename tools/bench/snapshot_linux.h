/* SPDX-License-Identifier: MIT */
/*
 * The Linux rows of `minivmm bench --cases snapshot`, with --linux-kernel
 * FILE --linux-initrd FILE: a Linux guest (1 vCPU, 128 MiB, virtio-rng)
 * whose init is tests/boot/linux-init.sh with build/linux/mvsnap in the
 * initramfs (tools/mkinitramfs.sh tests/boot/linux-init.sh
 * build/linux/mvsnap), its user-space checks as the test.  In one run:
 *   snap_linux_boot_ready     process start to init's ready point (the
 *                             snapshot request; --linux-repeat boots)
 *   snap_linux_restore_run    restore: process start to vCPUs running
 *   snap_linux_restore_shell  restore: process start to the guest's first
 *                             output (init's shell running again), with
 *                             its ratio to the boot to the same point
 *   snap_linux_boot_verdict   one full boot to the checks' verdict
 *   snap_linux_restore_verdict  restore to the same verdict, the ratio
 *   snap_linux_parallel_mem   three restores at once: RSS, PSS each
 */
#ifndef MINIVMM_BENCH_SNAPSHOT_LINUX_H
#define MINIVMM_BENCH_SNAPSHOT_LINUX_H

struct bench_run;

void bench_run_snapshot_linux(struct bench_run *b);
unsigned int bench_snapshot_linux_steps(const struct bench_run *b);

#endif
