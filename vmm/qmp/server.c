// SPDX-License-Identifier: MIT
/*
 * The QMP server's thread (qmp.h): accept clients, cut their bytes into
 * messages, answer each, and send events to every client that has
 * negotiated.  Up to QMP_MAX_CLIENTS at once, so a client that sends
 * half a line and waits blocks nobody.  Replies and events go out
 * without blocking: what a client does not read waits in its buffer, up
 * to QMP_OUT_MAX, past which the client is dropped.  Events may come
 * from any thread (a vCPU's pvpanic write); the lock covers the client
 * slots' descriptors and output buffers.
 */
#include "vmm/qmp/qmp.h"
#include "vmm/qmp/events.h"
#include "vmm/qmp/session.h"
#include "vmm/qmp/stream.h"
#include "vmm/qmp/vm_target.h"
#include "vmm/run/listen.h"
#include "vmm/vm.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define QMP_MAX_CLIENTS	8
#define QMP_OUT_MAX	(1u << 20)
#define READ_CHUNK	4096

struct qmp_client {
	int fd;			/* -1: a free slot */
	bool drop;		/* close it at the next turn */
	bool events;		/* negotiated: gets events */
	struct qmp_stream *rx;
	struct qmp_session sess;
	char *out;		/* not yet sent */
	size_t out_len;
};

struct qmp_server {
	struct vm *vm;
	struct listen_addr addr;
	int listen_fd;
	pthread_t thread;
	bool started;
	volatile bool quit;
	pthread_mutex_t lock;
	struct qmp_client c[QMP_MAX_CLIENTS];
	struct qmp_vm vmt;
	struct qmp_target target;
};

/* --- output (under the lock) --------------------------------------------- */

static void try_flush(struct qmp_client *c)
{
	while (c->out_len && !c->drop) {
		ssize_t n = send(c->fd, c->out, c->out_len,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			c->drop = true;
			return;
		}
		memmove(c->out, c->out + n, c->out_len - (size_t)n);
		c->out_len -= (size_t)n;
	}
}

static void queue(struct qmp_client *c, const char *text)
{
	size_t n = strlen(text);
	char *p;

	if (c->fd < 0 || c->drop)
		return;
	if (c->out_len + n > QMP_OUT_MAX) {
		c->drop = true;		/* it reads nothing */
		return;
	}
	p = realloc(c->out, c->out_len + n);
	if (!p) {
		c->drop = true;
		return;
	}
	c->out = p;
	memcpy(c->out + c->out_len, text, n);
	c->out_len += n;
	try_flush(c);
}

static void send_line(struct qmp_server *q, struct qmp_client *c, char *line)
{
	if (!line)
		return;
	pthread_mutex_lock(&q->lock);
	queue(c, line);
	pthread_mutex_unlock(&q->lock);
	free(line);
}

/* Every client that negotiated hears it (data consumed). */
static void broadcast(void *ctx, const char *name, cJSON *data)
{
	struct qmp_server *q = ctx;
	char *line = qmp_event_now(name, data);

	if (!line)
		return;
	pthread_mutex_lock(&q->lock);
	for (int i = 0; i < QMP_MAX_CLIENTS; i++)
		if (q->c[i].fd >= 0 && q->c[i].events)
			queue(&q->c[i], line);
	pthread_mutex_unlock(&q->lock);
	free(line);
}

/* The VM's event sink: data as JSON text. */
static void on_vm_event(void *ctx, const char *name, const char *data)
{
	broadcast(ctx, name, data ? cJSON_Parse(data) : NULL);
}

/* --- clients -------------------------------------------------------------- */

static void close_client(struct qmp_server *q, struct qmp_client *c)
{
	pthread_mutex_lock(&q->lock);
	close(c->fd);
	c->fd = -1;
	c->drop = c->events = false;
	free(c->out);
	c->out = NULL;
	c->out_len = 0;
	pthread_mutex_unlock(&q->lock);
}

static void on_message(struct qmp_server *q, struct qmp_client *c)
{
	char *reply = qmp_session_handle(&c->sess, c->rx->buf, c->rx->len);

	send_line(q, c, reply);
	if (c->sess.negotiated && !c->events) {
		pthread_mutex_lock(&q->lock);
		c->events = true;
		pthread_mutex_unlock(&q->lock);
	}
}

