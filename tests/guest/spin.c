// SPDX-License-Identifier: MIT
/*
 * spin: never exits, for testing the VMM's --timeout.  Spins in ring 0 by
 * default, or natively in ring 3 with "spin=user" on the command line.
 */
#include "lib/guest.h"

static void spin_forever(void *arg)
{
	(void)arg;
	for (;;)
		__asm__ volatile("pause");
}

int payload_main(const struct hvm_start_info *si)
{
	bool user = cmdline_has(start_info_cmdline(si), "spin=user");

	gprintf("spinning (ring %d)\n", user ? 3 : 0);
	if (user)
		run_user(spin_forever, NULL);
	spin_forever(NULL);
	return 1;
}
