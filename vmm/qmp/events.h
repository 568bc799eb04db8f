/* SPDX-License-Identifier: MIT */
/*
 * QMP events as lines: {"event": NAME, "data": {...}, "timestamp":
 * {"seconds": S, "microseconds": U}} (wall-clock time, as QEMU stamps
 * them), and the SHUTDOWN event's reason for a run's exit status.
 */
#ifndef MINIVMM_QMP_EVENTS_H
#define MINIVMM_QMP_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

struct cJSON;

/* The event line ("\n"-ended, malloc'ed) or NULL; data (may be NULL) is
 * consumed.  sec/usec: the timestamp. */
char *qmp_event_line(const char *name, struct cJSON *data, int64_t sec,
		     int64_t usec);
/* The same stamped now. */
char *qmp_event_now(const char *name, struct cJSON *data);
/* SHUTDOWN's data for a run that ends with status (vmm/run/
 * exit_status.h); reason overrides the guess when not NULL (quit,
 * system_reset). */
struct cJSON *qmp_shutdown_data(int status, const char *reason);

#endif
