// SPDX-License-Identifier: MIT
/* The Linux rows of the snapshot group (snapshot_linux.h). */
#include "tools/bench/snapshot_linux.h"
#include "tools/bench/pin.h"
#include "tools/bench/run.h"
#include "tools/bench/snapshot_rows.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPEAT	20
#define PARALLEL	3
#define TIMEOUT_S	900.0
#define SETTLE_S	10	/* parallel restores sampled this long at most */
#define CHECKS		"minivmm.init=check minivmm.cpus=1 minivmm.rng=virtio"

struct lx {
	struct bench_run *b;
	char snap[PATH_MAX], append[1024], env[256];
	uint64_t ready[MAX_REPEAT], write[MAX_REPEAT], run[MAX_REPEAT],
		 shell[MAX_REPEAT], verdict[MAX_REPEAT], boot_verdict[1];
	size_t nready, nwrite, nrestore, nboot;
	double file_mib, data_mib;
	char why[BENCH_NOTE_MAX];	/* why no snapshot came (the row's note) */
};

/* exe ARGS... --timing --console none (boots) */
static int child(struct lx *l, const char *const *args,
		 struct bench_child *ch)
{
	return bench_exec_vmm(l->b->exe, args, TIMEOUT_S, ch);
}

static uint64_t ns(double ms)
{
	return (uint64_t)(ms * 1e6);
}

/* A boot to the ready point, where init asks for the snapshot; false
 * (and l->why) when none came: later boots would fail the same way. */
static bool take(struct lx *l)
{
	const char *args[] = { "--kernel", l->b->o.linux_kernel, "--initrd",
			       l->b->o.linux_initrd, "-m", "128M", "--rng",
			       "--append", l->append, "--snapshot", l->snap,
			       "--snapshot-at", "port", NULL };
	struct bench_child ch;
	double t = -1, ms;

	bench_progress(l->b, "snapshot", "linux-boot-to-ready");
	unlink(l->snap);
	if (child(l, args, &ch) == 0 &&
	    (t = bench_timing_ms(ch.err, "snapshot: vCPUs paused")) > 0) {
		l->ready[l->nready++] = ns(t);
		if (bench_snapshot_written(ch.err, &ms, &l->file_mib,
					   &l->data_mib) == 0)
			l->write[l->nwrite++] = ns(ms);
	} else {
		/* linux-init.sh fails at once without mvsnap. */
		snprintf(l->why, sizeof(l->why), "no snapshot: the boot to "
			 "the ready point %s %d; does INITRD hold /bin/mvsnap?",
			 ch.timed_out ? "timed out, status" :
			 "ended with status", ch.status);
		fprintf(stderr, "minivmm bench: snapshot: %s\n", l->why);
	}
	bench_child_free(&ch);
	return t > 0;
}

static void restore(struct lx *l)
{
	const char *args[] = { "--restore", l->snap, "--append-env", l->env,
			       NULL };
	struct bench_child ch;
	double r, s, v;

	bench_progress(l->b, "snapshot", "linux-restore");
	if (child(l, args, &ch) == 0 &&
	    (r = bench_timing_ms(ch.err, "vCPUs started")) > 0 &&
	    (s = bench_timing_ms(ch.err, "first guest output after the "
				 "restore")) >= r &&
	    (v = bench_timing_ms(ch.err, "exit")) >= s) {
		l->run[l->nrestore] = ns(r);
		l->shell[l->nrestore] = ns(s);
		l->verdict[l->nrestore++] = ns(v);
	}
	bench_child_free(&ch);
}

/* The same test booted whole: init finds no snapshot armed (STATUS 3)
 * and goes on with the command line's parameters. */
static void boot_whole(struct lx *l)
{
	char append[1200];
	const char *args[] = { "--kernel", l->b->o.linux_kernel, "--initrd",
			       l->b->o.linux_initrd, "-m", "128M", "--rng",
			       "--append", append, NULL };
	struct bench_child ch;
	double t;

	bench_progress(l->b, "snapshot", "linux-boot-to-verdict");
	snprintf(append, sizeof(append), "%s %s", l->append, CHECKS);
	if (child(l, args, &ch) == 0 && (t = bench_timing_ms(ch.err, "exit"))
	    > 0)
		l->boot_verdict[l->nboot++] = ns(t);
	bench_child_free(&ch);
}

static pid_t spawn(struct lx *l)
{
	pid_t pid = fork();

	if (pid == 0) {
		bench_pin_vmm();
		freopen("/dev/null", "r", stdin);
		freopen("/dev/null", "w", stdout);
		freopen("/dev/null", "w", stderr);
		execl(l->b->exe, l->b->exe, "--restore", l->snap, "--console",
		      "none", "--append-env", l->env, "--timeout", "600",
		      (char *)NULL);
		_exit(126);
	}
	return pid;
}

/* The restores' summed Rss and Pss (KiB) into rss and pss: true only if
 * all are still running (a gone or reaped one reads as nothing). */
