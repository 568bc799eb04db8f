/* SPDX-License-Identifier: MIT */
/*
 * One property of the machine description as libfdt returns it, and
 * checked accessors that end the VM with ABI_FW_FAIL_FDT on a malformed
 * value.  Used by the device-tree reader (dt.c, dt_pci.c).
 */
#ifndef FW_DT_PROP_H
#define FW_DT_PROP_H

#include <stdbool.h>
#include <stdint.h>

struct prop {
	const char *name;
	const void *val;
	int len;
};

/* Name match; the first-byte test spares most strcmp calls. */
bool prop_is(const struct prop *p, const char *name);
const char *prop_string(const struct prop *p);
uint32_t prop_u32(const struct prop *p);
/* n big-endian u64 values (n <= 4), exactly. */
void prop_u64s(const struct prop *p, uint64_t *v, int n);

#endif
