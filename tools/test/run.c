// SPDX-License-Identifier: MIT
#include "tools/test/run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_LEN	512
#define TAIL_LINES	5	/* SUMMARY is among the last five, as the
				 * suite's extract_summary looks */
#define KILL_GRACE_NS	1000000000ull
#define VMM_GRACE_NS	5000000000ull	/* minivmm ends itself at --timeout */

extern char **environ;

struct stream {
	int fd;
	char line[LINE_MAX_LEN];
	size_t len;
};

enum job_state { J_WAIT, J_RUN, J_DONE };

struct job {
	struct run_item *it;
	int kind;
	enum job_state state;
	pid_t pid;
	struct stream out, err;
	FILE *log;
	uint64_t start, deadline, killed_at;
	char tail[TAIL_LINES][LINE_MAX_LEN];
	int ntail;
	char last_err[LINE_MAX_LEN];
	char first_err[LINE_MAX_LEN];	/* minivmm's first message */
	char insn[LINE_MAX_LEN];	/* its failure report's instruction */
	bool test_exit, powered_off, err_lines, guest_output, timed_out;
	bool not_started, no_time;
	double timeout;			/* the watchdog's, in seconds */
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* --- lines ------------------------------------------------------------- */

static void stdout_line(struct job *j, const char *s)
{
	memmove(j->tail[0], j->tail[1], sizeof(j->tail[0]) * (TAIL_LINES - 1));
	snprintf(j->tail[TAIL_LINES - 1], LINE_MAX_LEN, "%s", s);
	if (j->ntail < TAIL_LINES)
		j->ntail++;
}

static void stderr_line(struct job *j, const char *s)
{
	static const char insn[] = "  instruction: ";
	static const char note[] = "minivmm: note: ";

	/* Notes (what minivmm switched on by itself) never say why a test
	 * failed. */
	if (!*s || !strncmp(s, note, sizeof(note) - 1))
		return;
	snprintf(j->last_err, sizeof(j->last_err), "%s", s);
	if (!j->first_err[0])
		snprintf(j->first_err, sizeof(j->first_err), "%s", s);
	if (!strncmp(s, insn, sizeof(insn) - 1))
		snprintf(j->insn, sizeof(j->insn), "%s", s + sizeof(insn) - 1);
	if (strstr(s, "guest test-exit"))
		j->test_exit = true;
	if (!strncmp(s, "minivmm: guest powered off", 26))
		j->powered_off = true;
	if (!strcasestr(s, "warning"))
		j->err_lines = true;
}

/* Appends bytes to the stream's line; complete lines go to fn, \r and
 * trailing blanks removed. */
static void feed(struct job *j, struct stream *st, const char *buf, size_t n,
		 void (*fn)(struct job *, const char *))
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] != '\n') {
			if (st->len < LINE_MAX_LEN - 1)
				st->line[st->len++] = buf[i];
			continue;
		}
		while (st->len && (st->line[st->len - 1] == '\r' ||
				   st->line[st->len - 1] == ' '))
			st->len--;
		st->line[st->len] = 0;
		fn(j, st->line);
		st->len = 0;
	}
}

static void drain(struct job *j, struct stream *st, bool is_out)
{
	char buf[4096];
	ssize_t n = read(st->fd, buf, sizeof(buf));

	if (n <= 0) {
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			return;
		if (st->len)	/* a last line without a newline */
			feed(j, st, "\n", 1, is_out ? stdout_line :
			     stderr_line);
		close(st->fd);
		st->fd = -1;
		return;
	}
	if (j->log)
		fwrite(buf, 1, (size_t)n, j->log);
	if (is_out)
		j->guest_output = true;
	feed(j, st, buf, (size_t)n, is_out ? stdout_line : stderr_line);
}

/* --- processes ---------------------------------------------------------- */

static double now_s(void)
{
	return (double)now_ns() / 1e9;
}

/* A retried run's attempts follow each other in one log. */
static FILE *open_log(const struct run_opts *o, const struct job *j,
		      char *path, size_t size)
{
	snprintf(path, size, "%s/%s%s.log", o->log_dir, j->it->plan.t->name,
		 j->kind == RUN_QEMU ? ".qemu" : "");
	return fopen(path, j->it->ntries && j->kind == RUN_VMM ? "a" : "w");
}

