/* SPDX-License-Identifier: MIT */
/*
 * The policy table's edit interface, for the rule parser (parse.c): the
 * table (table.c) is a sorted array of disjoint spans; each rule rewrites
 * the spans it covers.  Everything else reads the table through policy.h.
 */
#ifndef MINIVMM_MSR_TABLE_H
#define MINIVMM_MSR_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "vmm/msr/policy.h"

/* Direction masks of a rule. */
#define MSR_DIR_R	1u
#define MSR_DIR_W	2u

/* Records "SRC:LINE:COL"; returns its origin id or UINT32_MAX. */
uint32_t msr_table_add_origin(struct msr_policy *p, const char *src,
			      unsigned int line, size_t col);
/* Sets the dmask directions of [first, last] to e, splitting the spans it
 * cuts; later rules thereby win per MSR and direction.  -1: no memory. */
int msr_table_apply(struct msr_policy *p, uint32_t first, uint32_t last,
		    unsigned int dmask, const struct msr_entry e[2]);

#endif
