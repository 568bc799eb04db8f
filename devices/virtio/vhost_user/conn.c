// SPDX-License-Identifier: MIT
/* A vhost-user front-end connection; see conn.h. */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "devices/virtio/vhost_user/conn.h"
#include "devices/virtio/vhost_user/msg.h"

#define MAX_FDS		VHU_MAX_REGIONS

static int fail(struct vhu_conn *c, bool dead, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct vhu_conn *c, bool dead, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	if (dead)
		c->dead = true;
	return -1;
}

static int send_msg(struct vhu_conn *c, const struct vhu_msg *m, size_t len,
		    const int *fds, unsigned int nfds)
{
	char ctl[CMSG_SPACE(sizeof(int) * MAX_FDS)];
	struct iovec iov = { (void *)m, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t r;

	if (nfds) {
		struct cmsghdr *cm;

		memset(ctl, 0, sizeof(ctl));
		mh.msg_control = ctl;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
	}
	do
		r = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r == (ssize_t)len)
		return 0;
	return fail(c, true, "%s: the back end is gone (%s)",
		    vhu_request_name(m->hdr.request),
		    r < 0 ? strerror(errno) : "short write");
}

/* Close any descriptors a reply carried: minivmm asks for none. */
static void drop_fds(struct msghdr *mh)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm;
	     cm = CMSG_NXTHDR(mh, cm)) {
		int fds[MAX_FDS];
		size_t n;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (n > MAX_FDS)
			n = MAX_FDS;
		memcpy(fds, CMSG_DATA(cm), n * sizeof(int));
		for (size_t i = 0; i < n; i++)
			close(fds[i]);
	}
}

/* Exactly len bytes, each wait bounded: 0, or -1 (c->err). */
static int recv_all(struct vhu_conn *c, uint8_t *buf, size_t len,
		    uint32_t request)
{
	size_t got = 0;

	while (got < len) {
		char ctl[CMSG_SPACE(sizeof(int) * MAX_FDS)];
		struct iovec iov = { buf + got, len - got };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = ctl,
				     .msg_controllen = sizeof(ctl) };
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		int pr = poll(&p, 1, c->timeout_ms);
		ssize_t r;

		if (pr < 0 && errno == EINTR)
			continue;
		if (pr == 0)
			return fail(c, true, "%s: no reply from the back end "
				    "in %d s", vhu_request_name(request),
				    c->timeout_ms / 1000);
		r = recvmsg(c->fd, &mh, MSG_CMSG_CLOEXEC);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return fail(c, true, "%s: the back end is gone (%s)",
				    vhu_request_name(request),
				    r < 0 ? strerror(errno) : "closed");
		drop_fds(&mh);
		got += (size_t)r;
	}
	return 0;
}

static int read_reply(struct vhu_conn *c, uint32_t request, uint64_t *val)
{
	uint8_t buf[VHU_HDR_SIZE + sizeof(struct vhu_vring_state) + 8];
	struct vhu_hdr h;
	const char *why;
	uint64_t v;

	if (recv_all(c, buf, VHU_HDR_SIZE, request) < 0)
		return -1;
	memcpy(&h, buf, sizeof(h));
	/* Never read a payload the reply cannot have: the size decides
	 * the framing, and a wrong one means the stream is lost. */
	if (h.size != vhu_reply_size(request))
		return fail(c, true, "%s: bad reply from the back end: reply "
			    "payload of the wrong size",
			    vhu_request_name(request));
	if (recv_all(c, buf + VHU_HDR_SIZE, h.size, request) < 0)
		return -1;
	if (vhu_parse_reply(buf, VHU_HDR_SIZE + h.size, request, &v,
			    &why) < 0)
		return fail(c, true, "%s: bad reply from the back end: %s",
			    vhu_request_name(request), why);
	if (val)
		*val = v;
	return 0;
}

static bool reply_ack(const struct vhu_conn *c)
{
	return c->protocol >> VHU_PROTOCOL_F_REPLY_ACK & 1;
}

