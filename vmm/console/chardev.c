// SPDX-License-Identifier: MIT
/* A console device's own host end: pty, unix socket, file (chardev.h). */
#include "vmm/console/chardev.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

/* "--serial pty: ...", "--virtio-console unix:/x: bind: ..." */
static int fail(const struct chardev *cd, const char *what)
{
	bool com = !strncmp(cd->what, "serial", 6);

	fprintf(stderr, "minivmm: error: --%s %s%s%s: %s: %s\n",
		com ? "serial" : cd->what, serial_opt_kind_name(cd->kind),
		cd->kind == SERIAL_PTY ? "" : ":",
		cd->kind == SERIAL_PTY ? "" : cd->path, what, strerror(errno));
	return -1;
}

/* The slave stays open and raw: the master never hangs up while nobody
 * has the terminal open, and the line discipline neither echoes guest
 * output back as input nor turns its newlines around. */
static int open_pty(struct chardev *cd)
{
	struct termios t;
	char name[64];

	cd->fd = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (cd->fd < 0 || grantpt(cd->fd) < 0 || unlockpt(cd->fd) < 0 ||
	    ptsname_r(cd->fd, name, sizeof(name)))
		return fail(cd, "cannot make a pseudo-terminal");
	cd->pty_slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (cd->pty_slave < 0 || tcgetattr(cd->pty_slave, &t) < 0)
		return fail(cd, name);
	cfmakeraw(&t);
	if (tcsetattr(cd->pty_slave, TCSANOW, &t) < 0)
		return fail(cd, name);
	snprintf(cd->path, sizeof(cd->path), "%s", name);
	fprintf(stderr, "minivmm: %s: %s\n", cd->what, name);
	return 0;
}

/* Only the owner may connect (mode 0600): the socket types into the
 * guest's console. */
static int open_unix(struct chardev *cd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t old;
	int rc;

	cd->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
			       SOCK_NONBLOCK, 0);
	if (cd->listen_fd < 0)
		return fail(cd, "socket");
	memcpy(sa.sun_path, cd->path, strlen(cd->path));
	old = umask(0177);
	rc = bind(cd->listen_fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc < 0 || listen(cd->listen_fd, 1) < 0) {
		/* A path in use stays: it is not ours to remove. */
		fail(cd, rc < 0 ? "bind" : "listen");
		if (rc == 0)
			unlink(cd->path);
		close(cd->listen_fd);
		cd->listen_fd = -1;
		return -1;
	}
	return 0;
}

int chardev_open(struct chardev *cd, const struct serial_opt *o,
		 const char *what)
{
	memset(cd, 0, sizeof(*cd));
	cd->kind = o->kind;
	cd->what = what;
	cd->fd = cd->listen_fd = cd->pty_slave = -1;
	pthread_mutex_init(&cd->lock, NULL);
	if (o->path)
		snprintf(cd->path, sizeof(cd->path), "%s", o->path);
	switch (o->kind) {
	case SERIAL_FILE:
		cd->fd = open(o->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			      0644);
		return cd->fd < 0 ? fail(cd, "open") : 0;
	case SERIAL_PTY:
		cd->path[0] = 0;
		break;
	case SERIAL_UNIX:
		break;
	default:
		return 0;	/* none; stdio is the shared console's */
	}
	cd->backlog = malloc(CHARDEV_BACKLOG);
	if (!cd->backlog)
		return fail(cd, "backlog");
	return o->kind == SERIAL_PTY ? open_pty(cd) : open_unix(cd);
}

void chardev_close(struct chardev *cd)
{
	if (cd->fd >= 0 && cd->kind == SERIAL_FILE)
		fsync(cd->fd);
	if (cd->fd >= 0)
		close(cd->fd);
	if (cd->pty_slave >= 0)
		close(cd->pty_slave);
	if (cd->listen_fd >= 0) {
		close(cd->listen_fd);
		unlink(cd->path);
	}
	cd->fd = cd->pty_slave = cd->listen_fd = -1;
	free(cd->backlog);
	cd->backlog = NULL;
	pthread_mutex_destroy(&cd->lock);
}

/* One non-blocking write: bytes taken, 0 when the host end is full, -1
 * when it is gone (a client that left: no SIGPIPE). */
static ssize_t out(struct chardev *cd, const uint8_t *p, size_t n)
{
	ssize_t w;

	do {
		w = cd->kind == SERIAL_UNIX ?
		    send(cd->fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT) :
		    write(cd->fd, p, n);
	} while (w < 0 && errno == EINTR);
	if (w >= 0)
		return w;
	return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
}

/* Sends what the backlog holds, as far as the host end takes it.
 * Called with the lock held. */
static void flush_backlog(struct chardev *cd)
{
	while (cd->len && cd->fd >= 0 && !cd->broken) {
		size_t chunk = CHARDEV_BACKLOG - cd->head;
		ssize_t w;

		if (chunk > cd->len)
			chunk = cd->len;
		w = out(cd, cd->backlog + cd->head, chunk);
		if (w <= 0) {
			cd->broken = w < 0;
			return;
		}
		cd->head = (cd->head + (size_t)w) % CHARDEV_BACKLOG;
		cd->len -= (size_t)w;
	}
}

/* Keeps the newest CHARDEV_BACKLOG bytes: the latest output is what a
 * client connecting later wants to see. */
