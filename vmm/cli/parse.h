/* SPDX-License-Identifier: MIT */
/* Parsing of numbers and sizes from user input, with overflow checks. */
#ifndef MINIVMM_PARSE_H
#define MINIVMM_PARSE_H

#include <stdint.h>

/* "256M", "1G", "512K", "4096" (no suffix = MiB, as in QEMU).  0 or -1. */
int parse_size(const char *s, uint64_t *out);
/* Decimal or 0x-hex, whole string, no sign.  0 or -1. */
int parse_u64(const char *s, uint64_t *out);
/* Non-negative decimal seconds with an optional fraction ("2", "0.5"). */
int parse_seconds(const char *s, double *out);

#endif
