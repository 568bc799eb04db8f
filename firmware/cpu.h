/* SPDX-License-Identifier: MIT */
/*
 * The boot CPU's descriptor tables and ring-3 calls.
 *
 * Why ring 3: on the target host guest ring-0 code is emulated one
 * instruction at a time (~0.6-2 us each) while ring 3 runs natively.  So
 * the firmware does only privileged work in ring 0 (port and config I/O,
 * MSRs, the APIC, milestones) and runs its pure computation (device-tree
 * parsing, BAR and MTRR planning, table building) through user_call():
 * one round trip costs ~0.1 ms, the same work in ring 0 tens of ms.
 * Ring-3 code sees all memory (the boot page tables set U) but must not do
 * port I/O or privileged instructions; its console output is buffered
 * (serial.c) and fw_exit() from ring 3 ends the VM through ring 0.
 */
#ifndef FW_CPU_H
#define FW_CPU_H

#include <stdint.h>

struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;	/* pushed by the CPU */
};

/* GDT with ring-3 segments and a TSS, IDT for vectors 0-31 (all fatal
 * except user_call's return).  Once, early, on the boot CPU. */
void cpu_init(void);

/* Run fn(arg) at CPL 3 on the ring-3 stack; returns when fn returns.  Not
 * nested; a fault in fn ends the VM with a report. */
void user_call(void (*fn)(void *), void *arg);

#endif
