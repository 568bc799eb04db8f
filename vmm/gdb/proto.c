// SPDX-License-Identifier: MIT
/* The register, memory, breakpoint and run-control packets (proto.h);
 * queries are query.c. */
#include "vmm/gdb/proto.h"
#include "vmm/gdb/query.h"

#include <stdio.h>
#include <string.h>

#define MEM_MAX		4096	/* bytes per m/M: fits PacketSize */

static void ok(struct gdb_tx *tx)
{
	gdb_tx_str(tx, "OK");
}

static bool at_end(const char *p)
{
	return *p == 0;
}

/* A gdb thread id: -1 (all), 0 (any) or vCPU index + 1.  "p" prefixed
 * multiprocess ids are not offered, so not parsed. */
static bool parse_tid(const char *p, long *tid)
{
	uint64_t v;

	if (!strcmp(p, "-1")) {
		*tid = -1;
		return true;
	}
	if (!gdb_hex_u64(&p, &v) || !at_end(p) || v > 0xffffffff)
		return false;
	*tid = (long)v;
	return true;
}

static bool tid_ok(const struct gdb_session *s, long tid)
{
	return tid >= 1 && (unsigned long)tid <= s->t->nthreads;
}

/* --- registers ------------------------------------------------------- */

static enum gdb_action read_regs(struct gdb_session *s, struct gdb_tx *tx)
{
	struct gdb_kvm_state st;

	if (s->t->get(s->t->ctx, s->g_tid, &st) < 0) {
		gdb_error(tx, "cannot read the vCPU's registers");
		return GDB_ACT_REPLY;
	}
	gdb_regs_from_kvm(&st, s->regs);
	gdb_tx_hex(tx, s->regs, gdb_regs_size());
	return GDB_ACT_REPLY;
}

static enum gdb_action write_regs(struct gdb_session *s, const char *hex,
				  struct gdb_tx *tx)
{
	size_t n = gdb_regs_size();
	struct gdb_kvm_state st;

	if (strlen(hex) != 2 * n || !gdb_hex_bytes(hex, n, s->regs)) {
		gdb_error(tx, "G wants the whole register file in hex");
		return GDB_ACT_REPLY;
	}
	if (s->t->get(s->t->ctx, s->g_tid, &st) < 0)
		gdb_error(tx, "cannot read the vCPU's registers");
	else if (!gdb_regs_to_kvm(s->regs, &st))
		gdb_error(tx, "segment selectors and control registers are "
			  "read-only");
	else if (s->t->set(s->t->ctx, s->g_tid, &st) < 0)
		gdb_error(tx, "KVM refused the registers");
	else
		ok(tx);
	return GDB_ACT_REPLY;
}

/* p n / P n=value */
static enum gdb_action one_reg(struct gdb_session *s, const char *p,
			       bool write, struct gdb_tx *tx)
{
	struct gdb_kvm_state st;
	size_t off, size;
	uint64_t n;

	if (!gdb_hex_u64(&p, &n) || (write ? *p++ != '=' : !at_end(p)) ||
	    !gdb_reg_slot((unsigned int)(n > GDB_NREGS ? GDB_NREGS : n),
			  &off, &size)) {
		gdb_error(tx, "no such register");
		return GDB_ACT_REPLY;
	}
	if (s->t->get(s->t->ctx, s->g_tid, &st) < 0) {
		gdb_error(tx, "cannot read the vCPU's registers");
		return GDB_ACT_REPLY;
	}
	gdb_regs_from_kvm(&st, s->regs);
	if (!write) {
		gdb_tx_hex(tx, s->regs + off, size);
		return GDB_ACT_REPLY;
	}
	if (strlen(p) != 2 * size ||
	    !gdb_hex_bytes(p, size, s->regs + off)) {
		gdb_error(tx, "P wants the register's bytes in hex");
		return GDB_ACT_REPLY;
	}
	if (gdb_reg_readonly((unsigned int)n) ||
	    !gdb_regs_to_kvm(s->regs, &st))
		gdb_error(tx, "segment selectors and control registers are "
			  "read-only");
	else if (s->t->set(s->t->ctx, s->g_tid, &st) < 0)
		gdb_error(tx, "KVM refused the register");
	else
		ok(tx);
	return GDB_ACT_REPLY;
}

