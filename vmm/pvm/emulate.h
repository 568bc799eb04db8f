/* SPDX-License-Identifier: MIT */
/*
 * Living with a host KVM whose instruction emulator runs guest ring 0 and
 * gives up on some instructions a stock kernel executes (the "PVM" hosts:
 * kvm_pvm loaded).  This module owns the decision, for each instruction
 * seen failing while booting Debian's 6.1 kernel, of how minivmm keeps the
 * guest running without modifying it:
 *
 *   int3        completed here: RIP stepped past it and #BP injected (a
 *               trap), as the CPU does.  Linux runs int3 in its
 *               alternatives self-test and for live text patching.
 *   cmpxchg16b  hidden: CPUID.1:ECX.CX16 cleared (cpuid_hide.h), which these
 *               hosts do apply to ring 0 and Linux honours.  Should a
 *               guest use it anyway: completed here with a host lock
 *               cmpxchg16b on the same memory (atomic against the other
 *               vCPUs), after a page walk with the CPU's checks and A/D
 *               updates; #GP if misaligned, #PF as the walk says.
 *   xsave,      XSAVE stays visible to ring 0 whatever CPUID says, so a
 *   xrstor      Linux kernel gets 'noxsave' on its command line
 *               (linux_cmdline.h; it then uses fxsave/fxrstor, which the
 *               emulator handles).
 *   clac, stac  SMAP cannot be hidden in CPUID either: a Linux kernel gets
 *               'clearcpuid=smap' (Linux >= 5.19; the kernel is tainted
 *               'S'), and clac/stac are completed here (RFLAGS.AC) for
 *               kernels that ignore it.
 *   popcnt      likewise 'clearcpuid=popcnt', and completed here (register
 *               or memory source, 16/32/64-bit, flags as the CPU sets
 *               them).
 *   ldmxcsr,    SIMD in ring 0 (the emulator has none): Linux's built-in
 *   SSE/AVX     BLAKE2s (random.c) uses SSSE3 or AVX-512 inside
 *               kernel_fpu_begin(); 'clearcpuid=ssse3' turns it off, and
 *               'noxsave' already takes AVX and AVX-512 away.
 *   fwait       completed here: #NM if CR0.TS and CR0.MP, #MF if the
 *               vCPU's x87 status has an unmasked exception pending
 *               (FSW.ES), else nothing.  Linux runs it in fpu__drop().
 *
 * Two more parameters only save time in emulated ring 0:
 *   rep movs,   the emulator steps a rep string instruction one element at
 *   rep stos    a time: 'clearcpuid=erms,fsrm' makes Linux's memcpy,
 *               memset, clear_page and user copies use 8-byte elements.
 *   LOCK        'noreplace-smp': a 1-CPU Linux would otherwise rewrite its
 *               LOCK prefixes one text_poke (page-table switch and TLB
 *               flush) each.
 *
 * Parameters added to the command line are printed when added.  Anything
 * else ends the run with the failure report, as before.  This is the
 * quirk insn-complete (host/quirks.h): the hook is installed on PVM hosts
 * only.
 */
#ifndef MINIVMM_EMULATE_H
#define MINIVMM_EMULATE_H

#include <stdbool.h>

struct vcpu;

/* The KVM_EXIT_INTERNAL_ERROR hook (struct vcpu_exits; ctx is a struct
 * quirk_ctx, host/quirks.h: its stats get a reporter on the first
 * completion): true if the failure was handled and the vCPU may re-enter.
 */
bool emulate_failure(void *ctx, struct vcpu *v);

#endif
