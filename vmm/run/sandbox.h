/* SPDX-License-Identifier: MIT */
/*
 * The run-time sandbox: a seccomp filter (libseccomp) installed once set-up
 * is over, just before the vCPUs start, on every thread of the process.  It
 * allows only the system calls the run loop, the devices and the exit path
 * need; ioctl only with the KVM and terminal requests used while running;
 * no PROT_EXEC mappings; threads but no processes.  Options that write
 * files (--stats-json, --dump-acpi, --snapshot: its state ioctls and
 * file writes) add what those need.
 *
 * A blocked call ends the run at once: "minivmm: sandbox: blocked system
 * call N (name)" on stderr, terminal restored, exit status 1.  --no-sandbox
 * (cfg->sandbox false) turns all of this off.
 *
 * Self-test: with MINIVMM_SANDBOX_SELFTEST=1 in the environment, a thread
 * started after the filter (as the vCPU threads are) calls socket(2), which
 * the sandbox must block.
 */
#ifndef MINIVMM_SANDBOX_H
#define MINIVMM_SANDBOX_H

#include "vmm/cli/cli.h"

/* Installs the filter unless cfg->sandbox is false.  0, or -1 after
 * printing why (the run must not go on unconfined). */
int sandbox_install(const struct vmm_config *cfg);

#endif
