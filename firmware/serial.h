/* SPDX-License-Identifier: MIT */
/*
 * The firmware's console: a RAM buffer that ring 0 sends to the 16550 with
 * one `rep outsb` (ring-3 code cannot do port I/O; see serial.c).
 */
#ifndef FW_SERIAL_H
#define FW_SERIAL_H

void serial_putc(char c);
/* Sends the buffer; ring 0 only (fw_exit() flushes too). */
void console_flush(void);

#endif
