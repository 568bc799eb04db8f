/* SPDX-License-Identifier: MIT */
/*
 * What one manifest entry means for a run: SKIP with a reason (the suite's
 * own reasons: group, arch, accel, check, missing file; and minivmm's: a
 * QEMU option or device minivmm has no equivalent for, shell syntax in
 * the arguments), or the command lines for minivmm and for QEMU (--peer
 * qemu, built as the suite's x86/run builds it).
 *
 * QEMU parameters minivmm maps: -smp, -m, -append, -cpu's +flag/-flag
 * where the
 * flag is a CPUID feature minivmm knows (cpuid_flags.h; the model itself
 * is taken as "host", as QEMU here must use -cpu host too), the devices
 * minivmm always has (pc-testdev, pci-testdev, isa-debug-exit).  Options
 * that change nothing a test can see of minivmm (-machine pit=off,
 * -global, -overcommit, -enable-kvm, -accel kvm, -cpu properties such as
 * vendor= or host-phys-bits) are noted in the log and dropped.
 */
#ifndef MINIVMM_TEST_PLAN_H
#define MINIVMM_TEST_PLAN_H

#include <limits.h>
#include <stdbool.h>

#include "tools/test/manifest.h"
#include "tools/test/words.h"

#define PLAN_REASON_MAX		192
#define PLAN_NOTES_MAX		512
#define PLAN_ARGV_MAX		(2 * WORDS_MAX + 48)

struct plan_opts {
	const char *kernel_dir;		/* files are relative to it */
	const char *vmm;		/* minivmm's path (argv[0] of runs) */
	const char *qemu;		/* QEMU binary for the peer, or NULL */
	const char *qemu_extra;		/* appended to QEMU's command */
	const char *env_file;		/* the environment module */
	double timeout;			/* > 0: overrides every test's */
	bool named;			/* the user named the test */
	/* Reads a file for check = path=value (a fake in tests); returns
	 * 0 with the first line in buf, -1 if unreadable. */
	int (*read_file)(const char *path, char *buf, unsigned long size);
};

struct plan {
	const struct manifest_test *t;
	char skip[PLAN_REASON_MAX];	/* "": run it (both VMMs) */
	char vmm_skip[PLAN_REASON_MAX];	/* "": minivmm can run it */
	char notes[PLAN_NOTES_MAX];	/* what was dropped, for the log */
	double timeout;
	bool poweroff_pass;		/* poweroff = pass */
	bool snapshot;			/* snapshot = port (snap.h) */
	/* Set by snap.c when the run restores a snapshot instead. */
	char restore_file[PATH_MAX];
	char env_args[4096 + 8];	/* ARGS=<append> */
	char kernel[PATH_MAX];
	/* NULL-terminated argument vectors (pointers into the plan). */
	char *vmm_argv[PLAN_ARGV_MAX];
	char *qemu_argv[PLAN_ARGV_MAX];
	/* storage */
	struct words args, params, extra, qextra;
	char smp[16], memory[32], cpuid[256], timeout_s[32];
	char test_append[4096];		/* test_args joined */
	char append[4096];		/* what minivmm gets: test_args, or a
					 * -append in qemu_params */
	bool has_append;
	char qemu_smp[16];
};

/* Fills p for t.  Never fails: what cannot run is a SKIP with a reason
 * (skip: the suite's own reasons, for both columns; vmm_skip: minivmm's).
 * Free with plan_free. */
void plan_make(const struct manifest_test *t, const struct plan_opts *o,
	       struct plan *p);
void plan_free(struct plan *p);

#endif
