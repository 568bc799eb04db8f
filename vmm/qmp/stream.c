// SPDX-License-Identifier: MIT
/* Cutting QMP input into messages (stream.h). */
#include "vmm/qmp/stream.h"

#include <string.h>

void qmp_stream_init(struct qmp_stream *s)
{
	s->len = 0;
	s->depth = 0;
	s->started = s->in_str = s->esc = s->skipping = false;
	s->buf[0] = 0;
}

static void keep(struct qmp_stream *s, char c)
{
	if (s->skipping)
		return;
	if (s->len == QMP_MSG_MAX) {
		s->skipping = true;
		return;
	}
	s->buf[s->len++] = c;
}

static enum qmp_rx finish(struct qmp_stream *s)
{
	enum qmp_rx r = s->skipping ? QMP_RX_TOO_LONG : QMP_RX_MSG;

	s->buf[s->skipping ? 0 : s->len] = 0;
	if (r == QMP_RX_MSG) {
		/* The caller reads buf/len before the next byte. */
		s->started = s->in_str = s->esc = false;
		s->depth = 0;
		return r;
	}
	qmp_stream_init(s);
	return r;
}

/* Inside a string: only the closing quote matters (and a raw newline,
 * which no JSON string holds). */
static enum qmp_rx in_string(struct qmp_stream *s, char c)
{
	if (c == '\n')
		return finish(s);
	keep(s, c);
	if (s->esc)
		s->esc = false;
	else if (c == '\\')
		s->esc = true;
	else if (c == '"')
		s->in_str = false;
	return QMP_RX_NONE;
}

enum qmp_rx qmp_stream_byte(struct qmp_stream *s, char c)
{
	if (!s->started) {
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
			return QMP_RX_NONE;
		s->started = true;
		s->len = 0;
		s->skipping = false;
	}
	if (s->in_str)
		return in_string(s, c);
	if (c == '\n' && !s->depth)
		return finish(s);
	keep(s, c);
	switch (c) {
	case '"':
		s->in_str = true;
		break;
	case '{': case '[':
		s->depth++;
		break;
	case '}': case ']':
		if (s->depth)
			s->depth--;
		if (!s->depth)
			return finish(s);
		break;
	}
	return QMP_RX_NONE;
}
