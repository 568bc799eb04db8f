/* SPDX-License-Identifier: MIT */
/*
 * IA32_SPEC_CTRL where KVM emulates guest ring 0 (quirk spec-ctrl): the
 * guest's writes do not stick in KVM there, so where the guest's CPUID
 * offers the MSR (IBRS, STIBP or SSBD) the MSR policy's CPUID layer
 * (msr/cpuid_layer.h) makes it a per-vCPU register ("emulate"): reads
 * return what the guest last wrote.  Every other CPUID-gated MSR stays
 * KVM's.
 */
#ifndef MINIVMM_PVM_SPEC_CTRL_H
#define MINIVMM_PVM_SPEC_CTRL_H

/* The policy action for the CPUID-gated MSR name the guest's CPUID
 * offers: "emulate" for IA32_SPEC_CTRL, NULL for the others. */
const char *pvm_spec_ctrl(const char *name);

#endif
