// SPDX-License-Identifier: MIT
/* Listening sockets from tcp:/unix: specs (listen.h). */
#include "vmm/run/listen.h"

#include <errno.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static int parse_opts(char *rest, const char *const *options,
		      struct listen_addr *a, char *err, size_t errlen)
{
	for (char *w = strtok(rest, ","); w; w = strtok(NULL, ",")) {
		unsigned int i;

		for (i = 0; options && options[i]; i++)
			if (!strcmp(w, options[i]))
				break;
		if (!options || !options[i]) {
			snprintf(err, errlen, "unknown option '%s'", w);
			return -1;
		}
		a->opts |= 1u << i;
	}
	return 0;
}

static int parse_tcp(char *s, struct listen_addr *a, char *err,
		     size_t errlen)
{
	char *colon = strrchr(s, ':'), *end;
	unsigned long port;

	if (!colon) {
		snprintf(err, errlen, "tcp wants [HOST]:PORT");
		return -1;
	}
	*colon = 0;
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || port > 65535) {
		snprintf(err, errlen, "bad port '%s' (0..65535)", colon + 1);
		return -1;
	}
	if (strlen(s) >= sizeof(a->host)) {
		snprintf(err, errlen, "host name too long");
		return -1;
	}
	strcpy(a->host, s);
	a->port = (unsigned int)port;
	return 0;
}

int listen_parse(const char *spec, const char *const *options,
		 struct listen_addr *a, char *err, size_t errlen)
{
	char buf[512], *comma;

	memset(a, 0, sizeof(*a));
	if (strlen(spec) >= sizeof(buf)) {
		snprintf(err, errlen, "too long");
		return -1;
	}
	strcpy(buf, spec);
	comma = strchr(buf, ',');
	if (comma) {
		*comma = 0;
		if (parse_opts(comma + 1, options, a, err, errlen) < 0)
			return -1;
	}
	if (!strncmp(buf, "tcp:", 4))
		return parse_tcp(buf + 4, a, err, errlen);
	if (strncmp(buf, "unix:", 5)) {
		snprintf(err, errlen, "wants tcp:[HOST]:PORT or unix:PATH");
		return -1;
	}
	if (!buf[5] || strlen(buf + 5) >= sizeof(a->path)) {
		snprintf(err, errlen, "unix socket path empty or longer "
			 "than %zu bytes", sizeof(a->path) - 1);
		return -1;
	}
	a->is_unix = true;
	strcpy(a->path, buf + 5);
	return 0;
}

static int open_unix(const struct listen_addr *a, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			0);
	mode_t old;
	int rc;

	if (fd < 0)
		goto fail;
	strcpy(sa.sun_path, a->path);
	/* Only the owner may connect: the socket controls the VM.  Mode
	 * 0600 (a socket needs write permission only to connect). */
	old = umask(0177);
	rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc < 0 || listen(fd, 4) < 0)
		goto fail;
	return fd;
fail:
	snprintf(err, errlen, "%s: %s", a->path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

static int open_tcp(struct listen_addr *a, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res;
	char port[8];
	int fd = -1, one = 1, rc;

	snprintf(port, sizeof(port), "%u", a->port);
	rc = getaddrinfo(a->host[0] ? a->host : "127.0.0.1", port, &hints,
			 &res);
	if (rc) {
		snprintf(err, errlen, "%s: %s", a->host, gai_strerror(rc));
		return -1;
	}
	fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC |
		    SOCK_NONBLOCK, 0);
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) < 0 ||
	    listen(fd, 4) < 0) {
		snprintf(err, errlen, "tcp:%s:%u: %s", a->host, a->port,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd >= 0 && !a->port) {	/* port 0: the one the kernel chose */
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);

		if (!getsockname(fd, (struct sockaddr *)&ss, &sl))
			a->port = ntohs(ss.ss_family == AF_INET6 ?
				((struct sockaddr_in6 *)&ss)->sin6_port :
				((struct sockaddr_in *)&ss)->sin_port);
	}
	return fd;
}

int listen_open(struct listen_addr *a, char *err, size_t errlen)
{
	return a->is_unix ? open_unix(a, err, errlen) :
			    open_tcp(a, err, errlen);
}

void listen_close(const struct listen_addr *a, int fd)
{
	if (fd < 0)
		return;
	close(fd);
	if (a->is_unix)
		unlink(a->path);
}

void listen_describe(const struct listen_addr *a, char *buf, size_t len)
{
	if (a->is_unix)
		snprintf(buf, len, "unix:%s", a->path);
	else
		snprintf(buf, len, "tcp:%s:%u",
			 a->host[0] ? a->host : "127.0.0.1", a->port);
}
