// SPDX-License-Identifier: MIT
/*
 * Console output on the 16550 at ABI_UART_PORT.
 *
 * No init and no LSR polling: minivmm's UART accepts a byte at any time
 * and ignores line settings, and every port access is a VM exit, so one
 * exit per character is the floor.  (A real 16550 would need the
 * THR-empty wait, LSR bit 5.)  Lines end in a bare '\n' so that logs grep
 * cleanly.
 */
#include "firmware/fw.h"
#include "firmware/io.h"

void serial_putc(char c)
{
	outb(ABI_UART_PORT, (uint8_t)c);
}
