/* SPDX-License-Identifier: MIT */
/*
 * fail: the snapshot modules' one way to refuse: formats why into the
 * caller's buffer and returns -1.  Private to the snapshot .c files (hence the
 * short name); the module's callers see only the message.
 */
#ifndef MINIVMM_SNAPSHOT_ERRMSG_H
#define MINIVMM_SNAPSHOT_ERRMSG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

static inline int fail(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

#endif
