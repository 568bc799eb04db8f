/* SPDX-License-Identifier: MIT */
/*
 * The ACPI PM device the firmware's FADT describes (ports and bits in
 * firmware/lib/acpi_build.h): PM1a event (status/enable), PM1a control
 * (S5 sleep = power off) and the 3.579545 MHz PM timer.  "Always in ACPI
 * mode": SCI_EN reads as 1 and no SCI is ever raised.
 */
#ifndef MINIVMM_ACPI_PM_H
#define MINIVMM_ACPI_PM_H

#include <stdint.h>

#include "vmm/bus.h"

struct acpi_pm {
	uint16_t sts, en, cnt;
	uint64_t start_ns;		/* PM timer epoch */
	uint64_t (*now_ns)(void);	/* host clock (a fake in tests) */
	void (*poweroff)(void *ctx);	/* guest entered S5 */
	void *ctx;
};

void acpi_pm_init(struct acpi_pm *pm, uint64_t (*now_ns)(void),
		  void (*poweroff)(void *ctx), void *ctx);

/* Registers and the PM timer's count (as time since its epoch), for
 * snapshots: a restored timer goes on from the saved count. */
struct acpi_pm_state {
	uint16_t sts, en, cnt, reserved;
	uint64_t elapsed_ns;
};

void acpi_pm_get_state(const struct acpi_pm *pm, struct acpi_pm_state *s);
/* -1 (nothing changes) if s is inconsistent. */
int acpi_pm_set_state(struct acpi_pm *pm, const struct acpi_pm_state *s);

/* Registered at ACPI_PM1A_EVT_PORT for ACPI_PM_PORTS_LEN bytes. */
extern const struct bus_ops acpi_pm_ops;

#endif
