// SPDX-License-Identifier: MIT
/* The QMP protocol without a VM (vmm/qmp/stream.c, session.c,
 * commands.c, events.c): messages cut from a byte stream (split, joined,
 * garbage, half lines, oversized), the greeting, capabilities
 * negotiation as QEMU does it, every command over a fake target with its
 * events, argument checks, ids echoed, and event lines. */
#include "tests/unit/unit.h"
#include "vmm/qmp/commands.h"
#include "vmm/qmp/events.h"
#include "vmm/qmp/session.h"
#include "vmm/qmp/stream.h"
#include "vmm/run/exit_status.h"

#include <cjson/cJSON.h>

/* --- a fake machine -------------------------------------------------- */

static struct {
	enum qmp_run_state st;
	int powerdowns, resets, quits, nmis, snapshots;
	bool fail_next;
	char snap_file[64];
	bool snap_go_on;
	int msr_log, msr_count;
	char events[512];
} f;

static int maybe_fail(char *err, size_t len)
{
	if (!f.fail_next)
		return 0;
	f.fail_next = false;
	snprintf(err, len, "fake failure");
	return -1;
}

static enum qmp_run_state fk_state(void *ctx)
{
	(void)ctx;
	return f.st;
}

static int fk_stop(void *ctx, char *err, size_t len)
{
	(void)ctx;
	if (maybe_fail(err, len))
		return -1;
	if (f.st == QMP_PAUSED)
		return 0;
	f.st = QMP_PAUSED;
	return 1;
}

static int fk_cont(void *ctx, char *err, size_t len)
{
	(void)ctx, (void)err, (void)len;
	if (f.st != QMP_PAUSED)
		return 0;
	f.st = QMP_RUNNING;
	return 1;
}

#define COUNTER(name, field)						\
	static int name(void *ctx, char *err, size_t len)		\
	{								\
		(void)ctx;						\
		if (maybe_fail(err, len))				\
			return -1;					\
		f.field++;						\
		return 0;						\
	}
COUNTER(fk_powerdown, powerdowns)
COUNTER(fk_reset, resets)
COUNTER(fk_quit, quits)
COUNTER(fk_nmi, nmis)

static unsigned int fk_ncpus(void *ctx)
{
	(void)ctx;
	return 2;
}

static long fk_thread(void *ctx, unsigned int i)
{
	(void)ctx;
	return 1000 + i;
}

static int fk_snapshot(void *ctx, const char *file, bool go_on, char *err,
		       size_t len)
{
	(void)ctx;
	if (maybe_fail(err, len))
		return -1;
	snprintf(f.snap_file, sizeof(f.snap_file), "%s", file);
	f.snap_go_on = go_on;
	f.snapshots++;
	return 0;
}

static cJSON *fk_stats(void *ctx, char *err, size_t len)
{
	cJSON *o;

	(void)ctx;
	if (maybe_fail(err, len))
		return NULL;
	o = cJSON_CreateObject();
	cJSON_AddNullToObject(o, "exit_status");
	cJSON_AddObjectToObject(o, "exits");
	return o;
}

static int fk_msr(void *ctx, int log, int count, bool *log_now,
		  bool *count_now, char *err, size_t len)
{
	(void)ctx;
	if (maybe_fail(err, len))
		return -1;
	f.msr_log = log;
	f.msr_count = count;
	*log_now = log == 1;
	*count_now = count == 1;
	return 0;
}

static void fk_event(void *ctx, const char *name, cJSON *data)
{
	(void)ctx;
	strncat(f.events, name, sizeof(f.events) - strlen(f.events) - 2);
	strcat(f.events, " ");
	cJSON_Delete(data);
}

static const struct qmp_target_ops fake_ops = {
	fk_state, fk_stop, fk_cont, fk_powerdown, fk_reset, fk_quit, fk_nmi,
	fk_ncpus, fk_thread, fk_snapshot, fk_stats, fk_msr, fk_event,
};
static const struct qmp_target fake = { &fake_ops, NULL };

static struct qmp_session sess;
static char last[4096];

static void setup(void)
{
	memset(&f, 0, sizeof(f));
	qmp_session_init(&sess, &fake);
}

/* The reply to text, kept in last (one line, "\n"-ended). */
static const char *ask(const char *text)
{
	char *r = qmp_session_handle(&sess, text, strlen(text));

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r[strlen(r) - 1], '\n');
	ck_assert(strchr(r, '\n') == r + strlen(r) - 1);
	snprintf(last, sizeof(last), "%s", r);
	free(r);
	return last;
}

