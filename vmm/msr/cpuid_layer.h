/* SPDX-License-Identifier: MIT */
/*
 * MSRs whose existence CPUID decides, made to behave as the guest's CPUID
 * says: rules added before any of the user's (which override them), with
 * the origin "cpuid".
 *
 *   IA32_SPEC_CTRL          #GP without IBRS, STIBP or SSBD (Intel or AMD
 *                           bits)
 *   IA32_PRED_CMD           #GP without IBPB (or SBPB)
 *   IA32_FLUSH_CMD          #GP without L1D_FLUSH
 *   IA32_ARCH_CAPABILITIES  #GP without ARCH_CAPABILITIES
 *
 * An MSR the CPUID offers stays KVM's unless the host's quirks say
 * otherwise (host/host.h; on PVM hosts pvm/spec_ctrl.h: IA32_SPEC_CTRL a
 * per-vCPU register).  Everything else is left as the rules and KVM have
 * it.
 */
#ifndef MINIVMM_MSR_CPUID_LAYER_H
#define MINIVMM_MSR_CPUID_LAYER_H

#include <stdbool.h>
#include <stddef.h>

#include "vmm/msr/policy.h"

struct host;
struct kvm_cpuid2;

/* Adds the rules for cpuid on host h; 0 or -1 with err. */
int msr_cpuid_layer(struct msr_policy *p, const struct kvm_cpuid2 *cpuid,
		    struct host *h, char *err, size_t errlen);

#endif
