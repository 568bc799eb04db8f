/* SPDX-License-Identifier: MIT */
/*
 * Two one-port debug devices the guest uses to talk to the test harness:
 * test-exit (ABI_TEST_EXIT_PORT: a write of V ends the run with V) and
 * boot-progress (ABI_PROGRESS_PORT: a byte write records a milestone).
 * What happens then is the VMM's business, through the callbacks.
 */
#ifndef MINIVMM_TEST_EXIT_H
#define MINIVMM_TEST_EXIT_H

#include <stdint.h>

#include "vmm/bus.h"

struct debug_port {
	void (*fn)(void *ctx, uint32_t value, uint32_t width);
	void *ctx;
};

/* Register with opaque = a struct debug_port that outlives the bus. */
extern const struct bus_ops debug_port_ops;

#endif
