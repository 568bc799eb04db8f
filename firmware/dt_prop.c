// SPDX-License-Identifier: MIT
/* Checked accessors for one FDT property (see dt_prop.h). */
#include <libfdt.h>

#include "firmware/dt_prop.h"
#include "firmware/lib/abi.h"
#include "firmware/print.h"

#define fail(...)	fw_fail(ABI_FW_FAIL_FDT, __VA_ARGS__)

bool prop_is(const struct prop *p, const char *name)
{
	return p->name[0] == name[0] && !strcmp(p->name, name);
}

const char *prop_string(const struct prop *p)
{
	const char *s = p->val;

	if (p->len <= 0 || s[p->len - 1] != '\0')
		fail("property %s is not a string", p->name);
	return s;
}

uint32_t prop_u32(const struct prop *p)
{
	if (p->len != 4)
		fail("property %s must be one cell", p->name);
	return fdt32_ld(p->val);
}

void prop_u64s(const struct prop *p, uint64_t *v, int n)
{
	if (p->len != n * 8)
		fail("property %s must be %d u64 value(s)", p->name, n);
	for (int i = 0; i < n; i++)
		v[i] = fdt64_ld((const fdt64_t *)p->val + i);
}
