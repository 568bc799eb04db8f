/* SPDX-License-Identifier: MIT */
/*
 * The CPUID bits a guest must not see where KVM emulates guest ring 0
 * (quirk cpuid-hide).  Such hosts apply these bits of the VMM's CPUID to
 * ring 0 (as they do the vendor string), unlike XSAVE, SMAP or POPCNT,
 * which are handled on the Linux command line (linux_cmdline.h) and by
 * completing the instructions (emulate.h):
 *
 *   CPUID.1:ECX.CX16    the emulator rejects cmpxchg16b; without CX16
 *                       Linux keeps to 8-byte cmpxchg (SLUB, this_cpu
 *                       ops).
 *   KVM PV_UNHALT       0x40000001 EAX bit 7: a paravirtual spinlock kick
 *                       (KVM_HC_KICK_CPU from emulated ring 0) to a vCPU
 *                       halted with interrupts off was seen to leave the
 *                       kicker at its VMCALL and the waiter halted for
 *                       good (a 2-vCPU Linux boot stuck in kvm_kick_cpu /
 *                       kvm_wait).  Without it Linux keeps to native
 *                       queued spinlocks.
 *   KVM PV_SEND_IPI,    bits 11 and 13: no VMCALL from emulated ring 0
 *   PV_SCHED_YIELD      ever completes here (tests/guest/nmi_ipi.c hc=N:
 *                       even an unknown hypercall number leaves the vCPU at
 *                       its VMCALL), and Linux's PV IPIs hung a 2-vCPU boot
 *                       in its first NMI backtrace; without them Linux
 *                       writes the x2APIC ICR, which works.
 *
 * --cpuid +name shows any of them again (x86/cpuid.c applies the edits
 * after this), to try one on purpose.
 */
#ifndef MINIVMM_PVM_CPUID_HIDE_H
#define MINIVMM_PVM_CPUID_HIDE_H

struct kvm_cpuid2;

/* Clears the bits above in c; the number of bits it cleared. */
unsigned int pvm_cpuid_hide(struct kvm_cpuid2 *c);

#endif
