// SPDX-License-Identifier: MIT
/*
 * C runtime: the first C code after start.S, and the pass/fail bookkeeping
 * payloads share.
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
