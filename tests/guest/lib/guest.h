/* SPDX-License-Identifier: MIT */
/*
 * The guest payload library: everything a test payload may call.  It owns
 * the PVH boot structures, the console (COM1), test exit and progress
 * ports, exception capture (guest_try), ring-3 execution (run_user), TSC
 * timing and the inline hardware accessors.
 *
 * A payload defines payload_main(); its return value is the test-exit
 * status.  Runs in 64-bit ring 0 with interrupts off, identity-mapped
 * memory (user-accessible) and no SSE (-mgeneral-regs-only).
 */
#ifndef GUEST_H
#define GUEST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "firmware/lib/abi.h"

/* ---- PVH boot ABI (xen/include/public/arch-x86/hvm/start_info.h) ---- */

#define HVM_START_MAGIC		0x336ec578u

struct hvm_start_info {
	uint32_t magic;
	uint32_t version;
	uint32_t flags;
	uint32_t nr_modules;
	uint64_t modlist_paddr;
	uint64_t cmdline_paddr;
	uint64_t rsdp_paddr;
	uint64_t memmap_paddr;		/* version >= 1 */
	uint32_t memmap_entries;	/* version >= 1 */
	uint32_t reserved;
};

#define HVM_MEMMAP_RAM		1
#define HVM_MEMMAP_RESERVED	2
#define HVM_MEMMAP_ACPI		3
#define HVM_MEMMAP_NVS		4
#define HVM_MEMMAP_UNUSABLE	5

struct hvm_memmap_table_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t type;
	uint32_t reserved;
};

/* The payload's entry point, called from the C runtime. */
int payload_main(const struct hvm_start_info *si);

static inline bool start_info_valid(const struct hvm_start_info *si)
{
	return si && si->magic == HVM_START_MAGIC;
}

/* The boot command line, or "" when there is none. */
static inline const char *start_info_cmdline(const struct hvm_start_info *si)
{
	if (!start_info_valid(si) || !si->cmdline_paddr)
		return "";
	return (const char *)(uintptr_t)si->cmdline_paddr;
}

/* Memory map entries (NULL/0 before version 1). */
static inline const struct hvm_memmap_table_entry *
start_info_memmap(const struct hvm_start_info *si, uint32_t *count)
{
	*count = 0;
	if (!start_info_valid(si) || si->version < 1 || !si->memmap_paddr)
		return NULL;
	*count = si->memmap_entries;
	return (const void *)(uintptr_t)si->memmap_paddr;
}

/* ---- Segments (GDT layout set up by start.S) ---- */

#define GUEST_KERNEL_CS		0x08
#define GUEST_KERNEL_DS		0x10
#define GUEST_USER_DS		0x1b
#define GUEST_USER_CS		0x23
#define GUEST_TSS_SEL		0x28

/* ---- Port I/O ---- */

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint16_t inw(uint16_t port)
{
	uint16_t v;

	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;

	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

/* ---- MMIO: volatile accesses of exactly the given width ---- */

#define GUEST_MMIO(bits)						\
static inline uint##bits##_t mmio_read##bits(uint64_t addr)		\
{									\
	return *(volatile uint##bits##_t *)(uintptr_t)addr;		\
}									\
static inline void mmio_write##bits(uint64_t addr, uint##bits##_t v)	\
{									\
	*(volatile uint##bits##_t *)(uintptr_t)addr = v;		\
}
GUEST_MMIO(8)
GUEST_MMIO(16)
GUEST_MMIO(32)
GUEST_MMIO(64)
#undef GUEST_MMIO

/* ---- MSRs, CPUID, control registers ---- */

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return (uint64_t)hi << 32 | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v),
			 "d"((uint32_t)(v >> 32)) : "memory");
}

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r;

	__asm__ volatile("cpuid"
			 : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
			 : "a"(leaf), "c"(subleaf));
	return r;
}

#define GUEST_CR(n)							\
static inline uint64_t read_cr##n(void)					\
{									\
	uint64_t v;							\
	__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));		\
	return v;							\
}
GUEST_CR(0)
GUEST_CR(2)
GUEST_CR(3)
GUEST_CR(4)
#undef GUEST_CR

static inline void write_cr0(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory");
}

static inline void write_cr3(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline void write_cr4(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory");
}

/* ---- TSC ---- */

/* Plain, unordered read. */
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/*
 * Ordered reads bracketing a timed region: LFENCE before RDTSC waits for
 * earlier instructions to finish, LFENCE after keeps later ones from
 * starting early.  Not CPUID (it exits to the hypervisor, dominating short
 * regions) and not RDTSCP (not always advertised to guests, and some ring-0
 * emulators reject it).
 */
static inline uint64_t tsc_begin(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi)
			 : : "memory");
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t tsc_end(void)
{
	return tsc_begin();
}

/* TSC frequency from CPUID (0x40000010, 0x15, 0x16), or 0 if unknown.
 * *source, if not NULL, names the leaf used ("none" for 0). */
uint32_t tsc_khz(const char **source);

/* ---- Console, exit, progress ---- */

void gputc(char c);
void gputs(const char *s);
/* %s %c %d %i %u %x %X %p %% with l/ll/z, width, '.prec' (%s only) and
 * the '0', '-' and '#' flags. */
int gprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int gvprintf(const char *fmt, va_list ap);
int gsnprintf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int gvsnprintf(char *buf, size_t len, const char *fmt, va_list ap);

/* Ends the test: status is code & 0xff.  Halts if the port is absent. */
__attribute__((noreturn)) void test_exit(uint32_t code);

static inline void progress(uint8_t ms)
{
	outb(ABI_PROGRESS_PORT, ms);
}

/* Prints "FAIL: <msg>" and counts a failure when !ok; returns ok. */
bool check(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
unsigned int check_failures(void);

/* ---- Exceptions and ring 3 ---- */

struct fault {
	uint64_t vector;
	uint64_t error_code;	/* 0 for vectors without one */
	uint64_t rip;
	uint64_t cs;		/* CS at the fault: (cs & 3) is the CPL */
	uint64_t cr2;
};

/*
 * Runs fn(arg) in ring 0.  Returns -1 if it returned normally, else the
 * vector of the first exception raised (in fn, or in ring-3 code fn ran
 * through run_user), with *f filled in (f may be NULL).  Nests.
 */
int guest_try(void (*fn)(void *), void *arg, struct fault *f);

/*
 * Runs fn(arg) at CPL 3 with IOPL 3 on a separate user stack; returns when
 * fn returns.  Ring 0 must call it (not nested).  A fault in fn goes to the
 * innermost guest_try, or is fatal (status 3) without one.
 */
void run_user(void (*fn)(void *), void *arg);

/*
 * Points IDT entry vec (0-255) at handler (kernel CS, no IST) with the
 * given DPL, as a trap gate or an interrupt gate; a NULL handler leaves
 * the gate not present (type kept).  Vectors 0-31 are the library's
 * own until overwritten; the others start not present.
 */
void trap_set_gate(unsigned int vec, const void *handler, unsigned int dpl,
		   bool trap_gate);

/* ---- Small string helpers (also what GCC may call implicitly) ---- */

void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strncmp(const char *a, const char *b, size_t n);

/* Finds "key=value" as a whole word in cmdline and parses value (decimal
 * or 0x hex) into *val.  Returns false if absent or malformed. */
bool cmdline_u64(const char *cmdline, const char *key, uint64_t *val);
/* True if the bare word, or word=..., appears in cmdline. */
bool cmdline_has(const char *cmdline, const char *word);

#endif
