// SPDX-License-Identifier: MIT
/* Starting and ending virtiofsd for --share; see virtiofsd.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmm/machine/virtiofsd.h"

static const char *daemon_path(void)
{
	const char *p = getenv("MINIVMM_VIRTIOFSD");

	return p && *p ? p : VIRTIOFSD_DEFAULT;
}

/* The daemon's own writes: its pid file and its socket. */
#define DAEMON_RUN_DIR	"/run/virtiofsd"

/* PATH writable again inside a read-only view (a bind mount copies the
 * read-only flag; a remount without it drops it). */
static int writable(const char *path)
{
	if (mount(path, path, NULL, MS_BIND, NULL) < 0 ||
	    mount(NULL, path, NULL, MS_REMOUNT | MS_BIND, NULL) < 0)
		return -1;
	return 0;
}

/* DIR read-only for this process and its children only.  Where DIR holds
 * the daemon's own directories (--share / where /run and the socket's
 * directory sit on the root file system), those stay writable: else the
 * daemon cannot write its pid file ("Read-only file system"). */
static int read_only(const char *dir, const char *sock)
{
	char sock_dir[sizeof(((struct virtiofsd *)0)->sock)];
	char *slash;

	snprintf(sock_dir, sizeof(sock_dir), "%s", sock);
	slash = strrchr(sock_dir, '/');
	if (slash && slash != sock_dir)
		*slash = '\0';
	if (mkdir(DAEMON_RUN_DIR, 0755) < 0 && errno != EEXIST)
		return -1;
	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount(dir, dir, NULL, MS_BIND | MS_REC, NULL) < 0 ||
	    mount(NULL, dir, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) < 0 ||
	    writable(DAEMON_RUN_DIR) < 0 || writable(sock_dir) < 0)
		return -1;
	return 0;
}

/* In the child: never returns. */
static void child(const struct virtiofsd *d, const struct fs_opt *o,
		  const char *dir)
{
	char sock[sizeof(d->sock) + 16], src[FS_PATH_MAX + 16];
	int null = open("/dev/null", O_RDWR);
	sigset_t none;

	/* minivmm blocks the signals that end a run (vm_block_signals);
	 * the daemon must take SIGTERM, its parent's death's among them. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1)
		_exit(127);		/* minivmm already gone */
	if (null >= 0)
		dup2(null, STDIN_FILENO);
	if (o->ro && read_only(dir, d->sock) < 0) {
		fprintf(stderr, "minivmm: error: --share %s,ro: cannot make a "
			"read-only view of it: %s\n", o->path, strerror(errno));
		_exit(126);
	}
	snprintf(sock, sizeof(sock), "--socket-path=%s", d->sock);
	snprintf(src, sizeof(src), "source=%s", dir);
	/* Sharing / confines nothing, and pivot_root into / fails where
	 * minivmm itself runs chrooted (containers, the nested lab):
	 * chroot instead of the namespace sandbox. */
	execl(daemon_path(), daemon_path(), sock, "-o", src, "-o",
	      "cache=auto", "-o", "log_level=err", "-o",
	      strcmp(dir, "/") ? "sandbox=namespace" : "sandbox=chroot",
	      (char *)NULL);
	_exit(127);
}

static void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&t, NULL);
}

static void why_exited(int st, char *err, size_t errlen)
{
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		snprintf(err, errlen, "%s could not be run (install "
			 "qemu-system-common, or set MINIVMM_VIRTIOFSD)",
			 daemon_path());
	else if (WIFEXITED(st))
		snprintf(err, errlen, "%s exited with status %d before its "
			 "socket was ready", daemon_path(), WEXITSTATUS(st));
	else
		snprintf(err, errlen, "%s was killed by signal %d before its "
			 "socket was ready", daemon_path(), WTERMSIG(st));
}

static int wait_socket(struct virtiofsd *d, char *err, size_t errlen)
{
	struct stat st;
	int status;

	for (long ms = 0; ms < VIRTIOFSD_WAIT_MS; ms += 10) {
		if (stat(d->sock, &st) == 0 && S_ISSOCK(st.st_mode))
			return 0;
		if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
			d->pid = 0;
			why_exited(status, err, errlen);
			return -1;
		}
		sleep_ms(10);
	}
	snprintf(err, errlen, "%s made no socket in %d s", daemon_path(),
		 VIRTIOFSD_WAIT_MS / 1000);
	return -1;
}

static int check(const struct fs_opt *o, char *dir, char *err,
		 size_t errlen)
{
	struct stat st;

	if (!realpath(o->path, dir) || stat(dir, &st) < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "not a directory");
		return -1;
	}
	if (access(daemon_path(), X_OK) < 0) {
		snprintf(err, errlen, "%s: %s (install qemu-system-common, or "
			 "set MINIVMM_VIRTIOFSD)", daemon_path(),
			 strerror(errno));
		return -1;
	}
	return 0;
}

int virtiofsd_start(struct virtiofsd *d, const struct fs_opt *o, char *err,
		    size_t errlen)
{
	char dir[PATH_MAX];

	memset(d, 0, sizeof(*d));
	if (check(o, dir, err, errlen) < 0)
		return -1;
	snprintf(d->dir, sizeof(d->dir), "/tmp/minivmm-fs.XXXXXX");
	if (!mkdtemp(d->dir)) {
		snprintf(err, errlen, "socket directory: %s", strerror(errno));
		d->dir[0] = 0;
		return -1;
	}
	snprintf(d->sock, sizeof(d->sock), "%s/vhost.sock", d->dir);
	fflush(NULL);
	d->pid = fork();
	if (d->pid < 0) {
		d->pid = 0;
		snprintf(err, errlen, "fork: %s", strerror(errno));
		virtiofsd_stop(d);
		return -1;
	}
	if (d->pid == 0)
		child(d, o, dir);
	if (wait_socket(d, err, errlen) < 0) {
		virtiofsd_stop(d);
		return -1;
	}
	return 0;
}

void virtiofsd_stop(struct virtiofsd *d)
{
	int st;

	if (d->pid > 0) {
		/* It leaves by itself once the connection closes; give it
		 * a moment, then insist. */
		for (int i = 0; i < 100; i++) {
			if (waitpid(d->pid, &st, WNOHANG) == d->pid)
				break;
			if (i == 20)
				kill(d->pid, SIGTERM);
			if (i == 80)
				kill(d->pid, SIGKILL);
			sleep_ms(10);
		}
		if (waitpid(d->pid, &st, WNOHANG) == 0) {
			kill(d->pid, SIGKILL);
			waitpid(d->pid, &st, 0);
		}
		d->pid = 0;
	}
	if (d->sock[0])
		unlink(d->sock);
	if (d->dir[0])
		rmdir(d->dir);
	d->sock[0] = d->dir[0] = 0;
}

int virtiofsd_start_all(struct virtiofsd *d, const struct vmm_config *cfg)
{
	char err[FS_PATH_MAX + 200];

	for (unsigned int i = 0; i < cfg->nfs; i++) {
		const struct fs_opt *o = &cfg->fss[i];
		struct stat st;

		if (!o->share && (stat(o->path, &st) < 0 ||
				  !S_ISSOCK(st.st_mode))) {
			fprintf(stderr, "minivmm: error: --fs %s: not a "
				"socket\n", o->path);
			return -1;
		}
		if (!o->share || virtiofsd_start(&d[i], o, err,
						 sizeof(err)) == 0)
			continue;
		fprintf(stderr, "minivmm: error: --share %s: %s\n", o->path,
			err);
		return -1;
	}
	return 0;
}