static int spawn(struct job *j, char *const argv[])
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int out[2], err[2], rc;

	if (pipe2(out, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(out[0]);
		close(out[1]);
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, err[1], 2);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
				 POSIX_SPAWN_SETSIGMASK);
	posix_spawnattr_setpgroup(&at, 0);
	{
		sigset_t none;

		sigemptyset(&none);
		posix_spawnattr_setsigmask(&at, &none);
	}
	rc = posix_spawn(&j->pid, argv[0], &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(out[1]);
	close(err[1]);
	if (rc) {
		close(out[0]);
		close(err[0]);
		errno = rc;
		return -1;
	}
	j->out.fd = out[0];
	j->err.fd = err[0];
	fcntl(j->out.fd, F_SETFL, O_NONBLOCK);
	fcntl(j->err.fd, F_SETFL, O_NONBLOCK);
	return 0;
}

static int start(struct job *j, const struct run_opts *o)
{
	struct plan *p = &j->it->plan;
	char *const *argv = j->kind == RUN_QEMU ? p->qemu_argv : p->vmm_argv;
	struct result *r = &j->it->res[j->kind];

	j->timeout = p->timeout;
	if (o->deadline > 0 && o->deadline - now_s() < j->timeout)
		j->timeout = (double)(long)((o->deadline - now_s()) * 10) / 10;
	if (j->timeout < 1) {
		j->no_time = true;
		return -1;
	}
	j->log = open_log(o, j, r->log, sizeof(r->log));
	if (j->log) {
		if (j->it->ntries && j->kind == RUN_VMM)
			fprintf(j->log, "(minivmm test: attempt %d)\n",
				j->it->ntries + 1);
		for (int i = 0; argv[i]; i++)
			fprintf(j->log, "%s%s", i ? " " : "", argv[i]);
		fprintf(j->log, "\n");
		if (p->notes[0] && j->kind == RUN_VMM)
			fprintf(j->log, "(minivmm test: %s)\n", p->notes);
		fflush(j->log);
	}
	j->start = now_ns();
	/* minivmm gets a grace period to end itself at its --timeout,
	 * unless the run's deadline is what stops it */
	j->deadline = j->start + (uint64_t)(j->timeout * 1e9) +
		      (j->kind == RUN_VMM && j->timeout == p->timeout ?
		       VMM_GRACE_NS : 0);
	if (spawn(j, argv) == 0)
		return 0;
	/* The test fails, the run goes on. */
	snprintf(j->first_err, sizeof(j->first_err), "cannot run %s: %s",
		 argv[0], strerror(errno));
	if (j->log)
		fprintf(j->log, "%s\n", j->first_err);
	return -1;
}

/* The job waits to run again: its earlier result kept in it->tries. */
static void requeue(struct job *j)
{
	struct run_item *it = j->it;
	int kind = j->kind;

	it->tries[it->ntries++] = it->res[kind];
	*j = (struct job){ .it = it, .kind = kind, .state = J_WAIT,
			   .out.fd = -1, .err.fd = -1 };
}

/* minivmm's verdict over its attempts, and against --xfail. */
static bool settle(struct job *j, const struct run_opts *o)
{
	struct run_item *it = j->it;
	struct result *r = &it->res[RUN_VMM];
	struct retry_policy rp = {
		.retries = o->retries,
		.budget_left = o->deadline > 0 ? o->deadline - now_s() : -1,
	};

	if (retry_again(&rp, r, it->ntries + 1, it->xfail != NULL,
			it->plan.timeout)) {
		requeue(j);
		return false;
	}
	retry_final(r, it->tries, it->ntries);
	if (it->xfail)
		result_expect_fail(r);
	return true;
}

static void finish(struct job *j, int status, const struct run_opts *o)
{
	struct run_item *it = j->it;
	struct result *r = &it->res[j->kind];
	const char *summary = "";
	struct ending e = {
		.exited = WIFEXITED(status),
		.code = WIFEXITED(status) ? WEXITSTATUS(status) :
			WTERMSIG(status),
		.timed_out = j->timed_out, .last_err = j->last_err,
		.first_err = j->first_err, .insn = j->insn,
		.test_exit = j->test_exit, .powered_off = j->powered_off,
		.poweroff_pass = it->plan.poweroff_pass,
		.err_lines = j->err_lines,
		.guest_output = j->guest_output, .timeout = j->timeout,
	};

	for (int i = TAIL_LINES - j->ntail; i < TAIL_LINES; i++)
		if (result_summary(j->tail[i]))
			summary = result_summary(j->tail[i]);
	e.summary = summary;
	if (j->no_time) {
		r->v = V_TIMEOUT;
		snprintf(r->text, sizeof(r->text), "not started: the run's "
			 "time budget (TEST_TIMEOUT) is spent");
	} else if (j->not_started) {
		r->v = V_FAIL;
		snprintf(r->text, sizeof(r->text), "%.180s", j->first_err);
	} else if (j->kind == RUN_QEMU) {
		result_from_qemu(&e, r);
	} else {
		result_from_minivmm(&e, r);
	}
	r->secs = j->start ? (double)(now_ns() - j->start) / 1e9 : 0;
	if (j->log)
		fclose(j->log);
	j->log = NULL;
	j->pid = 0;
	if (j->kind == RUN_VMM && !j->no_time && !settle(j, o))
		return;
	j->state = J_DONE;
	if (--it->pending == 0 && o->on_done)
		o->on_done(it, o->ctx);
}

