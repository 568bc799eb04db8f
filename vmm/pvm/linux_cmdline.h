/* SPDX-License-Identifier: MIT */
/*
 * The words a Linux kernel's command line gets where KVM emulates guest
 * ring 0 (quirk linux-cmdline), each unless the user gave it (or, for a
 * key=value word, another value of that key, which is kept with a
 * warning):
 *
 *   noxsave                XSAVE stays visible to ring 0 whatever CPUID
 *                          says, and the emulator cannot run
 *                          XSAVE/XRSTOR: Linux then uses fxsave/fxrstor.
 *   clearcpuid=smap,popcnt,ssse3,erms,fsrm
 *                          SMAP, POPCNT and SSSE3 cannot be hidden in
 *                          CPUID here (clac, stac and popcnt would each
 *                          exit; the emulator has no SIMD for Linux's
 *                          SSSE3 BLAKE2s); without ERMS/FSRM Linux's rep
 *                          movs/stos move 8 bytes per emulated step, not 1.
 *                          The kernel is tainted 'S'.
 *   noreplace-smp          a 1-CPU Linux would rewrite each LOCK prefix
 *                          through a text_poke (costly shadow paging).
 *   lapic=notscdeadline    the periodic boot tick on a one-shot timer can
 *                          catch up for good in emulated ring 0.
 * and for a boot that may be snapshotted (--snapshot):
 *   clocksource=kvm-clock  the guest TSC cannot be offset here: a
 *                          restored tsc clocksource would catch up on the
 *                          time on disk; kvmclock is restored by value.
 *   no-kvmapf              a restored async-PF MSR wakes every task that
 *                          might wait on a page.
 *
 * The words go first: anything after a "--" is for init.
 */
#ifndef MINIVMM_PVM_LINUX_CMDLINE_H
#define MINIVMM_PVM_LINUX_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

/* The words above that append lacks, then append, into buf
 * (NUL-terminated); snapshot: the boot may be snapshotted.  -1 if it does
 * not fit in size bytes. */
int pvm_linux_cmdline(const char *append, bool snapshot, char *buf,
		      size_t size);
/* Says on stderr what pvm_linux_cmdline adds ("minivmm: adding 'X' to the
 * kernel command line: why") and warns of a kept key=value the host
 * needs otherwise; the number of words added. */
unsigned int pvm_linux_cmdline_notes(const char *append, bool snapshot);

#endif
