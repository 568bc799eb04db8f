// SPDX-License-Identifier: MIT
/* Snapshot benchmarks (snapshot.h). */
#include "tools/bench/snapshot.h"
#include "tools/bench/pin.h"
#include "tools/bench/snapshot_linux.h"
#include "tools/bench/snapshot_rows.h"
#include "tools/bench/run.h"
#include "tools/bench/stats.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPEAT	100
#define PARALLEL	3
#define TOUCH_MIB	64
#define TIMEOUT_S	120.0

struct snap_bench {
	struct bench_run *b;
	char payload[PATH_MAX], snap[PATH_MAX + 16];
	uint64_t boot[MAX_REPEAT], write[MAX_REPEAT], run[MAX_REPEAT],
		 verdict[MAX_REPEAT];
	size_t nboot, nwrite, nrestore;
	double file_mib, data_mib;
};

static int child(struct snap_bench *s, const char *const *args,
		 struct bench_child *ch)
{
	return bench_exec_vmm(s->b->exe, args, TIMEOUT_S, ch);
}

static void boot_once(struct snap_bench *s)
{
	const char *args[] = { "--kernel", s->payload, NULL };
	struct bench_child ch;
	double t;

	bench_progress(s->b, "snapshot", "boot");
	if (child(s, args, &ch) == 0 && (t = bench_timing_ms(ch.err, "exit"))
	    > 0)
		s->boot[s->nboot++] = (uint64_t)(t * 1e6);
	bench_child_free(&ch);
}

static int take(struct snap_bench *s, const char *append, bool record)
{
	const char *args[] = { "--kernel", s->payload, "--append", append,
			       "--snapshot", s->snap, "--snapshot-at", "port",
			       NULL };
	struct bench_child ch;
	double ms;
	int rc;

	unlink(s->snap);
	rc = child(s, args, &ch);
	if (rc == 0 && record &&
	    bench_snapshot_written(ch.err, &ms, &s->file_mib,
				   &s->data_mib) == 0)
		s->write[s->nwrite++] = (uint64_t)(ms * 1e6);
	bench_child_free(&ch);
	return rc;
}

static void restore_once(struct snap_bench *s)
{
	const char *args[] = { "--restore", s->snap, NULL };
	struct bench_child ch;
	double t0, t1;

	bench_progress(s->b, "snapshot", "restore");
	if (child(s, args, &ch) == 0 &&
	    (t0 = bench_timing_ms(ch.err, "vCPUs started")) > 0 &&
	    (t1 = bench_timing_ms(ch.err, "exit")) >= t0) {
		s->run[s->nrestore] = (uint64_t)(t0 * 1e6);
		s->verdict[s->nrestore++] = (uint64_t)(t1 * 1e6);
	}
	bench_child_free(&ch);
}

/* --- memory shared by parallel restores ----------------------------------- */

static pid_t spawn(struct snap_bench *s)
{
	pid_t pid = fork();

	if (pid == 0) {
		bench_pin_vmm();
		freopen("/dev/null", "r", stdin);
		freopen("/dev/null", "w", stdout);
		freopen("/dev/null", "w", stderr);
		execl(s->b->exe, s->b->exe, "--restore", s->snap, "--console",
		      "none", "--timeout", "60", (char *)NULL);
		_exit(126);
	}
	return pid;
}

static void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