/* --- memory ---------------------------------------------------------- */

static bool parse_range(const char **p, uint64_t *addr, uint64_t *len)
{
	return gdb_hex_u64(p, addr) && *(*p)++ == ',' && gdb_hex_u64(p, len);
}

static enum gdb_action read_mem(struct gdb_session *s, const char *p,
				struct gdb_tx *tx)
{
	uint8_t buf[MEM_MAX];
	uint64_t addr, len;
	long n;

	if (!parse_range(&p, &addr, &len) || !at_end(p)) {
		gdb_error(tx, "m wants ADDR,LENGTH");
		return GDB_ACT_REPLY;
	}
	if (len > MEM_MAX)
		len = MEM_MAX;	/* a short read is allowed */
	if (!len)
		return GDB_ACT_REPLY;
	n = gdb_read_mem(s, addr, buf, (size_t)len);
	if (n < 0)
		gdb_tx_str(tx, "E14");	/* EFAULT: gdb parses m's errors */
	else
		gdb_tx_hex(tx, buf, (size_t)n);
	return GDB_ACT_REPLY;
}

static enum gdb_action write_mem(struct gdb_session *s, const char *p,
				 struct gdb_tx *tx)
{
	uint8_t buf[MEM_MAX];
	uint64_t addr, len;
	size_t done = 0;

	if (!parse_range(&p, &addr, &len) || *p++ != ':' || len > MEM_MAX ||
	    strlen(p) != 2 * len || !gdb_hex_bytes(p, (size_t)len, buf)) {
		gdb_error(tx, "M wants ADDR,LENGTH:HEX (at most 4096 bytes)");
		return GDB_ACT_REPLY;
	}
	while (done < len) {
		uint64_t gpa;
		size_t room, n;

		if (gdb_where(s, addr + done, &gpa, &room) < 0) {
			gdb_error(tx, "not mapped by the vCPU's page tables");
			return GDB_ACT_REPLY;
		}
		n = len - done < room ? (size_t)len - done : room;
		gdb_sw_fix_write(&s->bk, gpa, buf + done, n);
		if (s->t->mem.write(s->t->mem.ctx, gpa, buf + done, n) < 0) {
			gdb_error(tx, "not guest RAM");
			return GDB_ACT_REPLY;
		}
		done += n;
	}
	ok(tx);
	return GDB_ACT_REPLY;
}

/* --- breakpoints ----------------------------------------------------- */

static enum gdb_action breakpoint(struct gdb_session *s, const char *p,
				  bool insert, struct gdb_tx *tx)
{
	const char *why = "no such breakpoint";
	uint64_t type, addr, kind, gpa;
	size_t room;
	int rc;

	if (!gdb_hex_u64(&p, &type) || *p++ != ',' ||
	    !parse_range(&p, &addr, &kind) || (*p && *p != ';')) {
		gdb_error(tx, "Z wants TYPE,ADDR,KIND");
		return GDB_ACT_REPLY;
	}
	if (type > GDB_WP_ACCESS)
		return GDB_ACT_REPLY;	/* empty: not supported */
	if (type == GDB_BP_SW) {
		if (!insert) {
			rc = gdb_sw_remove(&s->bk, addr);
		} else if (gdb_where(s, addr, &gpa, &room) < 0) {
			rc = -1;
			why = "not mapped by the vCPU's page tables";
		} else {
			rc = gdb_sw_insert(&s->bk, addr, gpa, &why);
		}
	} else if (insert) {
		rc = gdb_hw_insert(&s->bk, (enum gdb_bp_type)type, addr,
				   (unsigned int)(kind > 8 ? 0 : kind), &why);
	} else {
		rc = gdb_hw_remove(&s->bk, (enum gdb_bp_type)type, addr,
				   (unsigned int)(kind > 8 ? 0 : kind));
	}
	if (rc < 0)
		gdb_error(tx, why);
	else
		ok(tx);
	return GDB_ACT_REPLY;
}

