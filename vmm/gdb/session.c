// SPDX-License-Identifier: MIT
/* What the packet handlers share (proto.h): the session, error replies,
 * stop replies, the step-or-refuse decision. */
#include "vmm/gdb/session.h"

#include <string.h>

#define PAGE		4096ull

void gdb_session_init(struct gdb_session *s, const struct gdb_target *t)
{
	memset(s, 0, sizeof(*s));
	s->t = t;
	gdb_bkpts_init(&s->bk, t->mem);
	s->stop = (struct gdb_stop){ .tid = 0, .signal = 5 };
}

void gdb_error(struct gdb_tx *tx, const char *why)
{
	gdb_tx_reset(tx);
	gdb_tx_str(tx, "E.");
	gdb_tx_str(tx, why);
}

void gdb_stop_reply(struct gdb_session *s, const struct gdb_stop *st,
		    struct gdb_tx *tx)
{
	static const char *const watch[] = { "", "", "watch", "rwatch",
					     "awatch" };

	s->stop = *st;
	s->g_tid = s->c_tid = st->tid;
	gdb_tx_reset(tx);
	gdb_tx_fmt(tx, "T%02xthread:%x;", st->signal & 0xff, st->tid + 1);
	if (st->kind == GDB_STOP_SWBREAK)
		gdb_tx_str(tx, "swbreak:;");
	else if (st->kind == GDB_STOP_HWBREAK)
		gdb_tx_str(tx, "hwbreak:;");
	else if (st->kind == GDB_STOP_WATCH)
		gdb_tx_fmt(tx, "%s:%llx;", watch[st->wtype],
			   (unsigned long long)st->addr);
}

enum gdb_action gdb_step_or_refuse(struct gdb_session *s, unsigned int tid,
				   struct gdb_tx *tx)
{
	const char *why = s->t->cannot_step ?
			  s->t->cannot_step(s->t->ctx, tid) : NULL;

	if (why) {
		gdb_error(tx, why);
		return GDB_ACT_REPLY;
	}
	s->action_tid = tid;
	return GDB_ACT_STEP;
}

int gdb_where(struct gdb_session *s, uint64_t addr, uint64_t *gpa,
		 size_t *room)
{
	*room = (size_t)(PAGE - (addr & (PAGE - 1)));
	if (s->phys) {
		*gpa = addr;
		return 0;
	}
	return s->t->translate(s->t->ctx, s->g_tid, addr, gpa);
}

long gdb_read_mem(struct gdb_session *s, uint64_t addr, uint8_t *buf,
		  size_t len)
{
	size_t done = 0;

	while (done < len) {
		uint64_t gpa;
		size_t room, n;

		if (gdb_where(s, addr + done, &gpa, &room) < 0)
			break;
		n = len - done < room ? len - done : room;
		if (s->t->mem.read(s->t->mem.ctx, gpa, buf + done, n) < 0)
			break;
		gdb_sw_mask_read(&s->bk, gpa, buf + done, n);
		done += n;
	}
	return done ? (long)done : -1;
}
