/* SPDX-License-Identifier: MIT */
/*
 * Where `minivmm bench` runs things (--vmm-cpu): every VMM it starts
 * (minivmm, QEMU, kvm-floor) confined to one host CPU, and its own
 * traffic threads (the net cases' sender and sink) on the others, so a
 * comparison does not depend on where the host's scheduler happens to
 * put each thread.  Without --vmm-cpu nothing is pinned.
 */
#ifndef MINIVMM_BENCH_PIN_H
#define MINIVMM_BENCH_PIN_H

#include <stddef.h>

/* Validates and records CPU (one this process may run on): 0, or -1
 * with the reason in why. */
int bench_pin_set(const char *cpu, char *why, size_t len);
/* The recorded CPU, or -1. */
int bench_pin_cpu(void);
/* In a child before exec: onto the recorded CPU (nothing without one). */
void bench_pin_vmm(void);
/* The calling thread onto every allowed CPU but the recorded one (if
 * there is another). */
void bench_pin_traffic(void);

#endif
