/* SPDX-License-Identifier: MIT */
/*
 * The one part of an 8042 keyboard controller a guest uses to reset the
 * machine: command 0xfe ("pulse the reset line") written to the command
 * port (0x64 on a PC).  Status reads return 0 (no data, input buffer empty), so
 * Linux's reboot path (kb_wait, then outb(0xfe, 0x64)) gets there at once.
 * There is no keyboard: the FADT says so, and Linux's i8042 driver stays
 * away.  What a reset does is the VMM's business, through the callback.
 */
#ifndef MINIVMM_I8042_RESET_H
#define MINIVMM_I8042_RESET_H

#include "vmm/bus.h"

#define I8042_CMD_RESET		0xfe

struct i8042_reset {
	void (*reset)(void *ctx);
	void *ctx;
};

/* Register one port, the command port, with opaque = a struct
 * i8042_reset that outlives the bus. */
extern const struct bus_ops i8042_reset_ops;

#endif
