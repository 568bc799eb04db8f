// SPDX-License-Identifier: MIT
/* minivmm test's snapshots (snap.h). */
#include "tools/test/snap.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GRACE_S		5.0	/* minivmm ends itself at --timeout */
#define POLL_NS		10000000L

extern char **environ;

static bool eligible(const struct run_item *it)
{
	const struct plan *p = &it->plan;

	return p->snapshot && !p->skip[0] && !p->vmm_skip[0] &&
	       p->vmm_argv[0];
}

/* Options whose values a restore passes differently. */
static bool per_test(const char *opt)
{
	return !strcmp(opt, "--append") || !strcmp(opt, "--timeout");
}

/* The next machine argument of argv at or after *i, or NULL. */
static const char *next_arg(char *const *argv, int *i)
{
	while (argv[*i] && per_test(argv[*i]) && argv[*i + 1])
		*i += 2;
	return argv[*i];
}

/* The same minivmm command line but for the per-test options. */
static bool same_machine(const struct plan *a, const struct plan *b)
{
	int i = 0, j = 0;

	for (;; i++, j++) {
		const char *x = next_arg(a->vmm_argv, &i);
		const char *y = next_arg(b->vmm_argv, &j);

		if (!x || !y)
			return !x && !y;
		if (strcmp(x, y))
			return false;
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs argv with stdout and stderr into log; its exit status, or -1. */
static int run_to_end(char *const argv[], const char *log, double timeout)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	double deadline = now_s() + timeout + GRACE_S;
	int status, rc;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT |
					 O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&at, 0);
	rc = posix_spawn(&pid, argv[0], &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (rc)
		return -1;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -1;
		if (now_s() > deadline)
			kill(-pid, SIGKILL);	/* reaped on the next turn */
		nanosleep(&(struct timespec){ 0, POLL_NS }, NULL);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The leader's boot with --snapshot FILE --snapshot-at port: status. */
static int take(const struct plan *p, const char *file, const char *log)
{
	char *argv[PLAN_ARGV_MAX + 8];
	int n = 0;

	for (int i = 0; next_arg(p->vmm_argv, &i) &&
	     n < PLAN_ARGV_MAX; i++)
		argv[n++] = p->vmm_argv[i];
	argv[n++] = "--timeout";
	argv[n++] = (char *)p->timeout_s;
	argv[n++] = "--snapshot";
	argv[n++] = (char *)file;
	argv[n++] = "--snapshot-at";
	argv[n++] = "port";
	argv[n] = NULL;
	unlink(file);
	return run_to_end(argv, log, p->timeout);
}

static void note(struct plan *p, const char *fmt, const char *arg)
{
	size_t at = strlen(p->notes);

	snprintf(p->notes + at, sizeof(p->notes) - at, fmt, at ? "; " : "",
		 arg);
}

/* The test's run becomes a restore with its arguments in ARGS=. */
static void point_at(struct plan *p, const char *file)
{
	char *vmm = p->vmm_argv[0];
	char **a = p->vmm_argv;
	int n = 0;

	snprintf(p->restore_file, sizeof(p->restore_file), "%s", file);
	snprintf(p->env_args, sizeof(p->env_args), "ARGS=%s", p->append);
	a[n++] = vmm;
	a[n++] = "run";
	a[n++] = "--restore";
	a[n++] = p->restore_file;
	a[n++] = "--timeout";
	a[n++] = p->timeout_s;
	a[n++] = "--append-env";
	a[n++] = p->env_args;
	a[n] = NULL;
	note(p, "%srestored from %s", file);
}

static int group(struct run_item *items, int n, int lead,
		 const char *scratch, const char *log_dir, FILE *out)
{
	struct plan *p = &items[lead].plan;
	char file[PATH_MAX], log[PATH_MAX];
	struct stat st;
	int members = 0, status;
	double t0 = now_s();

	snprintf(file, sizeof(file), "%s/%s.snap", scratch, p->t->name);
	snprintf(log, sizeof(log), "%s/%s.snapshot.log", log_dir, p->t->name);
	status = take(p, file, log);
	for (int i = lead; i < n; i++)
		members += eligible(&items[i]) && !items[i].plan.restore_file[0]
			   && same_machine(&items[i].plan, p);
	if (status != 0 || stat(file, &st) < 0 || !S_ISREG(st.st_mode)) {
		fprintf(out, "SNAPSHOT %s not taken (status %d, see %s): its "
			"%d test(s) boot in full\n", p->t->name, status, log,
			members);
		for (int i = lead; i < n; i++)
			if (eligible(&items[i]) && same_machine(&items[i].plan,
								p))
				items[i].plan.snapshot = false;
		return 0;
	}
	fprintf(out, "SNAPSHOT %s taken in %.2fs; %d test(s) start from it\n",
		p->t->name, now_s() - t0, members);
	for (int i = n - 1; i >= lead; i--)
		if (eligible(&items[i]) && !items[i].plan.restore_file[0] &&
		    same_machine(&items[i].plan, p))
			point_at(&items[i].plan, file);
	return 1;
}

int snap_prepare(struct run_item *items, int n, const char *scratch,
		 const char *log_dir, FILE *out)
{
	int taken = 0;

	for (int i = 0; i < n; i++)
		if (eligible(&items[i]) && !items[i].plan.restore_file[0])
			taken += group(items, n, i, scratch, log_dir, out);
	fflush(out);
	return taken;
}
