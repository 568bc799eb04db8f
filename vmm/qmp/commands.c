// SPDX-License-Identifier: MIT
/* The QMP command table (commands.h). */
#include "vmm/qmp/commands.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum arg_type { ARG_BOOL, ARG_STR, ARG_ARRAY };

struct arg {
	const char *name;
	enum arg_type type;
	bool required;
};

#define MAX_ARGS	3

struct command {
	const char *name;
	void (*run)(const struct qmp_target *t, const cJSON *args,
		    struct qmp_result *r);
	struct arg args[MAX_ARGS];
};

static void fail(struct qmp_result *r, const char *class, const char *fmt,
		 ...) __attribute__((format(printf, 3, 4)));

static void fail(struct qmp_result *r, const char *class, const char *fmt,
		 ...)
{
	va_list ap;

	cJSON_Delete(r->ret);
	r->ret = NULL;
	r->class = class;
	va_start(ap, fmt);
	vsnprintf(r->desc, sizeof(r->desc), fmt, ap);
	va_end(ap);
}

/* A target operation's -1/err as the command's error. */
static bool failed(struct qmp_result *r, int rc, const char *err)
{
	if (rc >= 0)
		return false;
	fail(r, QMP_GENERIC_ERROR, "%s", err);
	return true;
}

static void ok_empty(struct qmp_result *r)
{
	r->ret = cJSON_CreateObject();
}

#define OP(t)	((t)->ops)
#define CTX(t)	((t)->ctx)

/* --- QEMU's commands -------------------------------------------------- */

static void cmd_capabilities(const struct qmp_target *t, const cJSON *args,
			     struct qmp_result *r)
{
	const cJSON *en = cJSON_GetObjectItemCaseSensitive(args, "enable");
	const cJSON *c;

	(void)t;
	cJSON_ArrayForEach(c, en) {
		fail(r, QMP_GENERIC_ERROR, "Capability '%s' not available",
		     cJSON_IsString(c) ? c->valuestring : "?");
		return;
	}
	ok_empty(r);
}

static const char *const state_names[] = {
	[QMP_RUNNING] = "running", [QMP_PAUSED] = "paused",
	[QMP_DEBUG] = "debug", [QMP_SHUTDOWN] = "shutdown",
};

static void cmd_query_status(const struct qmp_target *t, const cJSON *args,
			     struct qmp_result *r)
{
	enum qmp_run_state st = OP(t)->state(CTX(t));

	(void)args;
	r->ret = cJSON_CreateObject();
	cJSON_AddBoolToObject(r->ret, "running", st == QMP_RUNNING);
	cJSON_AddBoolToObject(r->ret, "singlestep", false);
	cJSON_AddStringToObject(r->ret, "status", state_names[st]);
}

static void cmd_stop(const struct qmp_target *t, const cJSON *args,
		     struct qmp_result *r)
{
	char err[200];
	int rc = OP(t)->stop(CTX(t), err, sizeof(err));

	(void)args;
	if (failed(r, rc, err))
		return;
	if (rc > 0)
		OP(t)->event(CTX(t), "STOP", NULL);
	ok_empty(r);
}

static void cmd_cont(const struct qmp_target *t, const cJSON *args,
		     struct qmp_result *r)
{
	char err[200];
	int rc = OP(t)->cont(CTX(t), err, sizeof(err));

	(void)args;
	if (failed(r, rc, err))
		return;
	if (rc > 0)
		OP(t)->event(CTX(t), "RESUME", NULL);
	ok_empty(r);
}

static void cmd_powerdown(const struct qmp_target *t, const cJSON *args,
			  struct qmp_result *r)
{
	char err[200];

	(void)args;
	if (failed(r, OP(t)->powerdown(CTX(t), err, sizeof(err)), err))
		return;
	OP(t)->event(CTX(t), "POWERDOWN", NULL);
	ok_empty(r);
}

static void cmd_reset(const struct qmp_target *t, const cJSON *args,
		      struct qmp_result *r)
{
	cJSON *d = cJSON_CreateObject();
	char err[200];

