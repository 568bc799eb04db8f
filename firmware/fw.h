/* SPDX-License-Identifier: MIT */
/*
 * The firmware's internal services: console output and ending the VM.
 * Every failure ends the VM through fw_fail(); nothing hangs.
 */
#ifndef FW_FW_H
#define FW_FW_H

#include <stdint.h>

/* serial.c: buffered console; ring 0 sends the buffer with
 * console_flush() (fw_exit() flushes too). */
void serial_putc(char c);
void console_flush(void);

/* print.c: %s %c %d %u %x, with 0-padding, width and l/ll/z modifiers. */
void fw_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* exit.c: end the VM with a test-exit status (0 = success), from ring 0
 * or ring 3. */
__attribute__((noreturn)) void fw_exit(uint32_t status);
/* Print "firmware: error: <msg>" and exit with ABI_FW_FAIL_MAGIC | reason. */
__attribute__((noreturn, format(printf, 2, 3)))
void fw_fail(uint32_t reason, const char *fmt, ...);

#endif
