/* SPDX-License-Identifier: MIT */
/*
 * Boot milestones read off the guest console for --timing: the first
 * line containing each marker (a Linux kernel's "Linux version" banner and
 * "Run /init as init process", then the "@@ init started" and "@@ verdict"
 * lines of the test init, tests/boot/linux-init.sh) becomes a timing event,
 * once.  Owns the start of the line being assembled; the caller serialises
 * the feed.
 */
#ifndef MINIVMM_CONSOLE_MARKS_H
#define MINIVMM_CONSOLE_MARKS_H

#include <stddef.h>
#include <stdint.h>

#include "vmm/run/timing.h"

#define CONSOLE_MARKS_LINE	128	/* markers are looked for up to here */

struct console_marks {
	struct timing *timing;
	char line[CONSOLE_MARKS_LINE + 1];
	size_t len;
	unsigned int seen;	/* bit i: marker i recorded */
};

void console_marks_init(struct console_marks *m, struct timing *t);
void console_marks_feed(struct console_marks *m, const uint8_t *buf, size_t n);

#endif
