// SPDX-License-Identifier: MIT
#include "ready.h"
#include "guest.h"
#include "vmm/layout.h"

#define CTL_MAGIC	(LAYOUT_SNAPCTL_BASE + 0x000)
#define CTL_GENERATION	(LAYOUT_SNAPCTL_BASE + 0x008)
#define CTL_REQUEST	(LAYOUT_SNAPCTL_BASE + 0x010)
#define CTL_ENV_LEN	(LAYOUT_SNAPCTL_BASE + 0x014)
#define CTL_ENV		(LAYOUT_SNAPCTL_BASE + 0x100)
#define CTL_MAGIC_VAL	0x4e53564du	/* "MVSN" */
#define REQUEST_MAGIC	0x50414e53u	/* "SNAP" */

static char args[READY_ARGS_MAX + 1];

/* The value of the ARGS= line of ENV into args; false if there is none. */
static bool env_args(void)
{
	uint32_t n = mmio_read32(CTL_ENV_LEN), at = 0, len = 0;
	bool found = false;

	if (n > READY_ARGS_MAX)
		n = READY_ARGS_MAX;
	while (at < n && !found) {
		found = at + 5 <= n && mmio_read8(CTL_ENV + at) == 'A' &&
			mmio_read8(CTL_ENV + at + 1) == 'R' &&
			mmio_read8(CTL_ENV + at + 2) == 'G' &&
			mmio_read8(CTL_ENV + at + 3) == 'S' &&
			mmio_read8(CTL_ENV + at + 4) == '=';
		if (found)
			at += 5;
		else
			while (at < n && mmio_read8(CTL_ENV + at++) != '\n')
				;
	}
	while (found && at < n && mmio_read8(CTL_ENV + at) != '\n')
		args[len++] = (char)mmio_read8(CTL_ENV + at++);
	args[len] = 0;
	return found;
}

const char *ready_args(const char *boot_cmdline, uint32_t *generation)
{
	uint32_t before;

	*generation = 0;
	/* Under another VMM nothing answers there. */
	if (mmio_read32(CTL_MAGIC) != CTL_MAGIC_VAL)
		return boot_cmdline;
	before = mmio_read32(CTL_GENERATION);
	mmio_write32(CTL_REQUEST, REQUEST_MAGIC);
	*generation = mmio_read32(CTL_GENERATION);
	if (*generation != before && env_args())
		return args;
	return boot_cmdline;
}
