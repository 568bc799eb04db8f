/* SPDX-License-Identifier: MIT */
/*
 * Cutting a QMP byte stream into JSON messages, with a bound on each:
 * a message is a top-level JSON value, an object or array ending where
 * its brackets balance (strings and escapes followed), anything else at
 * the next newline.  A raw newline inside a string ends the message too
 * (JSON forbids it; a client that left a quote open recovers at the end
 * of its line).  A message longer than QMP_MSG_MAX is skipped to its end
 * and reported once, so a client sending megabytes costs no memory.
 */
#ifndef MINIVMM_QMP_STREAM_H
#define MINIVMM_QMP_STREAM_H

#include <stdbool.h>
#include <stddef.h>

#define QMP_MSG_MAX_TEXT	65536
#define QMP_MSG_MAX	QMP_MSG_MAX_TEXT

enum qmp_rx {
	QMP_RX_NONE,		/* more bytes needed */
	QMP_RX_MSG,		/* buf[0..len) holds a message, NUL-ended */
	QMP_RX_TOO_LONG,	/* a message past QMP_MSG_MAX ended */
};

struct qmp_stream {
	char buf[QMP_MSG_MAX + 1];
	size_t len;
	size_t depth;		/* open brackets */
	bool started, in_str, esc, skipping;
};

void qmp_stream_init(struct qmp_stream *s);
/* Feeds one byte; QMP_RX_MSG and QMP_RX_TOO_LONG each start the next
 * message afresh. */
enum qmp_rx qmp_stream_byte(struct qmp_stream *s, char c);

#endif
