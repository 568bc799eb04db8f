// SPDX-License-Identifier: MIT
/*
 * Ending the VM.  The test-exit port stops the VM; should a VMM ever let
 * the write through, interrupts are off and the CPU halts for good.  From
 * ring 3 (ring.h) the request goes through ring 0 first.
 */
#include "firmware/entry.h"
#include "firmware/exit.h"
#include "firmware/io.h"
#include "firmware/ring.h"
#include "firmware/serial.h"

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
