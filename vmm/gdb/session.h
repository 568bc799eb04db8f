/* SPDX-License-Identifier: MIT */
/*
 * One gdb session over an abstract target: the target interface (target.c:
 * the VM's vCPUs and memory; the fuzz target and unit test: a fake), the
 * session's state (threads selected, breakpoints, modes), and what the
 * packet handlers (proto.c, query.c) share: error and stop replies, the
 * step-or-refuse decision, guest memory by the session's addressing.
 * Resuming, detaching and killing are actions for the stub (server.c).
 *
 * Threads are vCPUs: gdb's thread id is the vCPU index + 1.
 */
#ifndef MINIVMM_GDB_SESSION_H
#define MINIVMM_GDB_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/gdb/bkpt.h"
#include "vmm/gdb/packet.h"
#include "vmm/gdb/regs.h"

struct gdb_target {
	unsigned int nthreads;
	void *ctx;
	/* 0, or -1 (the vCPU's state cannot be read / written). */
	int (*get)(void *ctx, unsigned int tid, struct gdb_kvm_state *s);
	int (*set)(void *ctx, unsigned int tid, const struct gdb_kvm_state *s);
	/* Linear to guest-physical through vCPU tid's page tables: 0, or
	 * -1 (not mapped). */
	int (*translate)(void *ctx, unsigned int tid, uint64_t la,
			 uint64_t *gpa);
	struct gdb_phys_mem mem;
	/* Why the target refuses to single-step vCPU tid now (NULL: it
	 * can; a host limit, say). */
	const char *(*cannot_step)(void *ctx, unsigned int tid);
	/* Extra text for qRcmd's help (host limits), may be NULL. */
	const char *notes;
};

enum gdb_action {
	GDB_ACT_REPLY,		/* send tx */
	GDB_ACT_CONTINUE,	/* resume every vCPU (no reply now) */
	GDB_ACT_STEP,		/* step vCPU action_tid (no reply now) */
	GDB_ACT_DETACH,		/* send tx (OK), then let the guest run on */
	GDB_ACT_KILL,		/* end minivmm (no reply) */
};

/* Why the guest stopped (the stop reply). */
enum gdb_stop_kind {
	GDB_STOP_SIGNAL,	/* attach, Ctrl-C, a step: just a signal */
	GDB_STOP_SWBREAK,
	GDB_STOP_HWBREAK,
	GDB_STOP_WATCH,		/* addr: the watched address */
};

struct gdb_stop {
	unsigned int tid;
	int signal;		/* 2 SIGINT, 5 SIGTRAP */
	enum gdb_stop_kind kind;
	enum gdb_bp_type wtype;
	uint64_t addr;
};

struct gdb_session {
	const struct gdb_target *t;
	struct gdb_bkpts bk;
	unsigned int g_tid, c_tid;	/* 0-based vCPU */
	bool phys;			/* monitor phys: m/M take GPAs */
	bool no_ack;
	struct gdb_stop stop;		/* the last one, for '?' */
	unsigned int action_tid;
	uint8_t regs[1024];		/* scratch: one register file */
};

void gdb_session_init(struct gdb_session *s, const struct gdb_target *t);
/* The stop reply for st into tx (also kept for '?'). */
void gdb_stop_reply(struct gdb_session *s, const struct gdb_stop *st,
		    struct gdb_tx *tx);

/* A step of vCPU tid, or the target's refusal as an error reply. */
enum gdb_action gdb_step_or_refuse(struct gdb_session *s, unsigned int tid,
				   struct gdb_tx *tx);
/* Guest memory at addr (linear through g_tid's page tables, or physical
 * in phys mode), breakpoints masked out: bytes read (short at the
 * first unmapped page), or -1 if not even the first byte. */
long gdb_read_mem(struct gdb_session *s, uint64_t addr, uint8_t *buf,
		  size_t len);
/* The physical address of addr (linear through g_tid's paging, or as
 * is in phys mode) and the bytes left on its page: 0, or -1 unmapped. */
int gdb_where(struct gdb_session *s, uint64_t addr, uint64_t *gpa,
	      size_t *room);
/* Error replies carry a reason gdb prints: "E.reason". */
void gdb_error(struct gdb_tx *tx, const char *why);

#endif
