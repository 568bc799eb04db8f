/* SPDX-License-Identifier: MIT */
/*
 * `minivmm bench --cases fs` (with --linux-kernel: a kernel with
 * virtio-fs): one tree made here (2000 files of 4 KiB in 40 folders and
 * one 256 MiB file) served by Debian's virtiofsd, started by the bench
 * with the same options for each boot, and read and written by the guest
 * init of build/fsbench-initramfs.cpio (tools/fsbench/init.sh) under
 * minivmm (--fs SOCKET) and, with --peer qemu, under QEMU (q35, a shared
 * memfd as guest RAM, vhost-user-fs-pci): the same kernel, initramfs,
 * command line, RAM and daemon, only the VMM differs.  --linux-repeat
 * rounds per boot, the page cache dropped before each; a row per
 * workload and VMM (median of the rounds, guest time).  Then the time
 * from `minivmm run --kernel K --cmd true` to its exit, alone and with
 * --share /:ro (process start to exit, median of --linux-repeat runs).
 */
#ifndef MINIVMM_BENCH_FS_H
#define MINIVMM_BENCH_FS_H

struct bench_run;

void bench_run_fs(struct bench_run *b);
/* Steps bench_run_fs reports progress for (0 without --linux-kernel). */
unsigned int bench_fs_steps(const struct bench_run *b);

#endif
