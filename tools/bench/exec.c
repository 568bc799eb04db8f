// SPDX-License-Identifier: MIT
/* Child processes for `minivmm bench`: run a program with stdin from
 * /dev/null, capture stdout and stderr, kill it (only it, by pid) after a
 * timeout. */
#include "tools/bench/exec.h"
#include "tools/bench/counters.h"
#include "tools/bench/pin.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define OUT_MAX		(16u << 20)	/* per stream; more is dropped */
#define CHUNK		65536

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int append(char **buf, size_t *len, size_t *cap, const char *d,
		  size_t n)
{
	if (*len + n + 1 > OUT_MAX)
		n = *len + 1 < OUT_MAX ? OUT_MAX - *len - 1 : 0;
	if (*len + n + 1 > *cap) {
		size_t c = *cap ? *cap * 2 : CHUNK;
		char *p;

		while (c < *len + n + 1)
			c *= 2;
		p = realloc(*buf, c);
		if (!p)
			return -1;
		*buf = p;
		*cap = c;
	}
	memcpy(*buf + *len, d, n);
	*len += n;
	(*buf)[*len] = 0;
	return 0;
}

/* Waits for the parent's go (its counters attached) before exec. */
static void child(char *const argv[], int out, int err, int go)
{
	int null = open("/dev/null", O_RDONLY);
	char c;

	if (read(go, &c, 1) != 1 || null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 ||
	    dup2(err, 2) < 0)
		_exit(126);
	bench_pin_vmm();
	execvp(argv[0], argv);
	dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Reads both pipes until EOF or the deadline; false on timeout. */
static bool drain(int fds[2], struct bench_child *c, double deadline)
{
	size_t cap[2] = { 0, 0 };
	char buf[CHUNK];
	int open_fds = 2;

	while (open_fds) {
		struct pollfd p[2] = { { fds[0], POLLIN, 0 },
				       { fds[1], POLLIN, 0 } };
		double left = deadline - now_ms();

		if (left <= 0)
			return false;
		if (poll(p, 2, left > 1e6 ? 1000000 : (int)left + 1) < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (fds[i] < 0 || !(p[i].revents & (POLLIN | POLLHUP |
							    POLLERR)))
				continue;
			n = read(fds[i], buf, sizeof(buf));
			if (n <= 0) {
				close(fds[i]);
				fds[i] = -1;
				p[i].fd = -1;
				open_fds--;
				continue;
			}
			append(i ? &c->err : &c->out, i ? &c->err_len :
			       &c->out_len, &cap[i], buf, (size_t)n);
		}
	}
	return true;
}

int bench_exec(char *const argv[], double timeout_s, struct bench_child *c)
{
	int po[2], pe[2], go[2], fds[2], st;
	struct bench_counters k;
	double t0 = now_ms();
	pid_t pid, w;
	bool done;

	memset(c, 0, sizeof(*c));
	c->status = -1;
	c->syscalls = c->switches = -1;
	if (pipe2(po, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(pe, O_CLOEXEC) < 0) {
		close(po[0]);
		close(po[1]);
		return -1;
	}
	if (pipe2(go, O_CLOEXEC) < 0) {
		for (int i = 0; i < 2; i++) {
			close(po[i]);
			close(pe[i]);
		}
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		child(argv, po[1], pe[1], go[0]);
	close(po[1]);
	close(pe[1]);
	close(go[0]);
	if (pid < 0) {
		close(go[1]);
		close(po[0]);
		close(pe[0]);
		return -1;
	}
	bench_counters_attach(&k, pid);
	if (write(go[1], "g", 1) != 1)
		kill(pid, SIGKILL);
	close(go[1]);
	fds[0] = po[0];
	fds[1] = pe[0];
	done = drain(fds, c, t0 + timeout_s * 1e3);
	if (!done) {
		kill(pid, SIGKILL);
		c->timed_out = true;
	}
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	bench_counters_read(&k, &c->syscalls, &c->switches);
	if (w < 0)
		return -1;
	c->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	c->wall_ms = now_ms() - t0;
	return 0;
}

void bench_child_free(struct bench_child *c)
{
	free(c->out);
	free(c->err);
	memset(c, 0, sizeof(*c));
}

const char *bench_last_line(const char *text, char *buf, size_t len)
{
	const char *end, *start;
	size_t n;

	if (!len)
		return buf;
	buf[0] = 0;
	if (!text || !*text)
		return buf;
	end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	n = (size_t)(end - start);
	if (n >= len)
		n = len - 1;
	memcpy(buf, start, n);
	buf[n] = 0;
	return buf;
}

int bench_exec_vmm(const char *exe, const char *const *args,
		   double timeout_s, struct bench_child *c)
{
	char *argv[32];
	int n = 0;

	argv[n++] = (char *)exe;
	for (int i = 0; args[i] && n < 25; i++)
		argv[n++] = (char *)args[i];
	argv[n++] = "--timing";
	argv[n++] = "--console";
	argv[n++] = "none";
	argv[n] = NULL;
	if (bench_exec(argv, timeout_s, c) < 0)
		return -1;
	return c->status == 0 ? 0 : -1;
}
