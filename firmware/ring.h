/* SPDX-License-Identifier: MIT */
/*
 * Which ring the firmware runs in, and the way out of ring 3 (see cpu.h
 * for why the firmware runs its computation there).
 */
#ifndef FW_RING_H
#define FW_RING_H

#include <stdint.h>

/* The current privilege level, 0 or 3. */
static inline unsigned int cpu_cpl(void)
{
	uint16_t cs;

	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	return cs & 3u;
}

/* trap.S: fw_exit() from ring 3, by a ud2 the trap handler (cpu.c)
 * recognises. */
__attribute__((noreturn)) void user_exit(uint32_t status);
extern const char user_exit_ud2[];

#endif
