/* SPDX-License-Identifier: MIT */
/*
 * The q, Q and v packets of a session: features, the target description,
 * threads, monitor commands, vCont.
 */
#ifndef MINIVMM_GDB_QUERY_H
#define MINIVMM_GDB_QUERY_H

#include "vmm/gdb/session.h"

enum gdb_action gdb_query(struct gdb_session *s, const char *pkt,
			  struct gdb_tx *tx);

#endif
