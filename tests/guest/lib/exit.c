// SPDX-License-Identifier: MIT
/* Ending the run: the test-exit port, from ring 0. */
#include "guest.h"

void test_exit(uint32_t code)
{
	outl(ABI_TEST_EXIT_PORT, code);
	/* Only reached without an exit device (e.g. QEMU lacking one). */
	gprintf("test_exit(%u): exit port did not stop the VM\n", code);
	for (;;)
		__asm__ volatile("cli; hlt");
}
