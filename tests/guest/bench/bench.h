/* SPDX-License-Identifier: MIT */
/*
 * The bench payload's internal interfaces.  bench.c is one translation
 * unit that includes the bench/ parts (guest.mk builds one object per
 * payload): platform.c finds the machine the way an OS does, memtype.c
 * maps memory with chosen PAT types, run.c runs and reports one case,
 * cases.c holds the cases.  Everything is static: one translation unit,
 * and no clash with the names of the shared guest library.
 */
#ifndef BENCH_H
#define BENCH_H

#include "../lib/guest.h"

/* ---- platform.c: ACPI, PCI, the Xen platform device ---- */

#define BENCH_NO_BDF	0xffffffffu

struct platform {
	uint64_t rsdp;			/* 0: none found */
	const char *rsdp_from;		/* "start_info", "scan", "none" */
	uint64_t ecam;			/* 0: no ECAM */
	const char *ecam_from;		/* "mcfg", "fallback", "none" */
	bool cf8;			/* CF8 reads back 0x80000000 */
	uint32_t xen_bdf;		/* BENCH_NO_BDF: not found */
	uint64_t bar1, bar1_size;
	const char *bar1_from;		/* "firmware", "payload", "none" */
	uint64_t null_mmio;		/* an address nothing decodes */
	uint64_t ram_buf;		/* RAM for the bandwidth cases */
	uint64_t ram_buf_size;		/* 0: not enough RAM */
	uint64_t blk_buf;		/* BLK_BUF_BYTES for virtio-blk; 0:
					 * not enough RAM */
};

#define BLK_BUF_BYTES	(4ull << 20)

#define PCI_BDF_OF(bus, dev, fn) ((uint32_t)(bus) << 8 | (dev) << 3 | (fn))

static void platform_discover(struct platform *p,
			      const struct hvm_start_info *si,
			      uint64_t buf_bytes);
static uint32_t pci_read32(const struct platform *p, uint32_t bdf,
			   uint32_t off);
static void pci_write32(const struct platform *p, uint32_t bdf,
			uint32_t off, uint32_t v);
/* CF8 address for bdf/off, and the ECAM address (0 without ECAM). */
static uint32_t pci_cf8_addr(uint32_t bdf, uint32_t off);
static uint64_t pci_ecam_addr(const struct platform *p, uint32_t bdf,
			      uint32_t off);

#include "memtype.h"

/* ---- cases.c ---- */

struct bench_opts {
	const char *cases;		/* "all", "none" or a comma list */
	unsigned int repeats;
	uint64_t target_cycles;
	uint32_t tsc_khz;
	uint32_t msr;
	uint64_t msr_value;
	uint64_t bw_bytes;
};

static int bench_run_cases(const struct platform *p,
			   const struct bench_opts *o);

/* ---- blk.c: the virtio-blk cases ---- */

/* BENCH line words of the blk case just timed (milli-ns per op, 0 if the
 * TSC rate is unknown). */
static void blk_extra(char *buf, size_t len, uint64_t milli_ns);

/* ---- net.c: the virtio-net cases ---- */

static void net_extra(char *buf, size_t len, uint64_t milli_ns);

#endif