static void negotiate(void)
{
	ck_assert_str_eq(ask("{\"execute\": \"qmp_capabilities\"}"),
			 "{\"return\":{}}\n");
}

#define HAS(s, sub)	do {						\
	const char *has_ = (s);						\
									\
	ck_assert_msg(strstr(has_, (sub)), "'%s' lacks '%s'", has_, (sub)); \
} while (0)

/* --- the stream ------------------------------------------------------- */

static int feed(struct qmp_stream *s, const char *bytes, size_t n,
		char msgs[][256], int *too_long)
{
	int k = 0;

	for (size_t i = 0; i < n; i++) {
		enum qmp_rx r = qmp_stream_byte(s, bytes[i]);

		if (r == QMP_RX_MSG)
			snprintf(msgs[k++], 256, "%.255s", s->buf);
		else if (r == QMP_RX_TOO_LONG)
			(*too_long)++;
	}
	return k;
}

START_TEST(stream_cuts_messages)
{
	static struct qmp_stream s;
	char m[8][256];
	int tl = 0;
	const char *in = "  {\"a\": \"}{\\\"\"}{\"b\":[1,{}]}\r\n"
			 "garbage here\n{\"c\":\n 1}\n\"open string\nnext\n";

	qmp_stream_init(&s);
	ck_assert_int_eq(feed(&s, in, strlen(in), m, &tl), 6);
	ck_assert_str_eq(m[0], "{\"a\": \"}{\\\"\"}");
	ck_assert_str_eq(m[1], "{\"b\":[1,{}]}");
	ck_assert_str_eq(m[2], "garbage here");
	ck_assert_str_eq(m[3], "{\"c\":\n 1}");
	ck_assert_str_eq(m[4], "\"open string");	/* recovers at \n */
	ck_assert_str_eq(m[5], "next");
	ck_assert_int_eq(tl, 0);
}
END_TEST

START_TEST(stream_half_message_waits)
{
	static struct qmp_stream s;
	char m[2][256];
	int tl = 0;

	qmp_stream_init(&s);
	ck_assert_int_eq(feed(&s, "{\"execute\": \"query-st", 21, m, &tl), 0);
	ck_assert_int_eq(feed(&s, "atus\"}", 6, m, &tl), 1);
	ck_assert_str_eq(m[0], "{\"execute\": \"query-status\"}");
}
END_TEST

START_TEST(stream_skips_oversized)
{
	static struct qmp_stream s;
	static char big[3 * QMP_MSG_MAX];
	char m[2][256];
	int tl = 0, n;

	qmp_stream_init(&s);
	memset(big, 'A', sizeof(big));
	memcpy(big, "{\"x\": \"", 7);
	memcpy(big + sizeof(big) - 2, "\"}", 2);
	n = feed(&s, big, sizeof(big), m, &tl);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(tl, 1);
	/* The next message is whole again. */
	ck_assert_int_eq(feed(&s, "{\"y\":1}", 7, m, &tl), 1);
	ck_assert_str_eq(m[0], "{\"y\":1}");
	ck_assert_int_eq(tl, 1);
	{
		char *e = qmp_too_long();

		HAS(e, "{\"error\":{\"class\":\"GenericError\"");
		free(e);
	}
}
END_TEST

/* --- the session ------------------------------------------------------ */

START_TEST(greeting_is_qemu_shaped)
{
	char *g = qmp_greeting();
	cJSON *j = cJSON_Parse(g);
	cJSON *q = cJSON_GetObjectItem(j, "QMP");

	ck_assert_ptr_nonnull(q);
	ck_assert(cJSON_IsArray(cJSON_GetObjectItem(q, "capabilities")));
	ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetObjectItem(
		cJSON_GetObjectItem(q, "version"), "qemu"), "major")));
	HAS(g, "\"package\":\"minivmm ");
	cJSON_Delete(j);
	free(g);
}
END_TEST

