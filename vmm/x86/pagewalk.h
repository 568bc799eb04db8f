/* SPDX-License-Identifier: MIT */
/*
 * Translating a guest linear address the way the CPU would for a data
 * access, with the permission checks and the accessed/dirty updates, for
 * the VMM's own instruction emulation (pvm/emulate.c) and system-call
 * completion (pvm/syscall.c).  KVM_TRANSLATE is not
 * enough there: it reports no permissions and sets no A/D bits.
 *
 * Covers what a 64-bit guest uses: paging off, and 4- or 5-level long-mode
 * paging with 1 GiB and 2 MiB pages.  Legacy 32-bit paging is refused.
 */
#ifndef MINIVMM_PAGEWALK_H
#define MINIVMM_PAGEWALK_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/memory.h"

/* The control state a walk depends on. */
struct pw_cpu {
	uint64_t cr0, cr3, cr4, efer, rflags;
	unsigned int cpl;
};

/* #PF error-code bits. */
#define PF_PRESENT	(1u << 0)
#define PF_WRITE	(1u << 1)
#define PF_USER		(1u << 2)
#define PF_RSVD		(1u << 3)

enum pw_result {
	PW_OK,
	PW_FAULT,		/* inject #PF with *pf_err, CR2 = la */
	PW_UNSUPPORTED,		/* a paging mode or table outside RAM */
};

/* Translates la for a data access (write: a store).  On PW_OK *gpa holds
 * the guest-physical address and the A (and, for a write, D) bits are set
 * in the entries, atomically.  On PW_FAULT *pf_err is the error code. */
enum pw_result pagewalk(struct gmem *mem, const struct pw_cpu *cpu,
			uint64_t la, bool write, uint64_t *gpa,
			uint32_t *pf_err);

/* Copies len bytes between buf and guest memory at linear address la
 * (write: into the guest), page by page, each page walked as above.
 * PW_OK; PW_FAULT with *la_fault (the page's first byte touched) and
 * *pf_err; PW_UNSUPPORTED if a page is not RAM or the walk cannot be
 * done.  A fault part-way may leave the pages before it written. */
enum pw_result pw_copy(struct gmem *mem, const struct pw_cpu *cpu,
		       uint64_t la, void *buf, size_t len, bool write,
		       uint64_t *la_fault, uint32_t *pf_err);

#endif
