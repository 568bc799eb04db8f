/* SPDX-License-Identifier: MIT */
/*
 * `minivmm bench`: boots the benchmark payload (tests/guest/bench.c) under
 * each configuration a case needs, by running this same binary with `run`
 * options; runs the kvm-floor tool and, if asked, QEMU on the same payload;
 * and reports medians, spreads, exits per op and ratios (table on stdout,
 * --json, --report DIR with markdown and SVG charts).
 *
 * Modules: cli.c (options), plan.c (which case runs under
 * which configuration, and its floor counterpart), parse.c (pure
 * parsers of BENCH lines, --timing output and --stats-json), exec.c
 * (child processes), driver.c (the run), floor.c (kvm-floor and the
 * ratios), peer.c (QEMU), host.c (host description),
 * results.c (rows, ranking), table.c / markdown.c /
 * json.c / svg.c / output.c (output), stats.c
 * (statistics, shared with the payload and kvm-floor).
 */
#ifndef MINIVMM_BENCH_H
#define MINIVMM_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BENCH_NAME_MAX		48
#define BENCH_CONFIG_MAX	48
#define BENCH_NOTE_MAX		160
#define BENCH_EXTRA_MAX		256

/* One BENCH or BENCHSKIP line, parsed. */
struct bench_sample {
	char name[BENCH_NAME_MAX];
	int ring;
	bool skipped;			/* BENCHSKIP: reason in extra */
	uint64_t iters, ops_total;
	unsigned int repeats;
	double median_cycles, p10_cycles, p90_cycles;
	double median_ns, p10_ns, p90_ns;	/* < 0: unknown */
	char extra[BENCH_EXTRA_MAX];	/* the words after the fixed keys */
};

enum bench_status { BENCH_OK, BENCH_SKIPPED, BENCH_FAILED };

/* One row of every output: a case under a configuration of one VMM. */
struct bench_result {
	char name[BENCH_NAME_MAX];
	int ring;
	char config[BENCH_CONFIG_MAX];
	const char *vmm;		/* "minivmm", "kvm-floor", "qemu",
					 * "host" (blk floor) */
	const char *group;		/* "pci", "exits", "msr", "memory",
					 * "blk", "boot" */
	enum bench_status status;
	char note[BENCH_NOTE_MAX];	/* why skipped/failed; or a remark */
	uint64_t iters, ops_total;
	unsigned int repeats;
	double median_ns, p10_ns, p90_ns;	/* < 0: unknown */
	double median_cycles, p10_cycles, p90_cycles;	/* < 0: unknown */
	double exits_per_op;		/* < 0: unknown */
	char floor_case[BENCH_NAME_MAX]; /* "" if none */
	double floor_ns;		/* that case's median, timed right
					 * before this row; < 0: not paired */
	double ratio_to_floor;		/* < 0: n/a */
	double ratio_to_best;		/* < 0: n/a */
	double mbps;			/* bandwidth cases; < 0 otherwise */
	char extra[BENCH_EXTRA_MAX];
};

struct bench_results {
	struct bench_result *v;
	size_t n, cap;
};

/* Host and run description for the report. */
struct bench_host {
	char cpu[128];
	char kernel[200];
	char kvm[160];			/* flavour, e.g. "PVM (no hardware...)" */
	char qemu_cpu[64];		/* QEMU's -cpu for --peer qemu */
	bool user_syscalls_undone;	/* guest ring 3 cannot SYSCALL
					 * without minivmm's fix (PVM) */
	char payload_info[512];		/* the BENCHINFO words, default run */
	char floor_info[256];		/* kvm-floor's BENCHINFO words */
	char date[64];
	char load_start[64], load_end[64];	/* /proc/loadavg 1/5/15 min */
	unsigned int repeats;
	bool pinned;			/* --vmm-cpu given: */
	int vmm_cpu;			/* every VMM on this host CPU */
};

/* --- parse.c: pure -------------------------------------------------- */

/* 0 for a BENCH line, 1 for BENCHSKIP, -1 for anything else or a
 * malformed line (no crash on any input). */
int bench_parse_line(const char *line, struct bench_sample *out);
/* The value of key=VALUE among the words of s, copied into buf; false if
 * absent. */
bool bench_word(const char *s, const char *key, char *buf, size_t len);
/* Milliseconds of the first --timing line naming what ("first guest
 * instruction"); -1 if absent. */
double bench_timing_ms(const char *text, const char *what);
/* Exits that are not console or boot bookkeeping (UART, progress,
 * test-exit ports; KVM_EXIT_INTR), from --stats-json text; -1 on error. */
