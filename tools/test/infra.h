/* SPDX-License-Identifier: MIT */
/*
 * minivmm test's own failures, told apart from the tests': one line on
 * stderr, and when the CI engine asks for it (Bazel's
 * TEST_INFRASTRUCTURE_FAILURE_FILE: the component on line 1, what went
 * wrong on line 2) that file too.  Before anything runs the host is
 * checked: /dev/kvm opens and takes a VM (minivmm's own kvm_open, every
 * capability it needs), and the minivmm binary starts.  A host that
 * fails this ends the run with status 3 (TEST_STATUS_INFRA), bad input
 * (options, manifest, xfail file, shard variables) with status 2.
 */
#ifndef MINIVMM_TEST_INFRA_H
#define MINIVMM_TEST_INFRA_H

#define TEST_STATUS_FAILED	1	/* a test failed */
#define TEST_STATUS_USAGE	2	/* bad usage or input */
#define TEST_STATUS_INFRA	3	/* the host or the VMM cannot run tests */

/* Prints "minivmm: test: <what>" on stderr and keeps it (the first one
 * wins) with component for infra_write.  Returns -1. */
int infra_error(const char *component, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Writes the kept failure (or, if none was kept, "exited with status N")
 * to $TEST_INFRASTRUCTURE_FAILURE_FILE when that is set and status >= 2. */
void infra_write(int status);

/* 0, or -1 after infra_error: /dev/kvm cannot be opened or create a VM. */
int infra_check_kvm(void);
/* 0, or -1 after infra_error: `vmm --version` does not run. */
int infra_check_vmm(const char *vmm);

#endif
