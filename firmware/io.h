/* SPDX-License-Identifier: MIT */
/*
 * Port I/O, MSRs, CPUID and physical-memory access for the firmware (ring
 * 0 only, except phys_ptr).  Each port access is a VM exit (~10 us on the
 * target host): callers keep them few.
 */
#ifndef FW_IO_H
#define FW_IO_H

#include <stdint.h>

#include "firmware/lib/abi.h"

/* A pointer to guest-physical memory (identity-mapped below 4 GiB).  The
 * empty asm hides the integer origin from the compiler's object-size
 * checks. */
static inline void *phys_ptr(uint64_t pa)
{
	void *p;

	__asm__("" : "=r"(p) : "0"(pa));
	return p;
}

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;

	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return (uint64_t)hi << 32 | lo;
}

static inline void wrmsr(uint32_t msr, uint32_t lo, uint32_t hi)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"(lo), "d"(hi) : "memory");
}

static inline void cpuid(uint32_t leaf, uint32_t r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]),
			 "=d"(r[3]) : "a"(leaf), "c"(0));
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static inline uint32_t mmio_read32(uint64_t pa)
{
	return *(volatile uint32_t *)phys_ptr(pa);
}

static inline void mmio_write32(uint64_t pa, uint32_t v)
{
	*(volatile uint32_t *)phys_ptr(pa) = v;
}

static inline void progress(uint8_t milestone)
{
	outb(ABI_PROGRESS_PORT, milestone);
}

#endif