static bool sample(const pid_t *pid, long *rss, long *pss)
{
	long r = 0, p = 0;

	for (int i = 0; i < PARALLEL; i++) {
		long ri, pi;

		if (waitpid(pid[i], NULL, WNOHANG) != 0)
			return false;
		ri = bench_smaps_kib(pid[i], "Rss");
		pi = bench_smaps_kib(pid[i], "Pss");
		if (ri <= 0 || pi <= 0)
			return false;
		r += ri;
		p += pi;
	}
	*rss = r;
	*pss = p;
	return true;
}

/* Three restores running their checks at once: the last sample (every
 * 100 ms) taken while all three ran, up to SETTLE_S in.  On a fast host
 * the checks end within seconds, so no fixed instant would do. */
static void parallel(struct lx *l)
{
	struct bench_result *x = bench_new_row(l->b, "snap_linux_parallel_mem",
					       0, "default", "minivmm",
					       "snapshot");
	pid_t pid[PARALLEL];
	long sum_rss = 0, sum_pss = 0;
	double at = 0;

	bench_progress(l->b, "snapshot", "linux-parallel");
	for (int i = 0; i < PARALLEL; i++)
		pid[i] = spawn(l);
	for (int t = 1; t <= SETTLE_S * 10; t++) {
		nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
		if (!sample(pid, &sum_rss, &sum_pss))
			break;
		at = t / 10.0;
	}
	for (int i = 0; i < PARALLEL; i++) {
		if (pid[i] > 0)
			kill(pid[i], SIGTERM);
		waitpid(pid[i], NULL, 0);
	}
	x->median_ns = x->p10_ns = x->p90_ns = -1;
	x->median_cycles = x->p10_cycles = x->p90_cycles = -1;
	if (!sum_rss) {
		x->status = BENCH_FAILED;
		snprintf(x->note, sizeof(x->note), "a restore was gone before "
			 "the first sample (0.1 s)");
		l->b->failed = true;
		return;
	}
	snprintf(x->note, sizeof(x->note), "%d Linux restores, %.1f s into "
		 "their checks: RSS %.1f MiB, PSS %.1f MiB each", PARALLEL, at,
		 sum_rss / 1024.0 / PARALLEL, sum_pss / 1024.0 / PARALLEL);
	snprintf(x->extra, sizeof(x->extra), "restores=%d at_s=%.1f "
		 "rss_mib=%.1f pss_mib=%.1f", PARALLEL, at,
		 sum_rss / 1024.0 / PARALLEL, sum_pss / 1024.0 / PARALLEL);
}

static void ratio(struct bench_result *fast, const struct bench_result *slow,
		  const char *what)
{
	if (fast->status != BENCH_OK || slow->status != BENCH_OK)
		return;
	snprintf(fast->note, sizeof(fast->note), "%s; %.0fx faster than the "
		 "boot to the same point", what,
		 slow->median_ns / fast->median_ns);
}

unsigned int bench_snapshot_linux_steps(const struct bench_run *b)
{
	unsigned int r = b->o.linux_repeat ? b->o.linux_repeat : 1;

	return 2 * r + 2;
}

void bench_run_snapshot_linux(struct bench_run *b)
{
	static struct lx l;
	unsigned int reps = b->o.linux_repeat ? b->o.linux_repeat : 1;
	struct bench_result *ready, *shell, *bv, *rv;
	char note[160];

	memset(&l, 0, sizeof(l));
	l.b = b;
	if (reps > MAX_REPEAT)
		reps = MAX_REPEAT;
	snprintf(l.snap, sizeof(l.snap), "%s/linux.snap", b->tmp);
	snprintf(l.append, sizeof(l.append), "console=ttyS0 %s "
		 "minivmm.ready=port", b->o.linux_append ? b->o.linux_append :
		 "");
	snprintf(l.env, sizeof(l.env), "ARGS=%s", CHECKS);
	for (unsigned int i = 0; i < reps; i++) {
		if (!take(&l))
			break;
		restore(&l);
	}
	if (l.nready)
		boot_whole(&l);
	ready = bench_snapshot_row(b, "snap_linux_boot_ready", l.ready,
				   l.nready, "boot: process start to init's "
				   "ready point (its snapshot request)");
	if (!l.nready) {
		memcpy(ready->note, l.why, sizeof(ready->note));
		return;
	}
	snprintf(note, sizeof(note), "snapshot write (pause to file "
		 "renamed); file %.0f MiB (sparse), %.1f MiB written",
		 l.file_mib, l.data_mib);
	bench_snapshot_row(b, "snap_linux_write", l.write, l.nwrite, note);
	bench_snapshot_row(b, "snap_linux_restore_run", l.run, l.nrestore,
			   "restore: process start to vCPUs running (the "
			   "guest's first instruction)");
	shell = bench_snapshot_row(b, "snap_linux_restore_shell", l.shell,
				   l.nrestore, "restore: process start to "
				   "init's first output (shell running)");
	ratio(shell, ready, "restore: process start to init's first output "
	      "(shell running)");
	bv = bench_snapshot_row(b, "snap_linux_boot_verdict", l.boot_verdict,
				l.nboot, "full boot: process start to the "
				"user-space checks' verdict");
	rv = bench_snapshot_row(b, "snap_linux_restore_verdict", l.verdict,
				l.nrestore, "restore: process start to the "
				"same verdict");
	ratio(rv, bv, "restore: process start to the same verdict");
	parallel(&l);
	unlink(l.snap);
}