static void watchdog(struct job *j, uint64_t now)
{
	if (!j->killed_at && now >= j->deadline) {
		j->timed_out = true;
		j->killed_at = now;
		kill(-j->pid, SIGTERM);
	} else if (j->killed_at && now >= j->killed_at + KILL_GRACE_NS) {
		kill(-j->pid, SIGKILL);
	}
}

/* --- the pool ----------------------------------------------------------- */

struct pool {
	struct job *jobs;
	int njobs, running;
};

/* The first job waiting to start (a retry goes before later tests), or
 * NULL. */
static struct job *next_job(struct pool *pl)
{
	for (int i = 0; i < pl->njobs; i++)
		if (pl->jobs[i].state == J_WAIT)
			return &pl->jobs[i];
	return NULL;
}

static int make_jobs(struct run_item *items, int n, const struct run_opts *o,
		     struct pool *pl)
{
	pl->jobs = calloc((size_t)n * RUN_KINDS + 1, sizeof(*pl->jobs));
	if (!pl->jobs)
		return -1;
	for (int i = 0; i < n; i++) {
		struct run_item *it = &items[i];

		it->pending = 0;
		for (int k = 0; k < RUN_KINDS; k++) {
			bool want = k == RUN_VMM ? it->plan.vmm_argv[0] != NULL :
				    o->peer && it->plan.qemu_argv[0] != NULL;

			if (!want)
				continue;
			pl->jobs[pl->njobs++] = (struct job){
				.it = it, .kind = k, .out.fd = -1,
				.err.fd = -1 };
			it->pending++;
		}
		if (!it->pending && o->on_done)
			o->on_done(it, o->ctx);
	}
	return 0;
}

static void kill_all(struct pool *pl)
{
	for (int i = 0; i < pl->njobs; i++)
		if (pl->jobs[i].pid > 0) {
			kill(-pl->jobs[i].pid, SIGKILL);
			waitpid(pl->jobs[i].pid, NULL, 0);
		}
}

/* One round: start what fits, poll the pipes, reap, enforce deadlines. */
static int round_trip(struct pool *pl, const struct run_opts *o)
{
	struct pollfd fds[2 * 64];
	struct job *owner[2 * 64];
	int nfds = 0, status;
	uint64_t now;

	struct job *w;

	while (pl->running < o->jobs && (w = next_job(pl))) {
		w->state = J_RUN;
		if (start(w, o) == 0) {
			pl->running++;
			continue;
		}
		w->pid = 0;
		w->not_started = true;
		finish(w, 127 << 8, o);
	}
	for (int i = 0; i < pl->njobs && nfds < 2 * 64 - 1; i++) {
		struct job *j = &pl->jobs[i];

		if (j->pid <= 0)
			continue;
		if (j->out.fd >= 0) {
			fds[nfds] = (struct pollfd){ j->out.fd, POLLIN, 0 };
			owner[nfds++] = j;
		}
		if (j->err.fd >= 0) {
			fds[nfds] = (struct pollfd){ j->err.fd, POLLIN, 0 };
			owner[nfds++] = j;
		}
	}
	if (poll(fds, (nfds_t)nfds, 100) < 0 && errno != EINTR)
		return -1;
	for (int i = 0; i < nfds; i++)
		if (fds[i].revents)
			drain(owner[i], fds[i].fd == owner[i]->out.fd ?
			      &owner[i]->out : &owner[i]->err,
			      fds[i].fd == owner[i]->out.fd);
	now = now_ns();
	for (int i = 0; i < pl->njobs; i++) {
		struct job *j = &pl->jobs[i];

		if (j->pid <= 0)
			continue;
		watchdog(j, now);
		if (j->out.fd < 0 && j->err.fd < 0 &&
		    waitpid(j->pid, &status, WNOHANG) == j->pid) {
			finish(j, status, o);
			pl->running--;
		}
	}
	return 0;
}

int run_all(struct run_item *items, int n, const struct run_opts *o)
{
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	struct pool pl = { 0 };
	int ret = 0;

	if (make_jobs(items, n, o, &pl) < 0)
		return -1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	while (pl.running || next_job(&pl)) {
		if (interrupted || round_trip(&pl, o) < 0) {
			kill_all(&pl);
			ret = -1;
			break;
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	free(pl.jobs);
	return ret;
}