START_TEST(commands_need_negotiation)
{
	HAS(ask("{\"execute\": \"query-status\"}"), "\"CommandNotFound\"");
	HAS(last, "Expecting capabilities negotiation");
	ck_assert_int_eq(f.st, QMP_RUNNING);
	HAS(ask("{\"execute\": \"stop\", \"id\": 7}"), "\"id\":7");
	ck_assert_int_eq(f.st, QMP_RUNNING);
	HAS(ask("{\"execute\": \"qmp_capabilities\", \"arguments\": "
		"{\"enable\": [\"oob\"]}}"), "Capability 'oob' not available");
	negotiate();
	HAS(ask("{\"execute\": \"qmp_capabilities\"}"),
	    "negotiation is already complete");
	HAS(ask("{\"execute\": \"query-status\"}"),
	    "{\"return\":{\"running\":true,\"singlestep\":false,"
	    "\"status\":\"running\"}}");
}
END_TEST

START_TEST(bad_requests_get_errors)
{
	static const char *const bad[][2] = {
		{ "garbage", "JSON parse error" },
		{ "{\"execute\": \"stop\"", "JSON parse error" },
		{ "[1, 2]", "must be a JSON object" },
		{ "{}", "lacks member 'execute'" },
		{ "{\"execute\": 5}", "'execute' must be a string" },
		{ "{\"execute\": \"stop\", \"x\": 1}", "'x' is unexpected" },
		{ "{\"execute\": \"stop\", \"arguments\": []}",
		  "'arguments' must be an object" },
		{ "{\"execute\": \"nope\"}", "The command nope has not been" },
		{ "{\"execute\": \"stop\", \"arguments\": {\"a\": 1}}",
		  "Parameter 'a' is unexpected" },
		{ "{\"execute\": \"x-minivmm-snapshot\"}",
		  "Parameter 'file' is missing" },
		{ "{\"execute\": \"x-minivmm-snapshot\", \"arguments\": "
		  "{\"file\": 3}}", "for 'file', expected: string" },
		{ "{\"execute\": \"x-minivmm-snapshot\", \"arguments\": "
		  "{\"file\": \"a\", \"continue\": \"yes\"}}",
		  "for 'continue', expected: boolean" },
		{ "{\"execute\": \"x-minivmm-snapshot\", \"arguments\": "
		  "{\"file\": \"\"}}", "'file' is empty" },
	};

	negotiate();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		HAS(ask(bad[i][0]), "{\"error\":{\"class\":\"");
		HAS(last, bad[i][1]);
	}
	ck_assert_int_eq(f.st, QMP_RUNNING);
	ck_assert_int_eq(f.snapshots, 0);
	ck_assert_str_eq(f.events, "");
}
END_TEST

START_TEST(stop_cont_and_events)
{
	negotiate();
	ck_assert_str_eq(ask("{\"execute\": \"stop\", \"id\": \"a\"}"),
			 "{\"return\":{},\"id\":\"a\"}\n");
	HAS(ask("{\"execute\": \"query-status\"}"), "\"status\":\"paused\"");
	HAS(last, "\"running\":false");
	ask("{\"execute\": \"stop\"}");		/* no second STOP */
	ask("{\"execute\": \"cont\"}");
	ask("{\"execute\": \"cont\"}");
	ask("{\"execute\": \"system_powerdown\"}");
	ask("{\"execute\": \"system_reset\"}");
	ck_assert_str_eq(f.events, "STOP RESUME POWERDOWN RESET ");
	ck_assert_int_eq(f.powerdowns, 1);
	ck_assert_int_eq(f.resets, 1);
	f.st = QMP_DEBUG;
	HAS(ask("{\"execute\": \"query-status\"}"), "\"status\":\"debug\"");
}
END_TEST

