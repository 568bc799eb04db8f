// SPDX-License-Identifier: MIT
/*
 * echo: reads the console (COM1, polling LSR.DR) and echoes each byte as
 * "<hex>" until it sees 'q', then exits 0.  Tests the host-to-guest half
 * of the console: raw mode, the Ctrl-A escape, and the UART receive path.
 */
#include "lib/guest.h"

#define COM1		ABI_UART_PORT
#define LSR		5
#define LSR_DR		0x01

int payload_main(const struct hvm_start_info *si)
{
	(void)si;
	gputs("echo ready\n");
	for (;;) {
		uint8_t c;

		while (!(inb(COM1 + LSR) & LSR_DR))
			__asm__ volatile("pause");
		c = inb(COM1);
		gprintf("<%02x>", c);
		if (c == 'q') {
			gputs("\n");
			return 0;
		}
	}
}
