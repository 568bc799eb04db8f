/* SPDX-License-Identifier: MIT */
/*
 * How a minivmm run ends: one exit status per way, documented in minivmm(1)
 * and in --help.  A guest's test-exit write of V ends the run with V & 0xff
 * (or, with --exit-style qemu, (V << 1 | 1) & 0xff); the statuses below are
 * what minivmm itself chooses.
 */
#ifndef MINIVMM_EXIT_STATUS_H
#define MINIVMM_EXIT_STATUS_H

enum exit_status {
	EXIT_POWEROFF		= 0,	/* guest powered off (ACPI S5) */
	EXIT_VMM_ERROR		= 1,	/* host/KVM failure, not the guest's */
	EXIT_USAGE		= 2,	/* bad option, value, or input file */
	EXIT_GUEST_RESET	= 3,	/* guest asked for a reset/reboot */
	EXIT_TRIPLE_FAULT	= 4,	/* KVM_EXIT_SHUTDOWN */
	EXIT_EMULATION		= 5,	/* KVM internal error, failed entry */
	EXIT_FIRMWARE		= 6,	/* the firmware reported a failure */
	EXIT_USER_QUIT		= 7,	/* Ctrl-A x on the console */
	EXIT_GUEST_PANIC	= 8,	/* the guest said so (pvpanic) */
	EXIT_STALLED		= 9,	/* no progress (--stall-timeout) */
	EXIT_TIMEOUT		= 124,	/* --timeout expired */
	EXIT_SIGNAL_BASE	= 128,	/* + signal number (SIGINT: 130) */
};

#include <stdint.h>

/* The status for a guest test-exit write of value: value & 0xff, or
 * EXIT_FIRMWARE when the firmware's failure magic is set (*fw_reason then
 * receives the reason, see firmware/lib/abi.h). */
int exit_status_from_test_exit(uint32_t value, uint32_t *fw_reason);
/* --exit-style qemu: what QEMU's isa-debug-exit device makes of a write
 * of value, (value << 1) | 1, as the process status (& 0xff).  The
 * firmware's failure magic still gives EXIT_FIRMWARE. */
int exit_status_qemu_style(uint32_t value, uint32_t *fw_reason);
/* One line describing a status, for --help and minivmm(1). */
const char *exit_status_describe(int status);

#endif