double bench_guest_exits(const char *json_text);

/* --- results -------------------------------------------------------------- */

struct bench_result *bench_results_add(struct bench_results *r);
/* Copies a parsed line's numbers and extra words into x (and mbps=). */
void bench_result_from_sample(struct bench_result *x,
			      const struct bench_sample *s);
void bench_results_free(struct bench_results *r);
/* Fills ratio_to_best: per (name, ring), against the fastest ok row that
 * is not the floor. */
void bench_results_rank(struct bench_results *r);

/* --- table.c, json.c, svg.c: writers -------------------- */

/* "12.3 ns", "4.56 us", "7.89 ms" */
void bench_fmt_ns(char *buf, size_t len, double ns);
void bench_table_write(FILE *out, const struct bench_results *r);
/* The target figures of the issues, measured (never asserted). */
void bench_targets_write(FILE *out, const struct bench_results *r, bool md);
int bench_markdown_write(FILE *out, const struct bench_results *r,
			 const struct bench_host *h, const char *svg_dir_rel);
int bench_json_write(FILE *out, const struct bench_results *r);

struct bench_bar {
	const char *label;
	double value, lo, hi;		/* lo/hi: spread; < 0: none */
	int series;			/* colour: 0 minivmm, 1 floor, 2 peer */
	const char *note;		/* after the value (e.g. MB/s); NULL */
};

/* A horizontal bar chart; log scale when the values span more than two
 * decades.  0, or -1 if there is nothing to draw. */
int bench_svg_write(FILE *out, const char *title, const char *unit,
		    const struct bench_bar *bars, size_t n);
/* One chart per group present in r, into dir/<group>.svg. */
int bench_svg_groups(const char *dir, const struct bench_results *r);

/* --- host.c --------------------------------------------------------- */

struct host;

/* h from the host profile p (vmm/host/host.h: probed once by the caller), and
 * load_start. */
void bench_host_describe(struct bench_host *h, const struct host *p);
/* "0.52 0.61 0.70" from /proc/loadavg, or "unknown". */
void bench_host_load(char *buf, size_t len);

/* --- cli.c ---------------------------------------------------------- */

struct bench_opts {
	unsigned int repeat;		/* --repeat, 1..100 (default 5) */
	unsigned int target_ms;		/* --target-ms per repeat (20) */
	const char *cases;		/* --cases; NULL: all */
	const char *json;		/* --json FILE */
	const char *report;		/* --report DIR */
	bool peer_qemu;			/* --peer qemu */
	const char *payload;		/* --payload ELF (default: beside us) */
	const char *floor;		/* --floor PROGRAM (default: beside us) */
	bool no_floor;			/* --no-floor */
	const char *linux_kernel;	/* --linux-kernel FILE: boot rows */
	const char *linux_initrd;	/* --linux-initrd FILE (with it) */
	const char *linux_append;	/* --linux-append STRING */
	unsigned int linux_repeat;	/* --linux-repeat, 1..20 (default 3) */
};

/* argv[0] is "bench".  0: run; 1: --help was printed; -1: bad usage
 * (message on stderr). */
int bench_opts_parse(struct bench_opts *o, int argc, char **argv);
void bench_usage(FILE *out);

/* --- output.c: the table on stdout, --json, --report ---------------- */

/* 0, or -1 if a file could not be written (said on stderr). */
int bench_write_outputs(const struct bench_opts *o,
			const struct bench_results *r,
			const struct bench_host *h, double elapsed_s);

/* --- peer.c --------------------------------------------------------- */

/* Runs the payload under qemu-system-x86_64 -M q35 with KVM (installing
 * qemu-system-x86 from Debian first when it is missing and we are root)
 * for the selected cases that make sense there; adds a "qemu" row per
 * case, or one skipped row saying why QEMU could not run.  disk (may be
 * "") is the blk cases' image, given to a virtio-blk-pci device.  With
 * only ("NAME:RING") just that case; without, every selected case but
 * the blk ones, which the driver runs one by one right after minivmm's,
 * so both see the same host load. */
void bench_peer_qemu(const struct bench_opts *o, const struct bench_host *h,
		     const char *payload, const char *disk, const char *only,
		     struct bench_results *r);

/* QEMU here (installed as bench_peer_qemu does): true, or false with why. */
bool bench_qemu_ready(char *why, size_t len);
/* "7.2.22" from `qemu-system-x86_64 --version`, or "unknown". */
void bench_qemu_version(char *buf, size_t len);

/* --- the subcommand (bench.c) --------------------------------------------- */

int bench_main(int argc, char **argv);

#endif
