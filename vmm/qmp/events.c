// SPDX-License-Identifier: MIT
/* QMP event lines (events.h). */
#include "vmm/qmp/events.h"
#include "vmm/run/exit_status.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

char *qmp_event_line(const char *name, cJSON *data, int64_t sec,
		     int64_t usec)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *ts;
	char *text, *out = NULL;
	size_t n;

	cJSON_AddStringToObject(root, "event", name);
	if (data)
		cJSON_AddItemToObject(root, "data", data);
	ts = cJSON_AddObjectToObject(root, "timestamp");
	cJSON_AddNumberToObject(ts, "seconds", (double)sec);
	cJSON_AddNumberToObject(ts, "microseconds", (double)usec);
	text = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	if (!text)
		return NULL;
	n = strlen(text);
	out = malloc(n + 2);
	if (out) {
		memcpy(out, text, n);
		memcpy(out + n, "\n", 2);
	}
	free(text);
	return out;
}

char *qmp_event_now(const char *name, cJSON *data)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return qmp_event_line(name, data, t.tv_sec, t.tv_nsec / 1000);
}

/* QEMU's ShutdownCause names, for how minivmm runs end. */
static const char *reason_for(int status, bool *guest)
{
	*guest = true;
	switch (status) {
	case EXIT_GUEST_RESET:
	case EXIT_TRIPLE_FAULT:
		return "guest-reset";
	case EXIT_GUEST_PANIC:
		return "guest-panic";
	case EXIT_USER_QUIT:
		*guest = false;
		return "host-ui";
	case EXIT_VMM_ERROR:
	case EXIT_USAGE:
	case EXIT_EMULATION:
	case EXIT_STALLED:
	case EXIT_TIMEOUT:
		*guest = false;
		return "host-error";
	}
	if (status > EXIT_SIGNAL_BASE) {
		*guest = false;
		return "host-signal";
	}
	return "guest-shutdown";	/* poweroff, test-exit, firmware */
}

cJSON *qmp_shutdown_data(int status, const char *reason)
{
	cJSON *d = cJSON_CreateObject();
	bool guest;
	const char *r = reason_for(status, &guest);

	if (reason) {
		r = reason;
		guest = false;
	}
	cJSON_AddBoolToObject(d, "guest", guest);
	cJSON_AddStringToObject(d, "reason", r);
	/* Not QEMU's: how minivmm itself will exit. */
	cJSON_AddNumberToObject(d, "x-minivmm-exit-status", status);
	return d;
}
