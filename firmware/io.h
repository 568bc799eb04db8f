/* SPDX-License-Identifier: MIT */
/*
 * Port I/O and physical-memory access for the firmware.  Each port access
 * is a VM exit (~10 us on the target host): callers keep them few.
 */
#ifndef FW_IO_H
#define FW_IO_H

#include <stdint.h>

#include "firmware/lib/abi.h"

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline void progress(uint8_t milestone)
{
	outb(ABI_PROGRESS_PORT, milestone);
}

/* A pointer to guest-physical memory (identity-mapped below 4 GiB).  The
 * empty asm hides the integer origin from the compiler's object-size
 * checks. */
static inline void *phys_ptr(uint64_t pa)
{
	void *p;

	__asm__("" : "=r"(p) : "0"(pa));
	return p;
}

#endif
