// SPDX-License-Identifier: MIT
/*
 * Ending the VM.  The test-exit port stops the VM; should a VMM ever let
 * the write through, interrupts are off and the CPU halts for good.  From
 * ring 3 (cpu.h) the request goes through ring 0 first.
 */
#include "firmware/cpu.h"
#include "firmware/entry.h"
#include "firmware/fw.h"
#include "firmware/io.h"

_Static_assert(FW_EXIT_INTERNAL == (ABI_FW_FAIL_MAGIC | ABI_FW_FAIL_INTERNAL),
	       "entry.h exit status out of sync with abi.h");

void fw_exit(uint32_t status)
{
	if (cpu_cpl() != 0)
		user_exit(status);
	console_flush();
	outl(ABI_TEST_EXIT_PORT, status);
	for (;;)
		__asm__ volatile("cli; hlt");
}

/* libfdt is built with -fstack-protector-strong; the canary is set up in
 * entry.S. */
__attribute__((noreturn)) void __stack_chk_fail(void);

void __stack_chk_fail(void)
{
	fw_fail(ABI_FW_FAIL_INTERNAL, "stack smashing detected");
}