/* --- run control ----------------------------------------------------- */

/* c/s [ADDR]: resume at ADDR if given. */
static enum gdb_action resume(struct gdb_session *s, const char *p,
			      bool step, struct gdb_tx *tx)
{
	struct gdb_kvm_state st;
	uint64_t addr;

	if (*p) {
		if (!gdb_hex_u64(&p, &addr) || !at_end(p)) {
			gdb_error(tx, "c and s take an optional ADDR");
			return GDB_ACT_REPLY;
		}
		if (s->t->get(s->t->ctx, s->c_tid, &st) < 0) {
			gdb_error(tx, "cannot read the vCPU's registers");
			return GDB_ACT_REPLY;
		}
		st.regs.rip = addr;
		if (s->t->set(s->t->ctx, s->c_tid, &st) < 0) {
			gdb_error(tx, "cannot set RIP");
			return GDB_ACT_REPLY;
		}
	}
	if (!step)
		return GDB_ACT_CONTINUE;
	return gdb_step_or_refuse(s, s->c_tid, tx);
}

/* Hg/Hc TID */
static enum gdb_action set_thread(struct gdb_session *s, const char *p,
				  struct gdb_tx *tx)
{
	char op = *p++;
	long tid;

	if ((op != 'g' && op != 'c') || !parse_tid(p, &tid) ||
	    (tid > 0 && !tid_ok(s, tid))) {
		gdb_error(tx, "no such thread (threads are vCPUs 1..N)");
		return GDB_ACT_REPLY;
	}
	if (tid > 0) {
		if (op == 'g')
			s->g_tid = (unsigned int)tid - 1;
		else
			s->c_tid = (unsigned int)tid - 1;
	}
	ok(tx);
	return GDB_ACT_REPLY;
}

static enum gdb_action thread_alive(struct gdb_session *s, const char *p,
				    struct gdb_tx *tx)
{
	long tid;

	if (!parse_tid(p, &tid) || !tid_ok(s, tid))
		gdb_error(tx, "no such thread");
	else
		ok(tx);
	return GDB_ACT_REPLY;
}

enum gdb_action gdb_handle(struct gdb_session *s, const char *pkt,
			   struct gdb_tx *tx)
{
	gdb_tx_reset(tx);
	switch (pkt[0]) {
	case '?':
		gdb_stop_reply(s, &s->stop, tx);
		return GDB_ACT_REPLY;
	case 'g':
		if (!at_end(pkt + 1))
			break;
		return read_regs(s, tx);
	case 'G':
		return write_regs(s, pkt + 1, tx);
	case 'p':
		return one_reg(s, pkt + 1, false, tx);
	case 'P':
		return one_reg(s, pkt + 1, true, tx);
	case 'm':
		return read_mem(s, pkt + 1, tx);
	case 'M':
		return write_mem(s, pkt + 1, tx);
	case 'Z':
	case 'z':
		return breakpoint(s, pkt + 1, pkt[0] == 'Z', tx);
	case 'c':
		return resume(s, pkt + 1, false, tx);
	case 's':
		return resume(s, pkt + 1, true, tx);
	case 'C':	/* signals mean nothing to a VM: continue */
		return GDB_ACT_CONTINUE;
	case 'S':
		return gdb_step_or_refuse(s, s->c_tid, tx);
	case 'H':
		return set_thread(s, pkt + 1, tx);
	case 'T':
		return thread_alive(s, pkt + 1, tx);
	case 'D':
		ok(tx);
		return GDB_ACT_DETACH;
	case 'k':
		return GDB_ACT_KILL;
	case 'q':
	case 'Q':
	case 'v':
		return gdb_query(s, pkt, tx);
	default:
		break;
	}
	return GDB_ACT_REPLY;	/* empty: not supported */
}
