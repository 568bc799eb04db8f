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
 *   cmpxchg16b  hidden: CPUID.1:ECX.CX16 cleared (cpuid.c), which these
 *               hosts do apply to ring 0 and Linux honours.  Should a
 *               guest use it anyway: completed here with a host lock
 *               cmpxchg16b on the same memory (atomic against the other
 *               vCPUs), after a page walk with the CPU's checks and A/D
 *               updates; #GP if misaligned, #PF as the walk says.
 *   xsave,      XSAVE stays visible to ring 0 whatever CPUID says, so a
 *   xrstor      Linux kernel gets 'noxsave' on its command line (it then
 *               uses fxsave/fxrstor, which the emulator handles).
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
 * else ends the run with the failure report, as before.
 */
#ifndef MINIVMM_EMULATE_H
#define MINIVMM_EMULATE_H

#include <stdbool.h>
#include <stddef.h>

struct gmem;
struct stats;
struct vcpu;

/* What completing an instruction needs of the machine. */
struct emulate_ctx {
	struct gmem *mem;
	struct stats *stats;	/* gets a reporter on the first completion */
};

/* The KVM_EXIT_INTERNAL_ERROR hook (struct vcpu_exits; ctx is a struct
 * emulate_ctx): true if the failure was handled and the vCPU may
 * re-enter. */
bool emulate_failure(void *ctx, struct vcpu *v);

/* True if this host's KVM emulates guest ring 0 (the kvm_pvm module is
 * loaded, or MINIVMM_HOST_EMULATES_RING0=1|0 says so). */
bool emulate_host_ring0_emulated(void);

/* The command line a Linux kernel gets: the parameters this host needs
 * that the user did not give, then append; snapshot: the boot may be
 * snapshotted (--snapshot), which needs more.  Writes into buf
 * (NUL-terminated); -1 if it does not fit in size bytes. */
int emulate_linux_cmdline(const char *append, bool snapshot, char *buf,
			  size_t size);
/* Announces on stderr what emulate_linux_cmdline added ("minivmm: adding
 * 'X' to the kernel command line: why"), once the input is known good. */
void emulate_linux_cmdline_notes(const char *append, bool snapshot);

#endif
