/* SPDX-License-Identifier: MIT */
/*
 * The debugger's breakpoints: software ones (0xCC written over the
 * guest's byte, the original kept so reads and snapshots see it) and the
 * four debug-register slots for hardware breakpoints and watchpoints,
 * with the KVM_SET_GUEST_DEBUG state they make.  Guest memory is reached
 * through callbacks (physical addresses), so the table works without a VM.
 */
#ifndef MINIVMM_GDB_BKPT_H
#define MINIVMM_GDB_BKPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/kvm.h>

#define GDB_SW_MAX	64
#define GDB_HW_SLOTS	4

enum gdb_bp_type {
	GDB_BP_SW = 0,		/* Z0 */
	GDB_BP_HW = 1,		/* Z1 */
	GDB_WP_WRITE = 2,	/* Z2 */
	GDB_WP_READ = 3,	/* Z3: x86 has none: read/write instead */
	GDB_WP_ACCESS = 4,	/* Z4 */
};

struct gdb_phys_mem {
	/* 0, or -1 if [gpa, gpa+len) is not memory the VMM may touch. */
	int (*read)(void *ctx, uint64_t gpa, void *buf, size_t len);
	int (*write)(void *ctx, uint64_t gpa, const void *buf, size_t len);
	void *ctx;
};

struct gdb_sw_bp {
	uint64_t va, gpa;
	uint8_t orig;
	bool inserted;		/* 0xCC in memory now */
};

struct gdb_hw_bp {
	bool used;
	enum gdb_bp_type type;
	uint64_t addr;
	unsigned int len;
};

struct gdb_bkpts {
	struct gdb_phys_mem mem;
	struct gdb_sw_bp sw[GDB_SW_MAX];
	unsigned int nsw;
	struct gdb_hw_bp hw[GDB_HW_SLOTS];
};

void gdb_bkpts_init(struct gdb_bkpts *b, struct gdb_phys_mem mem);
/* A software breakpoint at va (guest-physical gpa): 0, or -1 with *why
 * set (table full, memory not writable). */
int gdb_sw_insert(struct gdb_bkpts *b, uint64_t va, uint64_t gpa,
		  const char **why);
int gdb_sw_remove(struct gdb_bkpts *b, uint64_t va);
/* True if a software breakpoint sits at va. */
bool gdb_sw_at(const struct gdb_bkpts *b, uint64_t va);
/* Takes every 0xCC out (the original bytes back) / puts them back: for a
 * snapshot, a detach. */
void gdb_sw_lift(struct gdb_bkpts *b);
void gdb_sw_restore(struct gdb_bkpts *b);
/* Forget them all (after lifting). */
void gdb_sw_clear(struct gdb_bkpts *b);
/* Over len bytes read from gpa: the originals where 0xCC is ours. */
void gdb_sw_mask_read(const struct gdb_bkpts *b, uint64_t gpa, uint8_t *buf,
		      size_t len);
/* A debugger write to [gpa, gpa+len) of buf: the bytes under a breakpoint
 * become its new original and buf keeps 0xCC there (buf is changed). */
void gdb_sw_fix_write(struct gdb_bkpts *b, uint64_t gpa, uint8_t *buf,
		      size_t len);

/* Hardware slots: 0, or -1 with *why (no slot free, a length or an
 * alignment the debug registers cannot watch). */
int gdb_hw_insert(struct gdb_bkpts *b, enum gdb_bp_type t, uint64_t addr,
		  unsigned int len, const char **why);
int gdb_hw_remove(struct gdb_bkpts *b, enum gdb_bp_type t, uint64_t addr,
		  unsigned int len);
void gdb_hw_clear(struct gdb_bkpts *b);

/* The KVM_SET_GUEST_DEBUG state for one vCPU (step: single-step it). */
void gdb_bkpts_debug(const struct gdb_bkpts *b, bool step,
		     struct kvm_guest_debug *dbg);
/* After a #DB exit with DR6 dr6: the slot that fired (-1: none). */
int gdb_hw_hit(const struct gdb_bkpts *b, uint64_t dr6);

#endif
