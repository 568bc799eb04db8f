// SPDX-License-Identifier: MIT
/* One client's QMP protocol (session.h). */
#include "vmm/qmp/session.h"
#include "vmm/qmp/commands.h"
#include "vmm/qmp/stream.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void qmp_session_init(struct qmp_session *s, const struct qmp_target *t)
{
	s->target = t;
	s->negotiated = false;
}

/* root as one "\n"-ended line (root is freed). */
static char *line(cJSON *root)
{
	char *text = root ? cJSON_PrintUnformatted(root) : NULL;
	char *out = NULL;
	size_t n;

	cJSON_Delete(root);
	if (!text)
		return NULL;
	n = strlen(text);
	out = malloc(n + 2);
	if (out) {
		memcpy(out, text, n);
		out[n] = '\n';
		out[n + 1] = 0;
	}
	free(text);
	return out;
}

char *qmp_greeting(void)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *q = cJSON_AddObjectToObject(root, "QMP");

	cJSON_AddItemToObject(q, "version", qmp_version());
	cJSON_AddArrayToObject(q, "capabilities");
	return line(root);
}

static char *error_reply(const char *class, const char *desc, cJSON *id)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *e = cJSON_AddObjectToObject(root, "error");

	cJSON_AddStringToObject(e, "class", class);
	cJSON_AddStringToObject(e, "desc", desc);
	if (id)
		cJSON_AddItemToObject(root, "id", id);
	return line(root);
}

char *qmp_too_long(void)
{
	static const char desc[] = "JSON message too long (more than "
				   "65536 bytes)";

	_Static_assert(QMP_MSG_MAX_TEXT == 65536, "the message says so");
	return error_reply(QMP_GENERIC_ERROR, desc, NULL);
}

/* The members QMP allows beside "execute"; NULL if all are fine, else
 * the first that is not. */
static const char *unexpected_member(const cJSON *req)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, req) {
		if (!m->string)
			return "";
		if (strcmp(m->string, "execute") &&
		    strcmp(m->string, "arguments") && strcmp(m->string, "id"))
			return m->string;
	}
	return NULL;
}

static char *dispatch(struct qmp_session *s, const cJSON *req, cJSON *id)
{
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(req, "execute");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(req, "arguments");
	const char *bad = unexpected_member(req);
	struct qmp_result r;
	char desc[128];
	cJSON *root;

	if (!ex)
		return error_reply(QMP_GENERIC_ERROR, "QMP input lacks member "
				   "'execute'", id);
	if (!cJSON_IsString(ex) || !ex->valuestring)
		return error_reply(QMP_GENERIC_ERROR, "QMP input member "
				   "'execute' must be a string", id);
	if (bad) {
		snprintf(desc, sizeof(desc), "QMP input member '%.64s' is "
			 "unexpected", bad);
		return error_reply(QMP_GENERIC_ERROR, desc, id);
	}
	if (args && !cJSON_IsObject(args))
		return error_reply(QMP_GENERIC_ERROR, "QMP input member "
				   "'arguments' must be an object", id);
	if (!s->negotiated && strcmp(ex->valuestring, "qmp_capabilities"))
		return error_reply(QMP_COMMAND_NOT_FOUND, "Expecting "
				   "capabilities negotiation with "
				   "'qmp_capabilities'", id);
	if (s->negotiated && !strcmp(ex->valuestring, "qmp_capabilities"))
		return error_reply(QMP_COMMAND_NOT_FOUND, "Capabilities "
				   "negotiation is already complete, command "
				   "ignored", id);
	qmp_command_run(s->target, ex->valuestring, args, &r);
	if (!r.ret)
		return error_reply(r.class, r.desc, id);
	if (!strcmp(ex->valuestring, "qmp_capabilities"))
		s->negotiated = true;
	root = cJSON_CreateObject();
	cJSON_AddItemToObject(root, "return", r.ret);
	if (id)
		cJSON_AddItemToObject(root, "id", id);
	return line(root);
}

char *qmp_session_handle(struct qmp_session *s, const char *msg, size_t len)
{
	cJSON *req = cJSON_ParseWithLength(msg, len);
	cJSON *id = NULL;
	char *out;

	if (!req)
		return error_reply(QMP_GENERIC_ERROR, "JSON parse error", NULL);
	if (!cJSON_IsObject(req)) {
		cJSON_Delete(req);
		return error_reply(QMP_GENERIC_ERROR, "QMP input must be a "
				   "JSON object", NULL);
	}
	/* The reply carries the request's id, whatever it is. */
	id = cJSON_DetachItemFromObjectCaseSensitive(req, "id");
	out = dispatch(s, req, id);
	cJSON_Delete(req);
	return out;
}
