/* SPDX-License-Identifier: MIT */
/*
 * The ACPI PM device the firmware's FADT describes (ports in
 * firmware/lib/abi.h, bits in firmware/lib/acpi_build.h): PM1a event
 * (status/enable), PM1a control (S5 sleep = power off, S3 = suspend to
 * RAM) and the 3.579545 MHz PM timer.  "Always in ACPI mode": SCI_EN
 * reads as 1.  The fixed power button (acpi_pm_power_button) sets
 * PWRBTN_STS; the SCI line is high while a status bit the guest enabled
 * (PWRBTN only) is set.  What suspending means is the
 * VMM's business (the suspend callback, which returns once the machine
 * has woken up); it then sets the wake status with acpi_pm_woken().
 */
#ifndef MINIVMM_ACPI_PM_H
#define MINIVMM_ACPI_PM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "devices/irq.h"
#include "vmm/bus.h"

/* The registers, by offset from the block's first port (PM1a_EVT). */
#define ACPI_PM_REG_STS		0x0	/* PM1_STS, 16 bits */
#define ACPI_PM_REG_EN		0x2	/* PM1_EN, 16 bits */
#define ACPI_PM_REG_CNT		0x4	/* PM1a_CNT, 16 bits */
#define ACPI_PM_REG_TMR		0x8	/* PM_TMR, 32 bits */
#define ACPI_PM_REGS_LEN	0xc

struct acpi_pm {
	pthread_mutex_t lock;		/* sts, en: guest and QMP threads */
	uint16_t sts, en, cnt;
	struct irq_line sci;		/* none until acpi_pm_set_sci */
	bool sci_level;
	uint64_t start_ns;		/* PM timer epoch */
	uint64_t (*now_ns)(void);	/* host clock (a fake in tests) */
	void (*poweroff)(void *ctx);	/* guest entered S5 */
	void (*suspend)(void *ctx);	/* guest entered S3; NULL: ignored */
	void *ctx;
};

void acpi_pm_init(struct acpi_pm *pm, uint64_t (*now_ns)(void),
		  void (*poweroff)(void *ctx), void *ctx);

/* The SCI's line (GSI 9, firmware/lib/abi.h). */
void acpi_pm_set_sci(struct acpi_pm *pm, struct irq_line sci);
/* The power button is pressed: PWRBTN_STS, and the SCI if the guest
 * enabled it.  Returns whether PWRBTN_EN was set. */
bool acpi_pm_power_button(struct acpi_pm *pm);

/* After a wake from S3: WAK_STS, and RTC_STS if the RTC woke it. */
void acpi_pm_woken(struct acpi_pm *pm, bool by_rtc);
/* True if PM1_EN lets the RTC alarm wake the machine. */
bool acpi_pm_rtc_wake(const struct acpi_pm *pm);
/* Registers and the PM timer's count (as time since its epoch), for
 * snapshots: a restored timer goes on from the saved count. */
struct acpi_pm_state {
	uint16_t sts, en, cnt, reserved;
	uint64_t elapsed_ns;
};

void acpi_pm_get_state(const struct acpi_pm *pm, struct acpi_pm_state *s);
/* -1 (nothing changes) if s is inconsistent. */
int acpi_pm_set_state(struct acpi_pm *pm, const struct acpi_pm_state *s);

/* Registered at the block's first port for ACPI_PM_REGS_LEN ports. */
extern const struct bus_ops acpi_pm_ops;

#endif
