/* SPDX-License-Identifier: MIT */
/*
 * The host end of a guest console device, as the command line gives it
 * (--serial for COM1 and COM2, --virtio-console): stdio, pty,
 * unix:PATH, file:PATH or none.  Syntax only; vmm/console/chardev.h
 * opens it.
 */
#ifndef MINIVMM_SERIAL_OPT_H
#define MINIVMM_SERIAL_OPT_H

#include <stdbool.h>
#include <stddef.h>

#define SERIAL_OPT_MAX		2	/* --serial: COM1, COM2 */
#define SERIAL_OPT_UNIX_MAX	107	/* sun_path less its NUL */

enum serial_kind {
	SERIAL_STDIO,	/* the console: stdout, stdin (or --console's) */
	SERIAL_NONE,	/* output dropped, no input */
	SERIAL_FILE,	/* output only, to a file (created/truncated) */
	SERIAL_PTY,	/* a new pseudo-terminal, its path on stderr */
	SERIAL_UNIX,	/* a listening unix socket, one client at a time */
};

struct serial_opt {
	enum serial_kind kind;
	const char *path;		/* file: and unix: */
};

/* 0, or -1 with why in err. */
int serial_opt_parse(const char *v, struct serial_opt *o, char *err,
		     size_t errlen);
/* "stdio", "pty", "unix", "file", "none". */
const char *serial_opt_kind_name(enum serial_kind k);

#endif
