// SPDX-License-Identifier: MIT
/*
 * triple: forces a triple fault.  With an empty IDT the #UD from ud2
 * cannot be delivered (#GP), nor can the #GP (#DF), nor the #DF: the CPU
 * shuts down, which the VMM must report as such.
 */
#include "lib/guest.h"

int payload_main(const struct hvm_start_info *si)
{
	struct __attribute__((packed)) {
		uint16_t limit;
		uint64_t base;
	} empty = { 0, 0 };

	(void)si;
	gputs("triple fault next\n");
	__asm__ volatile("lidt %0; ud2" : : "m"(empty));
	gputs("triple: still running after the triple fault\n");
	return 1;
}