START_TEST(other_commands)
{
	negotiate();
	ck_assert_str_eq(ask("{\"execute\": \"inject-nmi\"}"),
			 "{\"return\":{}}\n");
	ck_assert_int_eq(f.nmis, 1);
	HAS(ask("{\"execute\": \"query-cpus-fast\"}"), "\"cpu-index\":1,");
	HAS(last, "\"thread-id\":1001");
	HAS(ask("{\"execute\": \"query-version\"}"), "\"qemu\":{");
	HAS(ask("{\"execute\": \"query-commands\"}"),
	    "{\"name\":\"x-minivmm-snapshot\"}");
	HAS(ask("{\"execute\": \"x-minivmm-query-stats\"}"),
	    "{\"return\":{\"exit_status\":null,\"exits\":{}}}");
	ask("{\"execute\": \"x-minivmm-snapshot\", \"arguments\": "
	    "{\"file\": \"/tmp/x.snap\", \"continue\": false}}");
	ck_assert_str_eq(f.snap_file, "/tmp/x.snap");
	ck_assert(!f.snap_go_on);
	ask("{\"execute\": \"x-minivmm-snapshot\", \"arguments\": "
	    "{\"file\": \"y\"}}");
	ck_assert(f.snap_go_on);	/* continue defaults to true */
	ck_assert_str_eq(ask("{\"execute\": \"x-minivmm-msr-flags\", "
			     "\"arguments\": {\"log\": true}}"),
			 "{\"return\":{\"log\":true,\"count\":false}}\n");
	ck_assert_int_eq(f.msr_log, 1);
	ck_assert_int_eq(f.msr_count, -1);	/* unchanged */
	HAS(ask("{\"execute\": \"x-minivmm-msr-flags\", \"arguments\": "
		"{\"count\": 1}}"), "for 'count', expected: boolean");
	f.fail_next = true;
	HAS(ask("{\"execute\": \"inject-nmi\", \"id\": [1]}"),
	    "{\"error\":{\"class\":\"GenericError\",\"desc\":\"fake "
	    "failure\"},\"id\":[1]}");
	ck_assert_str_eq(ask("{\"execute\": \"quit\"}"), "{\"return\":{}}\n");
	ck_assert_int_eq(f.quits, 1);
}
END_TEST

/* --- events ------------------------------------------------------------- */

START_TEST(event_lines)
{
	cJSON *d = cJSON_CreateObject();
	char *l;

	cJSON_AddStringToObject(d, "action", "poweroff");
	l = qmp_event_line("GUEST_PANICKED", d, 1700000000, 123456);
	ck_assert_str_eq(l, "{\"event\":\"GUEST_PANICKED\",\"data\":"
			 "{\"action\":\"poweroff\"},\"timestamp\":{\"seconds\":"
			 "1700000000,\"microseconds\":123456}}\n");
	free(l);
	l = qmp_event_now("STOP", NULL);
	HAS(l, "{\"event\":\"STOP\",\"timestamp\":{\"seconds\":");
	free(l);
}
END_TEST

static void shutdown_is(int status, const char *reason, const char *want,
			bool guest)
{
	cJSON *d = qmp_shutdown_data(status, reason);

	ck_assert_str_eq(cJSON_GetObjectItem(d, "reason")->valuestring, want);
	ck_assert_int_eq(cJSON_IsTrue(cJSON_GetObjectItem(d, "guest")), guest);
	ck_assert_int_eq(cJSON_GetObjectItem(d, "x-minivmm-exit-status")->
			 valueint, status);
	cJSON_Delete(d);
}

START_TEST(shutdown_reasons)
{
	shutdown_is(EXIT_POWEROFF, NULL, "guest-shutdown", true);
	shutdown_is(42, NULL, "guest-shutdown", true);
	shutdown_is(EXIT_GUEST_RESET, NULL, "guest-reset", true);
	shutdown_is(EXIT_GUEST_PANIC, NULL, "guest-panic", true);
	shutdown_is(EXIT_USER_QUIT, NULL, "host-ui", false);
	shutdown_is(EXIT_TIMEOUT, NULL, "host-error", false);
	shutdown_is(EXIT_SIGNAL_BASE + 15, NULL, "host-signal", false);
	shutdown_is(EXIT_USER_QUIT, "host-qmp-quit", "host-qmp-quit", false);
}
END_TEST

static Suite *qmp_suite(void)
{
	Suite *s = suite_create("qmp");
	TCase *st = tcase_create("stream"), *se = tcase_create("session");
	TCase *ev = tcase_create("events");

	tcase_add_test(st, stream_cuts_messages);
	tcase_add_test(st, stream_half_message_waits);
	tcase_add_test(st, stream_skips_oversized);
	tcase_add_checked_fixture(se, setup, NULL);
	tcase_add_test(se, greeting_is_qemu_shaped);
	tcase_add_test(se, commands_need_negotiation);
	tcase_add_test(se, bad_requests_get_errors);
	tcase_add_test(se, stop_cont_and_events);
	tcase_add_test(se, other_commands);
	tcase_add_test(ev, event_lines);
	tcase_add_test(ev, shutdown_reasons);
	suite_add_tcase(s, st);
	suite_add_tcase(s, se);
	suite_add_tcase(s, ev);
	return s;
}

int main(void)
{
	return unit_run(qmp_suite());
}