	(void)args;
	cJSON_AddBoolToObject(d, "guest", false);
	cJSON_AddStringToObject(d, "reason", "host-qmp-system-reset");
	OP(t)->event(CTX(t), "RESET", d);
	if (failed(r, OP(t)->reset(CTX(t), err, sizeof(err)), err))
		return;
	ok_empty(r);
}

static void cmd_quit(const struct qmp_target *t, const cJSON *args,
		     struct qmp_result *r)
{
	char err[200];

	(void)args;
	if (failed(r, OP(t)->quit(CTX(t), err, sizeof(err)), err))
		return;
	ok_empty(r);
}

static void cmd_nmi(const struct qmp_target *t, const cJSON *args,
		    struct qmp_result *r)
{
	char err[200];

	(void)args;
	if (failed(r, OP(t)->nmi(CTX(t), err, sizeof(err)), err))
		return;
	ok_empty(r);
}

static void cmd_query_cpus(const struct qmp_target *t, const cJSON *args,
			   struct qmp_result *r)
{
	unsigned int n = OP(t)->ncpus(CTX(t));
	char path[64];

	(void)args;
	r->ret = cJSON_CreateArray();
	for (unsigned int i = 0; i < n; i++) {
		cJSON *c = cJSON_CreateObject(), *p;

		cJSON_AddNumberToObject(c, "cpu-index", i);
		snprintf(path, sizeof(path), "/machine/vcpu[%u]", i);
		cJSON_AddStringToObject(c, "qom-path", path);
		cJSON_AddNumberToObject(c, "thread-id",
					(double)OP(t)->cpu_thread(CTX(t), i));
		p = cJSON_AddObjectToObject(c, "props");
		cJSON_AddNumberToObject(p, "core-id", 0);
		cJSON_AddNumberToObject(p, "thread-id", 0);
		cJSON_AddNumberToObject(p, "socket-id", i);
		cJSON_AddStringToObject(c, "target", "x86_64");
		cJSON_AddItemToArray(r->ret, c);
	}
}

cJSON *qmp_version(void)
{
	cJSON *v = cJSON_CreateObject();
	cJSON *q = cJSON_AddObjectToObject(v, "qemu");

	/* Not QEMU: 0.0.0 there, minivmm's own version as the package. */
	cJSON_AddNumberToObject(q, "micro", 0);
	cJSON_AddNumberToObject(q, "minor", 0);
	cJSON_AddNumberToObject(q, "major", 0);
	cJSON_AddStringToObject(v, "package", "minivmm " MINIVMM_VERSION);
	return v;
}

static void cmd_query_version(const struct qmp_target *t, const cJSON *args,
			      struct qmp_result *r)
{
	(void)t, (void)args;
	r->ret = qmp_version();
}

static void cmd_query_commands(const struct qmp_target *t, const cJSON *args,
			       struct qmp_result *r);

/* --- minivmm's own --------------------------------------------------- */

static void cmd_snapshot(const struct qmp_target *t, const cJSON *args,
			 struct qmp_result *r)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(args, "file");
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(args, "continue");
	char err[200];

	if (!f->valuestring[0]) {
		fail(r, QMP_GENERIC_ERROR, "Parameter 'file' is empty");
		return;
	}
	if (failed(r, OP(t)->snapshot(CTX(t), f->valuestring,
				      !c || cJSON_IsTrue(c), err,
				      sizeof(err)), err))
		return;
	ok_empty(r);
}

static void cmd_stats(const struct qmp_target *t, const cJSON *args,
		      struct qmp_result *r)
{
	char err[200];

	(void)args;
	r->ret = OP(t)->stats(CTX(t), err, sizeof(err));
	if (!r->ret)
		fail(r, QMP_GENERIC_ERROR, "%s", err);
}

static int tristate(const cJSON *b)
{
	return b ? cJSON_IsTrue(b) : -1;
}

static void cmd_msr_flags(const struct qmp_target *t, const cJSON *args,
			  struct qmp_result *r)
{
	int log = tristate(cJSON_GetObjectItemCaseSensitive(args, "log"));
	int count = tristate(cJSON_GetObjectItemCaseSensitive(args, "count"));
	bool log_now, count_now;
	char err[200];