static void on_readable(struct qmp_server *q, struct qmp_client *c)
{
	char buf[READ_CHUNK];
	ssize_t n = read(c->fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {		/* gone, maybe mid-command: forget it */
		c->drop = true;
		return;
	}
	for (ssize_t i = 0; i < n && !c->drop && !q->vm->stopping; i++) {
		switch (qmp_stream_byte(c->rx, buf[i])) {
		case QMP_RX_MSG:
			on_message(q, c);
			break;
		case QMP_RX_TOO_LONG:
			send_line(q, c, qmp_too_long());
			break;
		case QMP_RX_NONE:
			break;
		}
	}
}

static void on_accept(struct qmp_server *q)
{
	int fd = accept4(q->listen_fd, NULL, NULL, SOCK_CLOEXEC |
			 SOCK_NONBLOCK);
	static const char busy[] = "{\"error\": {\"class\": \"GenericError\", "
		"\"desc\": \"too many QMP clients at once\"}}\n";
	struct qmp_client *c = NULL;

	if (fd < 0)
		return;
	for (int i = 0; i < QMP_MAX_CLIENTS && !c; i++)
		if (q->c[i].fd < 0)
			c = &q->c[i];
	if (!c) {
		send(fd, busy, sizeof(busy) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
		close(fd);
		return;
	}
	qmp_stream_init(c->rx);
	qmp_session_init(&c->sess, &q->target);
	pthread_mutex_lock(&q->lock);
	c->fd = fd;
	pthread_mutex_unlock(&q->lock);
	send_line(q, c, qmp_greeting());
}

static void serve_once(struct qmp_server *q)
{
	struct pollfd fds[QMP_MAX_CLIENTS + 2];
	int n = 0, slot[QMP_MAX_CLIENTS + 2];

	fds[n++] = (struct pollfd){ q->listen_fd, POLLIN, 0 };
	fds[n++] = (struct pollfd){ q->vm->stop_fd, POLLIN, 0 };
	pthread_mutex_lock(&q->lock);
	for (int i = 0; i < QMP_MAX_CLIENTS; i++) {
		if (q->c[i].fd < 0)
			continue;
		slot[n] = i;
		fds[n++] = (struct pollfd){ q->c[i].fd, POLLIN |
				(q->c[i].out_len ? POLLOUT : 0), 0 };
	}
	pthread_mutex_unlock(&q->lock);
	if (poll(fds, (nfds_t)n, 100) < 0)
		return;
	for (int k = 2; k < n; k++) {
		struct qmp_client *c = &q->c[slot[k]];

		if (fds[k].revents & POLLOUT) {
			pthread_mutex_lock(&q->lock);
			try_flush(c);
			pthread_mutex_unlock(&q->lock);
		}
		if (fds[k].revents & (POLLIN | POLLHUP | POLLERR))
			on_readable(q, c);
		if (c->drop)
			close_client(q, c);
	}
	if (fds[0].revents & POLLIN)
		on_accept(q);
}

static void *server_thread(void *arg)
{
	struct qmp_server *q = arg;

	while (!q->quit && !q->vm->stopping)
		serve_once(q);
	return NULL;
}

/* --- set-up and end ---------------------------------------------------- */

static int alloc_clients(struct qmp_server *q)
{
	for (int i = 0; i < QMP_MAX_CLIENTS; i++)
		q->c[i].fd = -1;
	for (int i = 0; i < QMP_MAX_CLIENTS; i++) {
		q->c[i].rx = malloc(sizeof(*q->c[i].rx));
		if (!q->c[i].rx)
			return -1;
	}
	return 0;
}

int qmp_setup(struct vm *vm, int *usage)
{
	struct qmp_server *q;
	char err[256], where[300];

	*usage = 0;
	if (!vm->cfg->qmp)
		return 0;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -1;
	vm->qmp = q;
	q->vm = vm;
	q->listen_fd = -1;
	pthread_mutex_init(&q->lock, NULL);
	if (alloc_clients(q) < 0)
		return -1;
	if (listen_parse(vm->cfg->qmp, NULL, &q->addr, err, sizeof(err)) < 0) {
		fprintf(stderr, "minivmm: error: --qmp %s: %s\n", vm->cfg->qmp,
			err);
		*usage = 1;
		return -1;
	}
	q->listen_fd = listen_open(&q->addr, err, sizeof(err));
	if (q->listen_fd < 0) {
		fprintf(stderr, "minivmm: error: --qmp: %s\n", err);
		return -1;
	}
	q->vmt = (struct qmp_vm){ .vm = vm, .broadcast = broadcast,
				  .bctx = q };
	q->target = (struct qmp_target){ &qmp_vm_ops, &q->vmt };
	vm->events = (struct vm_event_sink){ on_vm_event, q };
	listen_describe(&q->addr, where, sizeof(where));
	fprintf(stderr, "minivmm: qmp: listening on %s\n", where);
	return 0;
}

int qmp_start(struct vm *vm)
{
	struct qmp_server *q = vm->qmp;

	if (!q)
		return 0;
	if (pthread_create(&q->thread, NULL, server_thread, q))
		return -1;
	q->started = true;
	return 0;
}

/* The last lines out, for a second at most per client. */
static void drain(struct qmp_client *c)
{
	for (int tries = 0; c->out_len && !c->drop && tries < 10; tries++) {
		struct pollfd pf = { c->fd, POLLOUT, 0 };

		if (poll(&pf, 1, 100) > 0)
			try_flush(c);
	}
}

void qmp_finish(struct vm *vm)
{
	struct qmp_server *q = vm->qmp;

	if (!q)
		return;
	q->quit = true;
	if (q->started)
		pthread_join(q->thread, NULL);
	vm->events = (struct vm_event_sink){ NULL, NULL };
	if (q->started) {
		qmp_vm_release(&q->vmt);
		broadcast(q, "SHUTDOWN", qmp_shutdown_data(vm->exit_status,
							   q->vmt.reason));
	}
	for (int i = 0; i < QMP_MAX_CLIENTS; i++) {
		if (q->c[i].fd >= 0) {
			drain(&q->c[i]);
			close_client(q, &q->c[i]);
		}
		free(q->c[i].rx);
	}
	listen_close(&q->addr, q->listen_fd);
	pthread_mutex_destroy(&q->lock);
	free(q);
	vm->qmp = NULL;
}
