/* SPDX-License-Identifier: MIT */
/*
 * The names of KVM exit reasons (KVM_EXIT_* in linux/kvm.h, the 6.1 UAPI
 * plus the later ones in vmm/kvm_compat.h): the one table both the exit
 * dispatch's messages and --stats use.
 */
#ifndef MINIVMM_EXIT_REASON_H
#define MINIVMM_EXIT_REASON_H

#include <stdint.h>

/* "KVM_EXIT_HYPERCALL"; NULL for a number no header names. */
const char *exit_reason_name(uint32_t reason);
/* The --stats and --stats-json key: "hypercall", "rdmsr" (lower case,
 * without KVM_EXIT_ and X86_); NULL for a number no header names. */
const char *exit_reason_key(uint32_t reason);

#endif
