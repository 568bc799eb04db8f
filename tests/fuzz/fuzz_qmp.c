// SPDX-License-Identifier: MIT
/*
 * The QMP command parser (vmm/qmp/stream.c, session.c, commands.c): the
 * input is the byte stream a client sends, cut into messages as the
 * server cuts it; every message is answered by the session over a fake
 * target that records what it was asked.
 *
 * Checked:
 *   - no message handed over is longer than QMP_MSG_MAX;
 *   - every reply is one line of JSON: an object with exactly one of
 *     "return" and "error", an error with a string class and desc;
 *   - before qmp_capabilities succeeds nothing reaches the target;
 *   - STOP and RESUME events follow the state changes exactly (a second
 *     stop sends none).
 */
#include "tests/fuzz/fuzz_util.h"
#include "vmm/qmp/session.h"
#include "vmm/qmp/stream.h"

#include <cjson/cJSON.h>

static struct qmp_session s;
static struct qmp_stream rx;
static bool paused;
static unsigned int calls, stops_seen, resumes_seen, stop_changes,
		    resume_changes;

static enum qmp_run_state f_state(void *ctx)
{
	(void)ctx;
	calls++;
	return paused ? QMP_PAUSED : QMP_RUNNING;
}

static int f_stop(void *ctx, char *err, size_t len)
{
	(void)ctx, (void)err, (void)len;
	calls++;
	if (paused)
		return 0;
	paused = true;
	stop_changes++;
	return 1;
}

static int f_cont(void *ctx, char *err, size_t len)
{
	(void)ctx, (void)err, (void)len;
	calls++;
	if (!paused)
		return 0;
	paused = false;
	resume_changes++;
	return 1;
}

/* Fails on every other call, to cover error replies too. */
static int f_op(void *ctx, char *err, size_t len)
{
	(void)ctx;
	if (++calls & 1)
		return 0;
	snprintf(err, len, "refused");
	return -1;
}

static unsigned int f_ncpus(void *ctx)
{
	(void)ctx;
	calls++;
	return 3;
}

static long f_thread(void *ctx, unsigned int i)
{
	(void)ctx;
	FZ_CHECK(i < 3, "thread of vCPU %u", i);
	return (long)i;
}

static int f_snapshot(void *ctx, const char *file, bool go_on, char *err,
		      size_t len)
{
	(void)go_on;
	FZ_CHECK(file && file[0], "snapshot to an empty name");
	return f_op(ctx, err, len);
}

static cJSON *f_stats(void *ctx, char *err, size_t len)
{
	(void)ctx;
	if (++calls & 1)
		return cJSON_CreateObject();
	snprintf(err, len, "refused");
	return NULL;
}

static int f_msr(void *ctx, int log, int count, bool *log_now,
		 bool *count_now, char *err, size_t len)
{
	FZ_CHECK(log >= -1 && log <= 1 && count >= -1 && count <= 1,
		 "msr flags %d %d", log, count);
	*log_now = log == 1;
	*count_now = count == 1;
	return f_op(ctx, err, len);
}

static void f_event(void *ctx, const char *name, cJSON *data)
{
	(void)ctx;
	if (!strcmp(name, "STOP"))
		stops_seen++;
	if (!strcmp(name, "RESUME"))
		resumes_seen++;
	cJSON_Delete(data);
}

static const struct qmp_target_ops ops = {
	f_state, f_stop, f_cont, f_op, f_op, f_op, f_op, f_ncpus, f_thread,
	f_snapshot, f_stats, f_msr, f_event,
};
static const struct qmp_target target = { &ops, NULL };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	return 0;
}

static void check_reply(const char *r)
{
	size_t n = strlen(r);
	cJSON *j, *e;

	FZ_CHECK(n && r[n - 1] == '\n' && !memchr(r, '\n', n - 1),
		 "reply is not one line: %s", r);
	j = cJSON_Parse(r);
	FZ_CHECK(cJSON_IsObject(j), "reply is not an object: %s", r);
	e = cJSON_GetObjectItemCaseSensitive(j, "error");
	FZ_CHECK(!e != !cJSON_GetObjectItemCaseSensitive(j, "return"),
		 "reply has not exactly one of return, error: %s", r);
	FZ_CHECK(!e || (cJSON_IsString(cJSON_GetObjectItem(e, "class")) &&
			cJSON_IsString(cJSON_GetObjectItem(e, "desc"))),
		 "error without class or desc: %s", r);
	cJSON_Delete(j);
}

static void answer(void)
{
	bool before = s.negotiated;
	unsigned int calls0 = calls;
	char *r;

	FZ_CHECK(rx.len <= QMP_MSG_MAX, "message of %zu bytes", rx.len);
	r = qmp_session_handle(&s, rx.buf, rx.len);
	if (!r)
		return;		/* out of memory */
	check_reply(r);
	free(r);
	FZ_CHECK(before || calls == calls0, "a command ran before "
		 "capabilities negotiation");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	paused = false;
	calls = stops_seen = resumes_seen = stop_changes = resume_changes = 0;
	qmp_session_init(&s, &target);
	qmp_stream_init(&rx);
	for (size_t i = 0; i < size; i++) {
		switch (qmp_stream_byte(&rx, (char)data[i])) {
		case QMP_RX_MSG:
			answer();
			break;
		case QMP_RX_TOO_LONG:
			free(qmp_too_long());
			break;
		case QMP_RX_NONE:
			break;
		}
	}
	FZ_CHECK(stops_seen == stop_changes && resumes_seen == resume_changes,
		 "events %u/%u for state changes %u/%u", stops_seen,
		 resumes_seen, stop_changes, resume_changes);
	return 0;
}
