// SPDX-License-Identifier: MIT
#include "tools/test/result.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#define STATUS_PASS	1	/* (0 << 1) | 1 */
#define STATUS_SKIP	77	/* (38 << 1) | 1: report_summary, all skipped */
#define STATUS_ABORT	127	/* (63 << 1) | 1: abort() */
#define STATUS_TIMEOUT	124

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case V_PASS:	return "PASS";
	case V_FAIL:	return "FAIL";
	case V_SKIP:	return "SKIP";
	case V_TIMEOUT:	return "TIMEOUT";
	case V_XFAIL:	return "XFAIL";
	case V_XPASS:	return "XPASS";
	case V_FLAKY:	return "FLAKY";
	default:	return "-";
	}
}

void result_expect_fail(struct result *r)
{
	if (r->v == V_FAIL || r->v == V_TIMEOUT)
		r->v = V_XFAIL;
	else if (r->v == V_PASS || r->v == V_FLAKY)
		r->v = V_XPASS;
}

const char *result_summary(const char *line)
{
	static const char tag[] = "SUMMARY: ";

	if (strncmp(line, tag, sizeof(tag) - 1))
		return NULL;
	return line + sizeof(tag) - 1;
}

static void set(struct result *r, enum verdict v, const char *fmt,
		const char *a, int n)
{
	r->v = v;
	snprintf(r->text, sizeof(r->text), fmt, a, n);
}

/* The test reported failure (or called abort()). */
static void failed(const struct ending *e, struct result *r)
{
	r->v = V_FAIL;
	if (e->code == STATUS_ABORT)
		snprintf(r->text, sizeof(r->text), "%s%saborted", e->summary,
			 e->summary[0] ? "; " : "");
	else if (e->summary[0])
		snprintf(r->text, sizeof(r->text), "%s", e->summary);
	else	/* the status says what the test wrote: (v << 1) | 1 */
		snprintf(r->text, sizeof(r->text), "exit code %d", e->code);
}

static void by_signal(const struct ending *e, struct result *r)
{
	if (e->timed_out) {
		r->v = V_TIMEOUT;
		snprintf(r->text, sizeof(r->text), "timeout; duration=%gs",
			 e->timeout);
		return;
	}
	r->v = V_FAIL;
	snprintf(r->text, sizeof(r->text), "terminated on SIG%s",
		 sigabbrev_np(e->code) ? sigabbrev_np(e->code) : "?");
}

void result_from_minivmm(const struct ending *e, struct result *r)
{
	if (!e->exited || e->timed_out) {
		by_signal(e, r);
		return;
	}
	if (e->code == 0 && e->powered_off && e->poweroff_pass) {
		set(r, V_PASS, "%s", e->summary[0] ? e->summary :
		    "powered off", 0);
	} else if (e->code == STATUS_TIMEOUT && !e->test_exit) {
		r->v = V_TIMEOUT;
		snprintf(r->text, sizeof(r->text), "timeout; duration=%gs",
			 e->timeout);
	} else if (!e->test_exit) {
		/* minivmm's own end: its first message says why, and the
		 * instruction when the report names one. */
		r->v = V_FAIL;
		snprintf(r->text, sizeof(r->text), "%s%s%s (status %d)",
			 e->first_err ? e->first_err : e->last_err,
			 e->insn && e->insn[0] ? ": " : "",
			 e->insn ? e->insn : "", e->code);
	} else if (e->code == STATUS_PASS) {
		set(r, V_PASS, "%s", e->summary, 0);
	} else if (e->code == STATUS_SKIP) {
		set(r, V_SKIP, "%s", e->summary, 0);
	} else {
		failed(e, r);
	}
}

void result_from_qemu(const struct ending *e, struct result *r)
{
	if (!e->exited || e->timed_out) {
		by_signal(e, r);
		return;
	}
	switch (e->code) {
	case 0:
		set(r, V_FAIL, "%s", e->summary[0] ? e->summary :
		    "QEMU ended without a test exit", 0);
		return;
	case STATUS_PASS:
		if (!e->err_lines) {
			set(r, V_PASS, "%s", e->summary, 0);
		} else if (!e->guest_output) {
			/* The suite's "premature failure": QEMU refused the
			 * command line (an unknown device...). */
			set(r, V_SKIP, "%s", e->last_err, 0);
		} else {
			set(r, V_FAIL, "%s", e->last_err, 0);
		}
		return;
	case STATUS_SKIP:
		set(r, V_SKIP, "%s", e->summary, 0);
		return;
	case STATUS_TIMEOUT:
		r->v = V_TIMEOUT;
		snprintf(r->text, sizeof(r->text), "timeout; duration=%gs",
			 e->timeout);
		return;
	}
	failed(e, r);
}
