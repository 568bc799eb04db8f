// SPDX-License-Identifier: MIT
#include "devices/i8042_reset.h"

#include <string.h>

static void i8042_read(void *opaque, uint64_t off, uint8_t *data,
		       uint32_t len)
{
	(void)opaque;
	(void)off;
	memset(data, 0, len);	/* status: nothing pending, ready */
}

static void i8042_write(void *opaque, uint64_t off, const uint8_t *data,
			uint32_t len)
{
	struct i8042_reset *r = opaque;

	if (off == 0 && len == 1 && data[0] == I8042_CMD_RESET)
		r->reset(r->ctx);
}

const struct bus_ops i8042_reset_ops = {
	.read = i8042_read,
	.write = i8042_write,
};
