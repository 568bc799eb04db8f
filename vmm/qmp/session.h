/* SPDX-License-Identifier: MIT */
/*
 * One QMP client's protocol state: the greeting, capabilities
 * negotiation, and turning each message (stream.h) into one reply line:
 * {"return": ...} or {"error": {"class": ..., "desc": ...}}, with the
 * client's "id" echoed.  The commands themselves are commands.h; what
 * they act on is the target (target.h).
 */
#ifndef MINIVMM_QMP_SESSION_H
#define MINIVMM_QMP_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "vmm/qmp/target.h"

struct qmp_session {
	const struct qmp_target *target;
	bool negotiated;	/* qmp_capabilities done: commands mode */
};

void qmp_session_init(struct qmp_session *s, const struct qmp_target *t);
/* The greeting line (malloc'ed, "\n"-ended), or NULL (no memory). */
char *qmp_greeting(void);
/* The reply line to message msg (len bytes, NUL-ended), malloc'ed and
 * "\n"-ended, or NULL (no memory). */
char *qmp_session_handle(struct qmp_session *s, const char *msg, size_t len);
/* The reply line to a message past QMP_MSG_MAX. */
char *qmp_too_long(void);

#endif
