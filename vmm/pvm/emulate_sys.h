/* SPDX-License-Identifier: MIT */
/*
 * More instructions this host's ring-0 emulator rejects, completed the way
 * the CPU would run them (the kvm-unit-tests run each in ring 0; emulate.h
 * has the first set and the reasons):
 *
 *   int n        CPL 0: RIP past it, vector n delivered through the IDT
 *                as an in-flight interrupt (no DPL check: CPL 0 passes
 *                any).  User-mode int n is not ours (pvm/syscall).
 *   xgetbv       #UD unless CR4.OSXSAVE; ECX 0 reads XCR0, 1 reads XCR0
 *                (a superset of XINUSE, which the CPU allows) where
 *                CPUID.(0xd,1).EAX[2] says so; any other #GP(0).
 *   clwb,        a memory access for faults only (#PF as the page walk
 *   clflushopt   says); the VMM's RAM is coherent.
 *   movbe        load or store with the bytes swapped (16/32/64-bit);
 *                the register form is #UD, as on the CPU.
 *   invpcid      #UD unless the vCPU's CPUID has INVPCID, then the
 *                SDM's #GP checks; the flush is a full one (KVM reloads
 *                the MMU), which over-flushes as the SDM permits.
 *   rdpru        #UD unless the vCPU's CPUID has RDPRU (never on Intel);
 *                otherwise left as a failure.
 *
 * Each counts in --stats ("instructions completed ... (more)").
 */
#ifndef MINIVMM_EMULATE_SYS_H
#define MINIVMM_EMULATE_SYS_H

#include <linux/kvm.h>
#include <stdbool.h>

#include "vmm/x86/pagewalk.h"
#include "vmm/pvm/insn_decode.h"

struct gmem;
struct stats;
struct vcpu;

/* The state emulate.c has read for the failing instruction. */
struct sys_insn {
	struct gmem *mem;
	struct stats *stats;
	struct vcpu *v;
	struct kvm_regs *r;
	struct kvm_sregs *s;
	struct pw_cpu pw;
	bool long64;
};

/* True if in (one of the ops above) was completed or faulted as the CPU
 * would; false leaves the failure to be reported. */
bool emulate_sys(const struct sys_insn *c, const struct insn *in);

#endif
