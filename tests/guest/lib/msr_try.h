/* SPDX-License-Identifier: MIT */
/*
 * MSR accesses that may fault: rdmsr/wrmsr under guest_try, returning the
 * vector taken (or a negative value when none was), so a guest can test
 * what a policy does without dying on its #GP.
 */
#ifndef GUEST_LIB_MSR_TRY_H
#define GUEST_LIB_MSR_TRY_H

#include <stdint.h>

/* Reads index into *v (left as 0 on a fault); returns the vector or < 0. */
int msr_try_rd(uint32_t index, uint64_t *v);
/* Writes v to index; returns the vector or < 0. */
int msr_try_wr(uint32_t index, uint64_t v);

#endif
