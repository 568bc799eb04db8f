/* SPDX-License-Identifier: MIT */
/*
 * Ending the VM with a test-exit status (0 = success), from ring 0 or
 * ring 3.
 */
#ifndef FW_EXIT_H
#define FW_EXIT_H

#include <stdint.h>

__attribute__((noreturn)) void fw_exit(uint32_t status);

#endif
