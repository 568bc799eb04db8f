// SPDX-License-Identifier: MIT
#include "vmm/console/console_marks.h"

#include <string.h>

static const struct {
	const char *text;	/* looked for anywhere in the line's start */
	const char *event;	/* the --timing line */
} marks[] = {
	{ "Linux version ", "console: kernel banner (Linux version)" },
	{ "Run /init as init process", "console: Run /init" },
	{ "@@ init started", "console: init's first line" },
	{ "@@ verdict", "console: init's verdict" },
};

#define NMARKS	(sizeof(marks) / sizeof(marks[0]))

void console_marks_init(struct console_marks *m, struct timing *t)
{
	memset(m, 0, sizeof(*m));
	m->timing = t;
}

static void end_line(struct console_marks *m)
{
	m->line[m->len] = 0;
	m->len = 0;
	for (unsigned int i = 0; i < NMARKS; i++) {
		if ((m->seen & (1u << i)) || !strstr(m->line, marks[i].text))
			continue;
		m->seen |= 1u << i;
		timing_event(m->timing, marks[i].event);
	}
}

void console_marks_feed(struct console_marks *m, const uint8_t *buf, size_t n)
{
	if (m->seen == (1u << NMARKS) - 1)
		return;		/* all seen: nothing left to look for */
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			end_line(m);
		} else if (m->len < CONSOLE_MARKS_LINE && buf[i] &&
			   buf[i] != '\r') {
			m->line[m->len++] = (char)buf[i];
		}
	}
}
