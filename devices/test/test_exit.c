// SPDX-License-Identifier: MIT
#include "devices/test/test_exit.h"
#include "firmware/lib/le.h"

#include <string.h>

static void debug_port_write(void *opaque, uint64_t off, const uint8_t *data,
			     uint32_t len)
{
	struct debug_port *p = opaque;
	if (off || len > 4)
		return;
	p->fn(p->ctx, (uint32_t)le_get(data, len), len);
}

/* Reads return all-ones, like an unclaimed ISA port. */
static void debug_port_read(void *opaque, uint64_t off, uint8_t *data,
			    uint32_t len)
{
	(void)opaque;
	(void)off;
	memset(data, 0xff, len);
}

const struct bus_ops debug_port_ops = {
	.read = debug_port_read,
	.write = debug_port_write,
};
