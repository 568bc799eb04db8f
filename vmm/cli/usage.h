/* SPDX-License-Identifier: MIT */
/* minivmm --help's text (vmm/cli/usage.c). */
#ifndef MINIVMM_USAGE_H
#define MINIVMM_USAGE_H

#include <stdio.h>

void cli_usage(FILE *out);

#endif