	if (failed(r, OP(t)->msr_flags(CTX(t), log, count, &log_now,
				       &count_now, err, sizeof(err)), err))
		return;
	r->ret = cJSON_CreateObject();
	cJSON_AddBoolToObject(r->ret, "log", log_now);
	cJSON_AddBoolToObject(r->ret, "count", count_now);
}

static const struct command commands[] = {
	{ "qmp_capabilities", cmd_capabilities, { { "enable", ARG_ARRAY } } },
	{ "query-status", cmd_query_status },
	{ "stop", cmd_stop },
	{ "cont", cmd_cont },
	{ "system_reset", cmd_reset },
	{ "system_powerdown", cmd_powerdown },
	{ "quit", cmd_quit },
	{ "query-cpus-fast", cmd_query_cpus },
	{ "inject-nmi", cmd_nmi },
	{ "query-version", cmd_query_version },
	{ "query-commands", cmd_query_commands },
	{ "x-minivmm-snapshot", cmd_snapshot,
	  { { "file", ARG_STR, true }, { "continue", ARG_BOOL } } },
	{ "x-minivmm-query-stats", cmd_stats },
	{ "x-minivmm-msr-flags", cmd_msr_flags,
	  { { "log", ARG_BOOL }, { "count", ARG_BOOL } } },
};

#define NCOMMANDS	(sizeof(commands) / sizeof(commands[0]))

static void cmd_query_commands(const struct qmp_target *t, const cJSON *args,
			       struct qmp_result *r)
{
	(void)t, (void)args;
	r->ret = cJSON_CreateArray();
	for (size_t i = 0; i < NCOMMANDS; i++) {
		cJSON *c = cJSON_CreateObject();

		cJSON_AddStringToObject(c, "name", commands[i].name);
		cJSON_AddItemToArray(r->ret, c);
	}
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

bool qmp_command_exists(const char *name)
{
	return find(name) != NULL;
}

static bool type_ok(const cJSON *v, enum arg_type t)
{
	switch (t) {
	case ARG_BOOL: return cJSON_IsBool(v);
	case ARG_STR: return cJSON_IsString(v) && v->valuestring;
	case ARG_ARRAY: return cJSON_IsArray(v);
	}
	return false;
}

static const char *const type_names[] = {
	[ARG_BOOL] = "boolean", [ARG_STR] = "string", [ARG_ARRAY] = "array",
};

/* QEMU's wording for each argument mistake. */
static bool args_ok(const struct command *c, const cJSON *args,
		    struct qmp_result *r)
{
	const cJSON *a;

	cJSON_ArrayForEach(a, args) {
		const struct arg *spec = NULL;

		for (int i = 0; i < MAX_ARGS && c->args[i].name; i++)
			if (a->string && !strcmp(a->string, c->args[i].name))
				spec = &c->args[i];
		if (!spec) {
			fail(r, QMP_GENERIC_ERROR, "Parameter '%.64s' is "
			     "unexpected", a->string ? a->string : "");
			return false;
		}
		if (!type_ok(a, spec->type)) {
			fail(r, QMP_GENERIC_ERROR, "Invalid parameter type "
			     "for '%s', expected: %s", spec->name,
			     type_names[spec->type]);
			return false;
		}
	}
	for (int i = 0; i < MAX_ARGS && c->args[i].name; i++) {
		if (c->args[i].required &&
		    !cJSON_GetObjectItemCaseSensitive(args, c->args[i].name)) {
			fail(r, QMP_GENERIC_ERROR, "Parameter '%s' is missing",
			     c->args[i].name);
			return false;
		}
	}
	return true;
}

void qmp_command_run(const struct qmp_target *t, const char *name,
		     const cJSON *args, struct qmp_result *r)
{
	const struct command *c = find(name);

	memset(r, 0, sizeof(*r));
	if (!c) {
		fail(r, QMP_COMMAND_NOT_FOUND, "The command %.64s has not been "
		     "found", name);
		return;
	}
	if (!args_ok(c, args, r))
		return;
	c->run(t, args, r);
	if (!r->ret && !r->class)
		fail(r, QMP_GENERIC_ERROR, "out of memory");
}
