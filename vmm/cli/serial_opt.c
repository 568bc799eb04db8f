// SPDX-License-Identifier: MIT
/* --serial and --virtio-console values (serial_opt.h). */
#include "vmm/cli/serial_opt.h"

#include <stdio.h>
#include <string.h>

static const char *const names[] = {
	[SERIAL_STDIO] = "stdio", [SERIAL_NONE] = "none",
	[SERIAL_FILE] = "file", [SERIAL_PTY] = "pty", [SERIAL_UNIX] = "unix",
};

const char *serial_opt_kind_name(enum serial_kind k)
{
	return (unsigned int)k < sizeof(names) / sizeof(names[0]) ? names[k]
								  : "?";
}

static int with_path(const char *v, size_t skip, enum serial_kind k,
		     struct serial_opt *o, char *err, size_t errlen)
{
	const char *p = v + skip;

	if (!*p) {
		snprintf(err, errlen, "%s: needs a path", names[k]);
		return -1;
	}
	if (k == SERIAL_UNIX && strlen(p) > SERIAL_OPT_UNIX_MAX) {
		snprintf(err, errlen, "unix socket path longer than %d bytes",
			 SERIAL_OPT_UNIX_MAX);
		return -1;
	}
	o->kind = k;
	o->path = p;
	return 0;
}

int serial_opt_parse(const char *v, struct serial_opt *o, char *err,
		     size_t errlen)
{
	*o = (struct serial_opt){ SERIAL_STDIO, NULL };
	if (!strcmp(v, "stdio"))
		return 0;
	if (!strcmp(v, "none") || !strcmp(v, "pty")) {
		o->kind = v[0] == 'n' ? SERIAL_NONE : SERIAL_PTY;
		return 0;
	}
	if (!strncmp(v, "file:", 5))
		return with_path(v, 5, SERIAL_FILE, o, err, errlen);
	if (!strncmp(v, "unix:", 5))
		return with_path(v, 5, SERIAL_UNIX, o, err, errlen);
	snprintf(err, errlen, "expected stdio, pty, unix:PATH, file:PATH or "
		 "none");
	return -1;
}
