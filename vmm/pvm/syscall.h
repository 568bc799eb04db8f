/* SPDX-License-Identifier: MIT */
/*
 * Completing guest system calls that this host's KVM leaves undone.  On
 * PVM hosts (kvm_pvm: guest ring 3 native, ring 0 emulated) a SYSCALL
 * from guest user mode lands at LSTAR still in ring 3: on Linux the fetch
 * there faults (#PF, user fetch, RIP = CR2 = LSTAR), and int $0x80 from
 * ring 3 raises #UD.  Neither exits to the VMM.  This module owns, per
 * vCPU (shared/reference/pvm-syscall.md has the measurements):
 *
 *  - learning the targets: the guest's writes of LSTAR, CSTAR, STAR and
 *    FMASK always exit (an MSR observer, msr/observer.h; the policy still
 *    decides what the guest sees) and reach KVM through here.  Where the
 *    target page is user-executable (test payloads) the landing would just
 *    run in ring 3, so KVM gets a trap address instead, one the guest
 *    does not map for user mode, and reads of LSTAR and CSTAR return the
 *    guest's value;
 *  - a KVM_SET_GUEST_DEBUG hardware breakpoint on the #PF handler and one
 *    on the #UD handler, found through the guest's IDT and page tables
 *    (they fire on emulated ring-0 instructions only, which handlers are),
 *    armed once the guest has set a target or opened a DPL-3 gate above
 *    the exceptions (int $0x80); both follow the guest's IDT:
 *    the gates are re-read at every exit (IDTR and CR3 from the exit's
 *    sync registers), at each breakpoint and each target write;
 *  - at the #PF breakpoint, a landing (syscall_decode.h) becomes the
 *    kernel entry the CPU would have made: RIP = LSTAR (CSTAR), CS and SS
 *    from STAR, RFLAGS minus FMASK, RSP the caller's; RCX and R11 the host
 *    already set.  The guest's own SYSRETQ then works.  The traces the
 *    fault left (CR2, a frame below the kernel stack top) stay;
 *  - at the #UD breakpoint, an int $0x80 from ring 3 is delivered through
 *    IDT entry 0x80 as the CPU would (frame with the return RIP after the
 *    instruction, on the gate's stack), or raises the CPU's #GP/#NP when
 *    the gate does not allow it;
 *  - every other fault goes on to the guest: the handler's first
 *    instruction is skipped when it is a no-op (or clac/stac), else
 *    single-stepped with the breakpoints off and re-armed after.
 *
 * Guest memory is written only where the CPU itself would (frames of
 * delivered interrupts; accessed bits of the page walks).  Registers come
 * from KVM_CAP_SYNC_REGS when the host has it (kvm_valid_regs set only on
 * VMs where the fix runs).  The guest's own use of debug registers is
 * overridden while breakpoints are armed.  A guest that switches its IDT
 * to other handlers and makes a system call before any exit of that vCPU
 * would still see the raw fault.  Snapshots carry each vCPU's targets
 * (section "syscall-fix"); a restore re-arms from the restored IDT.
 */
#ifndef MINIVMM_SYSCALL_H
#define MINIVMM_SYSCALL_H

#include <stdbool.h>

struct vm;

/* The quirk syscall-fix (host/quirks.h: the VM hooks of the PVM table,
 * so never called on hardware virtualization).  Decides from
 * --syscall-fix whether the fix runs (on or auto: yes; off: no) and, if
 * it does, registers the MSRs it watches in vm->msr_observer.  Before the
 * MSR policy compiles its filter. */
void syscall_fix_prepare(struct vm *vm);
/* After the vCPUs exist: state per vCPU, the debug and every-exit hooks,
 * sync registers, --stats.  0, or -1 after saying why. */
int syscall_fix_install(struct vm *vm);
/* Says once on stderr that the fix is on, when the guest is about to run
 * (a run refused during set-up or restore prints only its error). */
void syscall_fix_announce(const struct vm *vm);
void syscall_fix_destroy(struct vm *vm);

#endif
