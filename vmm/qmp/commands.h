/* SPDX-License-Identifier: MIT */
/*
 * The QMP commands minivmm answers: QEMU's (qmp_capabilities,
 * query-status, stop, cont, system_reset, system_powerdown, quit,
 * query-cpus-fast, inject-nmi, query-version, query-commands) and its
 * own under x-minivmm-.  Each declares its arguments (names, types,
 * which are required); qmp_command_run checks them against the table
 * before the command sees them.
 */
#ifndef MINIVMM_QMP_COMMANDS_H
#define MINIVMM_QMP_COMMANDS_H

#include <stddef.h>

#include "vmm/qmp/target.h"

struct cJSON;

/* QMP error classes. */
#define QMP_GENERIC_ERROR	"GenericError"
#define QMP_COMMAND_NOT_FOUND	"CommandNotFound"

struct qmp_result {
	struct cJSON *ret;	/* the "return" value, or NULL on error */
	const char *class;	/* on error */
	char desc[256];
};

/* True if name is a command minivmm knows. */
bool qmp_command_exists(const char *name);
/* Runs command name with args (an object or NULL) over t: r->ret on
 * success, else r->class and r->desc. */
void qmp_command_run(const struct qmp_target *t, const char *name,
		     const struct cJSON *args, struct qmp_result *r);
/* The version object query-version returns and the greeting shows. */
struct cJSON *qmp_version(void);

#endif
