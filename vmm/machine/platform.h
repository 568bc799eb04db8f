/* SPDX-License-Identifier: MIT */
/*
 * The PC platform devices beyond the core ones, most of them there for
 * payloads written against QEMU (the kvm-unit-tests): fw_cfg at 0x510, the
 * CMOS RTC at 0x70 (with a timer thread that raises its interrupts on
 * time) and QEMU's pc-testdev.
 */
#ifndef MINIVMM_PLATFORM_H
#define MINIVMM_PLATFORM_H

#include <pthread.h>
#include <stdbool.h>

#include "devices/fw_cfg.h"
#include "devices/test/pc_testdev.h"
#include "devices/rtc.h"

struct vm;

struct platform {
	struct fw_cfg fw_cfg;
	struct rtc rtc;
	struct pc_testdev testdev;
	/* The RTC's timer: waits for its next interrupt-raising event. */
	pthread_t timer;
	bool timer_started;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* wakes the timer */
	pthread_cond_t idle;		/* the timer left rtc_poll */
	bool quit;
	bool paused;			/* a snapshot is being taken */
	bool polling;			/* the timer is in rtc_poll */
};

/* Creates the devices and registers them on vm's buses; -1 after
 * printing why. */
int platform_add(struct vm *vm);
void platform_destroy(struct vm *vm);
/* Stops the RTC timer from raising IRQ 8 (returns once it is out of the
 * RTC), or lets it go on: the snapshot pause protocol's quiesce and
 * resume for these devices. */
void platform_pause_timer(struct platform *p, bool pause);

#endif
