/* SPDX-License-Identifier: MIT */
/*
 * The breakpoint exits of the system-call completion (syscall.h): at the
 * guest's #PF handler, a SYSCALL landing is turned into the kernel entry
 * the CPU would have made; at its #UD handler, an int $0x80 is delivered
 * through IDT entry 0x80 as the CPU would; every other fault goes on to
 * the guest's handler (stepping over its first instruction), and a
 * finished single step re-arms the breakpoints.
 */
#ifndef MINIVMM_SYSCALL_ENTRY_H
#define MINIVMM_SYSCALL_ENTRY_H

#include <stdbool.h>

struct sc_fix;
struct vcpu;

/* A KVM_EXIT_DEBUG of v: true if handled (the vCPU may re-enter), false
 * if it is none of ours or KVM refused what it needs. */
bool sc_debug_exit(struct sc_fix *fx, struct vcpu *v);

#endif
