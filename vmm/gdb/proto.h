/* SPDX-License-Identifier: MIT */
/*
 * The GDB remote protocol's command handler: answers one packet of a
 * session (session.h) into a reply, or returns the action the stub must
 * carry out.  Registers, memory, breakpoints and run control here; the
 * q, Q and v packets in query.c.
 */
#ifndef MINIVMM_GDB_PROTO_H
#define MINIVMM_GDB_PROTO_H

#include "vmm/gdb/session.h"

/* Answers the packet pkt (NUL-ended payload) into tx. */
enum gdb_action gdb_handle(struct gdb_session *s, const char *pkt,
			   struct gdb_tx *tx);

#endif
