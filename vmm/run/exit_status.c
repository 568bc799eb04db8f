// SPDX-License-Identifier: MIT
#include "vmm/run/exit_status.h"
#include "firmware/lib/abi.h"

int exit_status_from_test_exit(uint32_t value, uint32_t *fw_reason)
{
	if ((value & 0xffff0000u) == ABI_FW_FAIL_MAGIC) {
		*fw_reason = value & 0xffffu;
		return EXIT_FIRMWARE;
	}
	*fw_reason = 0;
	return (int)(value & 0xff);
}

int exit_status_qemu_style(uint32_t value, uint32_t *fw_reason)
{
	int status = exit_status_from_test_exit(value, fw_reason);

	if ((value & 0xffff0000u) == ABI_FW_FAIL_MAGIC)
		return status;
	return (int)(((value << 1) | 1) & 0xff);
}

const char *exit_status_describe(int status)
{
	switch (status) {
	case EXIT_POWEROFF:	return "guest powered off";
	case EXIT_VMM_ERROR:	return "VMM or host error";
	case EXIT_USAGE:	return "bad usage or input";
	case EXIT_GUEST_RESET:	return "guest requested a reset";
	case EXIT_TRIPLE_FAULT:	return "triple fault";
	case EXIT_EMULATION:	return "KVM internal or emulation error";
	case EXIT_FIRMWARE:	return "firmware reported a failure";
	case EXIT_USER_QUIT:	return "quit from the console (Ctrl-A x)";
	case EXIT_GUEST_PANIC:	return "guest panicked";
	case EXIT_STALLED:	return "guest stalled";
	case EXIT_TIMEOUT:	return "timeout";
	}
	if (status > EXIT_SIGNAL_BASE && status < EXIT_SIGNAL_BASE + 65)
		return "killed by a signal";
	return "guest test-exit value";
}
