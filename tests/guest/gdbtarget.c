// SPDX-License-Identifier: MIT
/*
 * gdbtarget: the payload tests/boot/gdb.sh debugs with the real gdb.  All
 * in ring 0 (where every host's KVM traps breakpoints and steps): a
 * function to break at by symbol, a variable to watch, an AP spinning in
 * its own function (thread 2), and an exit status that says whether the
 * debugger disturbed anything: 0x2a when every value is as the code made
 * it, 1 otherwise.  With "cpus=2" on the command line the AP is started;
 * with "hold" the boot CPU spins in hold_here until the debugger sets
 * gdb_release (a guest that runs until interrupted).
 */
#include "lib/ap.h"
#include "lib/guest.h"

volatile uint64_t gdb_counter;		/* gdb_marker's sum */
volatile uint64_t gdb_watched;		/* written once, watched */
volatile uint64_t ap_spins;		/* the AP's loop count */
volatile uint32_t ap_up;
volatile uint32_t gdb_release;		/* "hold": gdb sets it to go on */

/* Not inlined: gdb breaks here by name. */
__attribute__((noinline)) void gdb_marker(uint64_t n)
{
	gdb_counter += n;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void ap_loop(void *arg)
{
	(void)arg;
	ap_up = 1;
	for (;;) {
		ap_spins++;
		__asm__ volatile("pause");
	}
}

__attribute__((noinline)) void hold_here(void)
{
	while (!gdb_release)
		__asm__ volatile("pause");
}

int payload_main(const struct hvm_start_info *si)
{
	bool smp = cmdline_has(start_info_cmdline(si), "cpus=2");

	if (smp) {
		ap_start(1, ap_loop, NULL);
		while (!ap_up)
			__asm__ volatile("pause");
	}
	gprintf("gdbtarget: running (%s)\n", smp ? "2 vCPUs" : "1 vCPU");
	if (cmdline_has(start_info_cmdline(si), "hold"))
		hold_here();
	for (uint64_t i = 1; i <= 3; i++)
		gdb_marker(i);
	gdb_watched = 0x5eed;
	gprintf("gdbtarget: counter=%llu watched=%#llx\n",
		(unsigned long long)gdb_counter,
		(unsigned long long)gdb_watched);
	return gdb_counter == 6 && gdb_watched == 0x5eed ? 0x2a : 1;
}
