/* SPDX-License-Identifier: MIT */
/*
 * Formatted console output and the failure path: every failure ends the VM
 * through fw_fail(); nothing hangs.
 */
#ifndef FW_PRINT_H
#define FW_PRINT_H

#include <stdint.h>

/* %s %c %d %u %x, with 0-padding, width and l/ll/z modifiers. */
void fw_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print "firmware: error: <msg>" and exit with ABI_FW_FAIL_MAGIC | reason. */
__attribute__((noreturn, format(printf, 2, 3)))
void fw_fail(uint32_t reason, const char *fmt, ...);

#endif
