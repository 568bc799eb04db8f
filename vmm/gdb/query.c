// SPDX-License-Identifier: MIT
/* The q, Q and v packets: features, the target description, threads,
 * monitor commands, vCont (proto.h). */
#include "vmm/gdb/query.h"

#include <stdio.h>
#include <string.h>

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static enum gdb_action supported(struct gdb_tx *tx)
{
	gdb_tx_fmt(tx, "PacketSize=%x;qXfer:features:read+;swbreak+;"
		   "hwbreak+;QStartNoAckMode+;vContSupported+",
		   GDB_PACKET_MAX);
	return GDB_ACT_REPLY;
}

/* qXfer:features:read:ANNEX:OFFSET,LENGTH */
static enum gdb_action xfer_features(const char *p, struct gdb_tx *tx)
{
	const char *xml = gdb_target_xml();
	size_t total = strlen(xml);
	uint64_t off, len;
	char chunk[GDB_PACKET_MAX / 2];

	if (!starts(p, "target.xml:")) {
		gdb_error(tx, "no such annex (only target.xml)");
		return GDB_ACT_REPLY;
	}
	p += strlen("target.xml:");
	if (!gdb_hex_u64(&p, &off) || *p++ != ',' || !gdb_hex_u64(&p, &len) ||
	    *p) {
		gdb_error(tx, "qXfer wants OFFSET,LENGTH");
		return GDB_ACT_REPLY;
	}
	if (off >= total) {
		gdb_tx_str(tx, "l");
		return GDB_ACT_REPLY;
	}
	if (len > sizeof(chunk) - 1)
		len = sizeof(chunk) - 1;
	if (len > total - off)
		len = total - off;
	memcpy(chunk, xml + off, (size_t)len);
	chunk[len] = 0;
	gdb_tx_str(tx, off + len < total ? "m" : "l");
	gdb_tx_str(tx, chunk);
	return GDB_ACT_REPLY;
}

static enum gdb_action thread_list(struct gdb_session *s, struct gdb_tx *tx)
{
	gdb_tx_str(tx, "m");
	for (unsigned int i = 0; i < s->t->nthreads; i++)
		gdb_tx_fmt(tx, "%s%x", i ? "," : "", i + 1);
	return GDB_ACT_REPLY;
}

static void hex_text(struct gdb_tx *tx, const char *text)
{
	gdb_tx_hex(tx, text, strlen(text));
}

static enum gdb_action thread_extra(struct gdb_session *s, const char *p,
				    struct gdb_tx *tx)
{
	char name[32];
	uint64_t tid;

	if (!gdb_hex_u64(&p, &tid) || *p || !tid || tid > s->t->nthreads) {
		gdb_error(tx, "no such thread");
		return GDB_ACT_REPLY;
	}
	snprintf(name, sizeof(name), "vCPU %u", (unsigned int)tid - 1);
	hex_text(tx, name);
	return GDB_ACT_REPLY;
}

static const char help[] =
	"minivmm monitor commands:\n"
	"  monitor phys   m/M packets (x, set var) take guest-physical "
	"addresses\n"
	"  monitor virt   back to linear addresses through the selected "
	"vCPU's page tables (the default)\n"
	"  monitor where  which mode is on\n";

/* qRcmd,HEX: monitor commands; the reply is their output in hex. */
static enum gdb_action monitor(struct gdb_session *s, const char *p,
			       struct gdb_tx *tx)
{
	char cmd[64], out[1024];
	size_t n = strlen(p) / 2;