int vhu_conn_request(struct vhu_conn *c, uint32_t request, const void *data,
		     uint32_t len, const int *fds, unsigned int nfds,
		     uint64_t *val)
{
	bool has = vhu_has_reply(request), ack = !has && reply_ack(c);
	struct vhu_msg m;
	uint64_t v = 0;
	size_t n;
	int rc = -1;

	if (nfds > MAX_FDS)
		return fail(c, false, "too many descriptors");
	pthread_mutex_lock(&c->lock);
	if (c->dead) {
		pthread_mutex_unlock(&c->lock);
		return -1;		/* c->err keeps the first reason */
	}
	n = vhu_encode(&m, request, data, len, ack);
	if (send_msg(c, &m, n, fds, nfds) < 0)
		goto out;
	if ((has || ack) && read_reply(c, request, &v) < 0)
		goto out;
	if (ack && v) {
		fail(c, false, "%s: refused by the back end (status %llu)",
		     vhu_request_name(request), (unsigned long long)v);
		goto out;
	}
	if (val)
		*val = v;
	rc = 0;
out:
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int vhu_conn_u64(struct vhu_conn *c, uint32_t request, uint64_t v,
		 const int *fd)
{
	return vhu_conn_request(c, request, &v, sizeof(v), fd, fd ? 1 : 0,
				NULL);
}

int vhu_conn_state(struct vhu_conn *c, uint32_t request, uint32_t index,
		   uint32_t num, uint64_t *val)
{
	struct vhu_vring_state st = { index, num };

	return vhu_conn_request(c, request, &st, sizeof(st), NULL, 0, val);
}

static int handshake(struct vhu_conn *c)
{
	uint64_t want = 1ull << VHU_PROTOCOL_F_REPLY_ACK, theirs;

	c->timeout_ms = VHU_FIRST_REPLY_MS;
	if (vhu_conn_request(c, VHU_GET_FEATURES, NULL, 0, NULL, 0,
			     &c->features) < 0)
		return -1;
	c->timeout_ms = VHU_REPLY_TIMEOUT_MS;
	if (c->features >> VHU_F_PROTOCOL_FEATURES & 1) {
		if (vhu_conn_request(c, VHU_GET_PROTOCOL_FEATURES, NULL, 0,
				     NULL, 0, &theirs) < 0 ||
		    vhu_conn_u64(c, VHU_SET_PROTOCOL_FEATURES, theirs & want,
				 NULL) < 0)
			return -1;
		c->protocol = theirs & want;
	}
	return vhu_conn_request(c, VHU_SET_OWNER, NULL, 0, NULL, 0, NULL);
}

int vhu_conn_open(struct vhu_conn *c, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	c->fd = -1;
	if (strlen(path) >= sizeof(sa.sun_path))
		return fail(c, true, "socket path longer than %zu bytes",
			    sizeof(sa.sun_path) - 1);
	strcpy(sa.sun_path, path);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return fail(c, true, "socket: %s", strerror(errno));
	/* A daemon just started binds before it listens: a refused
	 * connection gets a few more tries. */
	for (int i = 0;; i++) {
		struct timespec t = { 0, 10 * 1000000 };

		if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			break;
		if (errno != ECONNREFUSED || i == 50)
			return fail(c, true, "%s", errno == ECONNREFUSED ?
				    "nobody is listening on the socket" :
				    strerror(errno));
		nanosleep(&t, NULL);
	}
	return handshake(c);
}

void vhu_conn_close(struct vhu_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->dead = true;
	pthread_mutex_destroy(&c->lock);
}

bool vhu_conn_gone(struct vhu_conn *c)
{
	uint8_t b;
	ssize_t r;

	if (c->dead)
		return true;
	/* Bytes waiting are a reply some request is about to read: wait
	 * for it to finish, then look again. */
	pthread_mutex_lock(&c->lock);
	r = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
		c->dead = true;
		snprintf(c->err, sizeof(c->err), "the back end closed the "
			 "connection");
	} else if (r > 0) {
		/* Unasked-for bytes: the stream is out of step. */
		c->dead = true;
		snprintf(c->err, sizeof(c->err), "the back end sent a message "
			 "nobody asked for");
	}
	pthread_mutex_unlock(&c->lock);
	return c->dead;
}