static void parallel(struct snap_bench *s)
{
	struct bench_result *x = bench_new_row(s->b, "snap_parallel_mem", 0,
					       "default", "minivmm",
					       "snapshot");
	pid_t pid[PARALLEL];
	long rss = 0, pss = 0;
	char append[64];

	bench_progress(s->b, "snapshot", "parallel");
	snprintf(append, sizeof(append), "touch=%d hold", TOUCH_MIB);
	if (take(s, append, false) < 0) {
		x->status = BENCH_FAILED;
		snprintf(x->note, sizeof(x->note), "snapshot run failed");
		s->b->failed = true;
		return;
	}
	for (int i = 0; i < PARALLEL; i++)
		pid[i] = spawn(s);
	/* Until every guest has read back what it touched (or 20 s). */
	for (int t = 0; t < 200; t++) {
		bool all = true;

		for (int i = 0; i < PARALLEL; i++)
			all &= bench_smaps_kib(pid[i], "Rss") > TOUCH_MIB * 1024;
		if (all)
			break;
		sleep_ms(100);
	}
	sleep_ms(200);
	for (int i = 0; i < PARALLEL; i++) {
		rss += bench_smaps_kib(pid[i], "Rss");
		pss += bench_smaps_kib(pid[i], "Pss");
	}
	for (int i = 0; i < PARALLEL; i++) {
		if (pid[i] > 0)
			kill(pid[i], SIGTERM);
		waitpid(pid[i], NULL, 0);
	}
	x->median_ns = x->p10_ns = x->p90_ns = -1;
	x->median_cycles = x->p10_cycles = x->p90_cycles = -1;
	snprintf(x->note, sizeof(x->note), "%d restores of a guest that "
		 "touched %d MiB: RSS %.1f MiB, PSS %.1f MiB each", PARALLEL,
		 TOUCH_MIB, rss / 1024.0 / PARALLEL, pss / 1024.0 / PARALLEL);
	snprintf(x->extra, sizeof(x->extra), "restores=%d touched_mib=%d "
		 "rss_mib=%.1f pss_mib=%.1f", PARALLEL, TOUCH_MIB,
		 rss / 1024.0 / PARALLEL, pss / 1024.0 / PARALLEL);
}

/* --- the run ---------------------------------------------------------------- */

unsigned int bench_snapshot_steps(const struct bench_run *b)
{
	return 3 * b->o.repeat + 1 +
	       (b->o.linux_kernel ? bench_snapshot_linux_steps(b) : 0);
}

void bench_run_snapshot(struct bench_run *b)
{
	static struct snap_bench s;
	char note[160];
	unsigned int reps = b->o.repeat < MAX_REPEAT ? b->o.repeat : MAX_REPEAT;
	struct bench_result *bx, *rx;

	memset(&s, 0, sizeof(s));
	s.b = b;
	/* Beside the benchmark payload (build/guests/, also for the ASan
	 * build's binary). */
	snprintf(s.payload, sizeof(s.payload), "%s", b->payload);
	if (strrchr(s.payload, '/'))
		*strrchr(s.payload, '/') = 0;
	else
		snprintf(s.payload, sizeof(s.payload), ".");
	strncat(s.payload, "/snapshot.elf",
		sizeof(s.payload) - strlen(s.payload) - 1);
	snprintf(s.snap, sizeof(s.snap), "%s/bench.snap", b->tmp);
	for (unsigned int i = 0; i < reps; i++) {
		boot_once(&s);
		bench_progress(b, "snapshot", "take");
		take(&s, "", true);
		restore_once(&s);
	}
	bx = bench_snapshot_row(b, "snap_boot_verdict", s.boot, s.nboot,
		 "full boot: process start to the payload's verdict");
	snprintf(note, sizeof(note), "pause to file renamed; file %.0f MiB "
		 "(sparse), %.1f MiB written", s.file_mib, s.data_mib);
	bench_snapshot_row(b, "snap_write", s.write, s.nwrite, note);
	bench_snapshot_row(b, "snap_restore_run", s.run, s.nrestore,
	    "restore: process start to vCPUs running");
	rx = bench_snapshot_row(b, "snap_restore_verdict", s.verdict, s.nrestore,
		 "restore: process start to the payload's verdict");
	if (bx->status == BENCH_OK && rx->status == BENCH_OK)
		snprintf(rx->note, sizeof(rx->note), "restore: process start "
			 "to the payload's verdict; %.1fx faster than the boot",
			 bx->median_ns / rx->median_ns);
	parallel(&s);
	unlink(s.snap);
	if (b->o.linux_kernel)
		bench_run_snapshot_linux(b);
}