	if (strlen(p) % 2 || n >= sizeof(cmd) ||
	    !gdb_hex_bytes(p, n, (uint8_t *)cmd)) {
		gdb_error(tx, "qRcmd wants a short hex-encoded command");
		return GDB_ACT_REPLY;
	}
	cmd[n] = 0;
	if (!strcmp(cmd, "phys") || !strcmp(cmd, "virt")) {
		s->phys = cmd[0] == 'p';
		snprintf(out, sizeof(out), "memory addresses are %s\n",
			 s->phys ? "guest-physical" : "linear (vCPU's paging)");
	} else if (!strcmp(cmd, "where")) {
		snprintf(out, sizeof(out), "memory addresses are %s\n",
			 s->phys ? "guest-physical" : "linear (vCPU's paging)");
	} else if (!strcmp(cmd, "help") || !cmd[0]) {
		snprintf(out, sizeof(out), "%s%s", help,
			 s->t->notes ? s->t->notes : "");
	} else {
		snprintf(out, sizeof(out), "unknown monitor command '%s' "
			 "(monitor help lists them)\n", cmd);
	}
	hex_text(tx, out);
	return GDB_ACT_REPLY;
}

/* vCont;ACTION[:TID];...: the first step action decides (the other
 * vCPUs stay stopped while one steps); otherwise every vCPU continues. */
static enum gdb_action vcont(struct gdb_session *s, const char *p,
			     struct gdb_tx *tx)
{
	bool any = false;

	while (*p == ';') {
		char act = *++p;
		uint64_t tid = 0;

		if (act != 'c' && act != 's' && act != 'C' && act != 'S')
			break;
		p++;
		if ((act == 'C' || act == 'S') && !gdb_hex_u64(&p, &tid))
			break;	/* the signal, ignored */
		tid = 0;
		if (*p == ':') {
			p++;
			if (!strncmp(p, "-1", 2))
				p += 2;
			else if (!gdb_hex_u64(&p, &tid) || !tid ||
				 tid > s->t->nthreads)
				break;
		}
		any = true;
		if (act == 's' || act == 'S')
			return gdb_step_or_refuse(s, tid ? (unsigned int)tid - 1
						  : s->c_tid, tx);
	}
	if (*p || !any) {
		gdb_error(tx, "vCont wants ;c|s|Cxx|Sxx[:TID]...");
		return GDB_ACT_REPLY;
	}
	return GDB_ACT_CONTINUE;
}

enum gdb_action gdb_query(struct gdb_session *s, const char *pkt,
			  struct gdb_tx *tx)
{
	if (starts(pkt, "qSupported"))
		return supported(tx);
	if (starts(pkt, "qXfer:features:read:"))
		return xfer_features(pkt + strlen("qXfer:features:read:"), tx);
	if (!strcmp(pkt, "qfThreadInfo"))
		return thread_list(s, tx);
	if (!strcmp(pkt, "qsThreadInfo")) {
		gdb_tx_str(tx, "l");
		return GDB_ACT_REPLY;
	}
	if (starts(pkt, "qThreadExtraInfo,"))
		return thread_extra(s, pkt + strlen("qThreadExtraInfo,"), tx);
	if (!strcmp(pkt, "qC")) {
		gdb_tx_fmt(tx, "QC%x", s->g_tid + 1);
		return GDB_ACT_REPLY;
	}
	if (starts(pkt, "qAttached")) {
		gdb_tx_str(tx, "1");	/* detach leaves the guest running */
		return GDB_ACT_REPLY;
	}
	if (starts(pkt, "qRcmd,"))
		return monitor(s, pkt + strlen("qRcmd,"), tx);
	if (starts(pkt, "qSymbol")) {
		gdb_tx_str(tx, "OK");
		return GDB_ACT_REPLY;
	}
	if (!strcmp(pkt, "QStartNoAckMode")) {
		s->no_ack = true;
		gdb_tx_str(tx, "OK");
		return GDB_ACT_REPLY;
	}
	if (!strcmp(pkt, "vCont?")) {
		gdb_tx_str(tx, "vCont;c;C;s;S");
		return GDB_ACT_REPLY;
	}
	if (starts(pkt, "vCont;"))
		return vcont(s, pkt + strlen("vCont"), tx);
	if (starts(pkt, "vKill"))
		return GDB_ACT_KILL;
	return GDB_ACT_REPLY;	/* empty: not supported */
}
