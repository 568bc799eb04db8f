// SPDX-License-Identifier: MIT
/* --timing's console milestones: each marker's first line only, lines
 * split across writes, CR LF endings, markers past the looked-at start of
 * a long line ignored, and through console_write with output discarded. */
#include "tests/unit/unit.h"
#include "vmm/console/console.h"
#include "vmm/console/console_marks.h"

static struct timing t;
static struct console_marks m;

static void setup(void)
{
	timing_init(&t);
	console_marks_init(&m, &t);
}

static void feed(const char *s)
{
	console_marks_feed(&m, (const uint8_t *)s, strlen(s));
}

/* How many timing events end with what. */
static int events(const char *what)
{
	int n = 0;

	for (int i = 0; i < t.n; i++)
		n += !strcmp(t.ev[i].what, what);
	return n;
}

START_TEST(each_marker_once)
{
	feed("[    0.000000] Linux version 6.1.192-minivmm (minivmm@x)\r\n");
	feed("[   44.067730] Run /init as init process\r\n");
	feed("@@ init started, uptime 52.89\r\n@@ verdict pass\r\n");
	feed("[    0.000000] Linux version again\r\n@@ verdict pass\r\n");
	ck_assert_int_eq(t.n, 4);
	ck_assert_int_eq(events("console: kernel banner (Linux version)"), 1);
	ck_assert_int_eq(events("console: Run /init"), 1);
	ck_assert_int_eq(events("console: init's first line"), 1);
	ck_assert_int_eq(events("console: init's verdict"), 1);
	ck_assert_str_eq(t.ev[1].what, "console: Run /init");
}
END_TEST

START_TEST(split_across_writes)
{
	feed("[ 1.0] Run /in");
	ck_assert_int_eq(t.n, 0);	/* not before the line ends */
	feed("it as init process");
	ck_assert_int_eq(t.n, 0);
	feed("\n");
	ck_assert_int_eq(events("console: Run /init"), 1);
}
END_TEST

START_TEST(only_whole_markers)
{
	char line[400];

	feed("Run /init\n@@ init\nLinux versio\n@@ verdic\n");
	ck_assert_int_eq(t.n, 0);
	/* Past the start that is looked at: not a milestone line. */
	memset(line, 'x', sizeof(line));
	memcpy(line + 300, "@@ verdict\n", 11);
	line[311] = 0;
	feed(line);
	ck_assert_int_eq(t.n, 0);
	feed("@@ verdict fail 1\n");
	ck_assert_int_eq(events("console: init's verdict"), 1);
}
END_TEST

START_TEST(through_the_console)
{
	struct console c;

	ck_assert_int_eq(console_open(&c, CONSOLE_NONE, NULL), 0);
	c.marks = &m;
	console_write(&c, (const uint8_t *)"@@ init started\n", 16);
	console_close(&c);
	ck_assert_int_eq(events("console: init's first line"), 1);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("console_marks");
	TCase *tc = tcase_create("marks");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, each_marker_once);
	tcase_add_test(tc, split_across_writes);
	tcase_add_test(tc, only_whole_markers);
	tcase_add_test(tc, through_the_console);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
