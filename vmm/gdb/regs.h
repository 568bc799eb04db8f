/* SPDX-License-Identifier: MIT */
/*
 * The x86-64 register file as gdb sees it: the numbering, sizes and
 * target.xml (gdb's i386 core and SSE features, FS/GS base, and a
 * read-only feature of minivmm's own for CR0/CR2/CR3/CR4/CR8/EFER), and
 * the conversion to and from KVM's register structures.
 */
#ifndef MINIVMM_GDB_REGS_H
#define MINIVMM_GDB_REGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/kvm.h>

enum {
	GDB_REG_RIP = 16,
	GDB_REG_EFLAGS = 17,
	GDB_REG_CS = 18,	/* cs ss ds es fs gs: 18..23 */
	GDB_REG_ST0 = 24,
	GDB_REG_FCTRL = 32,	/* fctrl fstat ftag fiseg fioff foseg
				 * fooff fop: 32..39 */
	GDB_REG_XMM0 = 40,
	GDB_REG_MXCSR = 56,
	GDB_REG_FS_BASE = 57,
	GDB_REG_GS_BASE = 58,
	GDB_REG_CR0 = 59,	/* cr0 cr2 cr3 cr4 cr8 efer: 59..64 */
	GDB_NREGS = 65,
};

/* Bytes of the whole file (the g packet's payload / 2). */
size_t gdb_regs_size(void);
/* Register n's offset in the file and size; false past the last. */
bool gdb_reg_slot(unsigned int n, size_t *off, size_t *size);
/* Registers gdb may not change (control registers). */
bool gdb_reg_readonly(unsigned int n);
/* The target description (NUL-ended, static). */
const char *gdb_target_xml(void);

struct gdb_kvm_state {
	struct kvm_regs regs;
	struct kvm_sregs sregs;
	struct kvm_fpu fpu;
};

/* Fills file (gdb_regs_size() bytes) from s. */
void gdb_regs_from_kvm(const struct gdb_kvm_state *s, uint8_t *file);
/* Applies file to s; false (s unchanged in that part) if a read-only
 * register or a segment selector differs: gdb cannot load segments. */
bool gdb_regs_to_kvm(const uint8_t *file, struct gdb_kvm_state *s);

#endif