static void backlog_push(struct chardev *cd, const uint8_t *p, size_t n)
{
	if (n >= CHARDEV_BACKLOG) {
		cd->dropped += cd->len + n - CHARDEV_BACKLOG;
		p += n - CHARDEV_BACKLOG;
		n = CHARDEV_BACKLOG;
		cd->head = cd->len = 0;
	}
	if (cd->len + n > CHARDEV_BACKLOG) {
		size_t drop = cd->len + n - CHARDEV_BACKLOG;

		cd->head = (cd->head + drop) % CHARDEV_BACKLOG;
		cd->len -= drop;
		cd->dropped += drop;
	}
	for (size_t i = 0; i < n; i++)
		cd->backlog[(cd->head + cd->len + i) % CHARDEV_BACKLOG] = p[i];
	cd->len += n;
}

void chardev_write(struct chardev *cd, const uint8_t *buf, size_t n)
{
	ssize_t w;

	if (cd->kind == SERIAL_NONE || cd->kind == SERIAL_STDIO)
		return;
	pthread_mutex_lock(&cd->lock);
	if (cd->kind == SERIAL_FILE) {
		while (n && cd->fd >= 0 && (w = out(cd, buf, n)) > 0) {
			buf += w;
			n -= (size_t)w;
		}
		cd->dropped += n;	/* a full disk: nothing better */
		pthread_mutex_unlock(&cd->lock);
		return;
	}
	flush_backlog(cd);
	if (!cd->len && cd->fd >= 0 && !cd->broken) {
		w = out(cd, buf, n);
		if (w < 0)
			cd->broken = true;
		else {
			buf += w;
			n -= (size_t)w;
		}
	}
	if (n)
		backlog_push(cd, buf, n);
	pthread_mutex_unlock(&cd->lock);
}

static size_t input_space(const struct chardev *cd)
{
	size_t s;

	if (!cd->in.space)
		return 0;
	s = cd->in.space(cd->in.ctx);
	return s < CHARDEV_FEED_MAX ? s : CHARDEV_FEED_MAX;
}

static void lower(int *tmo, int ms)
{
	if (*tmo < 0 || *tmo > ms)
		*tmo = ms;
}

void chardev_poll_add(struct chardev *cd, struct pollfd *fds, int *tmo)
{
	bool waiting;

	fds[0] = (struct pollfd){ .fd = -1 };	/* poll skips it */
	if (cd->kind != SERIAL_PTY && cd->kind != SERIAL_UNIX)
		return;
	if (cd->fd < 0) {	/* unix: waiting for a client */
		fds[0] = (struct pollfd){ .fd = cd->listen_fd,
					  .events = POLLIN };
		return;
	}
	fds[0] = (struct pollfd){ .fd = cd->fd };
	if (input_space(cd))
		fds[0].events |= POLLIN;
	else if (cd->in.space)
		lower(tmo, 10);		/* the device's buffer is full */
	if (cd->hup && !(fds[0].events & POLLIN)) {
		fds[0].fd = -1;		/* POLLHUP would wake the loop at once */
		return;
	}
	pthread_mutex_lock(&cd->lock);
	waiting = cd->len || cd->broken;
	pthread_mutex_unlock(&cd->lock);
	if (waiting)
		fds[0].events |= POLLOUT;
	/* Output may queue up while the loop sleeps: look again soon. */
	lower(tmo, waiting ? 20 : 200);
}

static void accept_client(struct chardev *cd)
{
	int fd = accept4(cd->listen_fd, NULL, NULL,
			 SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return;		/* gone already, or out of descriptors */
	pthread_mutex_lock(&cd->lock);
	cd->fd = fd;
	cd->broken = false;
	cd->clients++;
	flush_backlog(cd);
	pthread_mutex_unlock(&cd->lock);
}

/* The client left (or its socket failed): wait for the next one.  Output
 * not yet sent stays for it. */
static void drop_client(struct chardev *cd)
{
	pthread_mutex_lock(&cd->lock);
	close(cd->fd);
	cd->fd = -1;
	cd->broken = cd->hup = false;
	pthread_mutex_unlock(&cd->lock);
}

/* A client that typed and left at once: what it typed still reaches the
 * device, as the device makes room (read returns 0 after it). */
static bool input_left(struct chardev *cd)
{
	uint8_t b;

	return recv(cd->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
}

/* Reads no more than the device has room for: a flood waits in the
 * socket or the terminal, not in minivmm.  Only the main thread changes
 * cd->fd, so it reads without the lock (which the device's receive must
 * not be called under: a vCPU writes output with its UART's lock held). */
static void feed(struct chardev *cd)
{
	uint8_t buf[CHARDEV_FEED_MAX];
	size_t space = input_space(cd);
	ssize_t n;

	if (!space)
		return;
	n = read(cd->fd, buf, space);
	if (n > 0) {
		cd->in.receive(cd->in.ctx, buf, (size_t)n);
		return;
	}
	if (cd->kind == SERIAL_UNIX &&
	    (n == 0 || (errno != EAGAIN && errno != EINTR)))
		drop_client(cd);
}

void chardev_poll_service(struct chardev *cd, const struct pollfd *fds)
{
	short r = fds[0].revents;

	if (fds[0].fd < 0 || !r)
		return;
	if (cd->fd < 0) {
		if (r & POLLIN)
			accept_client(cd);
		return;
	}
	if (r & POLLOUT) {
		pthread_mutex_lock(&cd->lock);
		flush_backlog(cd);
		pthread_mutex_unlock(&cd->lock);
	}
	if (r & POLLIN)
		feed(cd);
	if (cd->kind != SERIAL_UNIX || cd->fd < 0)
		return;
	if (cd->broken || ((r & POLLERR) && !(r & POLLIN)))
		drop_client(cd);
	else if ((r & POLLHUP) && !(r & POLLIN) && !(cd->hup = input_left(cd)))
		drop_client(cd);
}
