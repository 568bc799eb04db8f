// SPDX-License-Identifier: MIT
/*
 * C runtime: the first C code after start.S, the test exit and the pass/fail
 * bookkeeping payloads share.
 */
#include "guest.h"

void guest_crt_main(const struct hvm_start_info *si);
void trap_init(void);

static unsigned int failures;

void guest_crt_main(const struct hvm_start_info *si)
{
	progress(ABI_MS_PAYLOAD_MAIN);
	trap_init();
	test_exit((uint32_t)payload_main(si));
}

void test_exit(uint32_t code)
{
	outl(ABI_TEST_EXIT_PORT, code);
	/* Only reached without an exit device (e.g. QEMU lacking one). */
	gprintf("test_exit(%u): exit port did not stop the VM\n", code);
	for (;;)
		__asm__ volatile("cli; hlt");
}

bool check(bool ok, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return true;
	failures++;
	gputs("FAIL: ");
	va_start(ap, fmt);
	gvprintf(fmt, ap);
	va_end(ap);
	gputc('\n');
	return false;
}

unsigned int check_failures(void)
{
	return failures;
}
