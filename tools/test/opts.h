/* SPDX-License-Identifier: MIT */
/*
 * minivmm test's options, and the CI engines' environment as their
 * defaults: Bazel's test protocol (XML_OUTPUT_FILE for --junit,
 * TEST_UNDECLARED_OUTPUTS_DIR for --logs, TEST_TMPDIR for --scratch,
 * TESTBRIDGE_TEST_ONLY for --filter, TEST_TIMEOUT as the run's time
 * budget, TEST_SHARD_STATUS_FILE touched, the shard variables) and
 * GitLab's CI_NODE_INDEX/CI_NODE_TOTAL (shard.h).  An option given on the
 * command line always wins over the environment.
 */
#ifndef MINIVMM_TEST_OPTS_H
#define MINIVMM_TEST_OPTS_H

#include <stdbool.h>

#include "tools/test/shard.h"

struct test_opts {
	int jobs;
	double timeout;
	const char *tap, *junit, *markdown, *log_dir, *kernel_dir;
	const char *scratch;		/* snapshots, the environment file */
	const char *qemu_args;
	const char *group, *filter;
	const char *xfail;		/* --xfail FILE */
	bool xpass_ok;
	double xfail_timeout;		/* > 0: expected failures' cap */
	int retries;
	const char *shard_opt;		/* --shard I/N */
	struct shard shard;
	double budget;			/* TEST_TIMEOUT seconds; 0: none */
	const char *shard_status;	/* TEST_SHARD_STATUS_FILE */
	bool peer;
	bool list;			/* --list: print the names, run nothing */
	bool snapshots;			/* snapshot = port entries restore */
	const char *manifest;
	char **names;
	int nnames;
};

/* Parses argv (argv[0] is "test") and the environment into o.  1: help
 * printed; 0: run; -1: bad usage or environment (printed, kept by
 * infra_error). */
int opts_parse(struct test_opts *o, int argc, char **argv);

#endif
