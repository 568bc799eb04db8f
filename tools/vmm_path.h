/* SPDX-License-Identifier: MIT */
/*
 * Where the minivmm binary is, for the programs that start it as a child
 * (minivmm-bench, minivmm-test): beside their own executable, as `make`
 * builds and installs them.  MINIVMM in the environment overrides it.
 */
#ifndef MINIVMM_TOOLS_VMM_PATH_H
#define MINIVMM_TOOLS_VMM_PATH_H

#include <stddef.h>

/* The path into buf; -1 (with a line on stderr naming who) if there is
 * no executable minivmm there. */
int vmm_path(const char *who, char *buf, size_t size);

#endif
