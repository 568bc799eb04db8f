/* SPDX-License-Identifier: MIT */
/*
 * Boot timing: host timestamps (CLOCK_MONOTONIC, relative to process start)
 * for VMM events and for the milestone bytes the guest writes to the
 * boot-progress port.  Printed with --timing.
 */
#ifndef MINIVMM_TIMING_H
#define MINIVMM_TIMING_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define TIMING_MAX_EVENTS	64

struct timing_event {
	uint64_t ns;		/* since process start */
	int code;		/* milestone byte, or -1 for a VMM event */
	const char *what;	/* static string */
};

struct timing {
	pthread_mutex_t lock;
	uint64_t start_ns;	/* monotonic time of process start */
	int n;
	struct timing_event ev[TIMING_MAX_EVENTS];
	uint64_t dropped;
};

void timing_init(struct timing *t);
uint64_t timing_now_ns(void);
void timing_event(struct timing *t, const char *what);
void timing_milestone(struct timing *t, uint8_t code);
const char *timing_milestone_name(uint8_t code);
/* ns of the first event with this code, or 0 if none. */
uint64_t timing_find(struct timing *t, int code);
void timing_print(struct timing *t, FILE *out);

#endif
