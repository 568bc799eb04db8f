/* SPDX-License-Identifier: MIT */
/*
 * The quirk table of PVM hosts (KVM with guest ring 0 emulated): every
 * work-around under vmm/pvm/, hooked in at the fixed points of host/quirks.h.
 * Chosen by the host profile (host.c) and by nothing else.
 */
#ifndef MINIVMM_PVM_QUIRKS_H
#define MINIVMM_PVM_QUIRKS_H

#include "vmm/host/quirks.h"

extern const struct host_quirks pvm_quirks;

#endif
