/* SPDX-License-Identifier: MIT */
/*
 * The failure report: what a user needs to understand why the guest
 * stopped, without a debugger (RIP, CPU mode, control registers, the bytes
 * at RIP and their disassembly).
 */
#ifndef MINIVMM_REPORT_H
#define MINIVMM_REPORT_H

struct gmem;
struct vcpu;

/* Prints the report for v on stderr, headed "minivmm: WHAT on vCPU N";
 * instruction bytes are read from mem. */
void vcpu_report_failure(struct vcpu *v, struct gmem *mem,
			 const char *what);
/* One line on stderr saying where v stands (after its thread ended):
 * RIP, CPL, RSP, RFLAGS, run state and pending events, then the top of
 * its stack (read from mem).  For runs that end without a failure of
 * their own: a timeout, a signal. */
void vcpu_report_where(struct vcpu *v, struct gmem *mem);
/* Name RIPs in vcpu_report_where() with these symbols (NULL: none). */
struct elf_syms;
void report_set_symbols(const struct elf_syms *s);

#endif
