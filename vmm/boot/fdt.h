/* SPDX-License-Identifier: MIT */
/*
 * The machine description handed to the firmware: a flattened device tree
 * (schema in firmware/lib/abi.h) built with libfdt from the config, the
 * memory layout and the placed payload.
 */
#ifndef MINIVMM_FDT_H
#define MINIVMM_FDT_H

#include <stddef.h>

#include "vmm/cli/cli.h"
#include "vmm/boot/loader.h"
#include "vmm/memory.h"

/* Builds the tree into buf (at most size bytes).  0, or a libfdt error
 * (negative) — FDT_ERR_NOSPACE when the command line is too long. */
int fdt_build(void *buf, size_t size, const struct vmm_config *cfg,
	      const struct gmem *mem, const struct payload *p);

#endif
