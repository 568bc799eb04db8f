// SPDX-License-Identifier: MIT
/* The QMP client subcommand (ctl.h). */
#include "vmm/qmp/ctl.h"
#include "vmm/qmp/stream.h"
#include "vmm/run/exit_status.h"
#include "vmm/run/listen.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define REPLY_WAIT_MS	30000	/* a snapshot may take a while */

struct conn {
	int fd;
	struct qmp_stream rx;
	char pending[4096];
	size_t n, pos;
};

static const char usage[] =
	"usage: minivmm ctl ADDR COMMAND [JSON-ARGS]\n"
	"  ADDR: unix:PATH, tcp:[HOST]:PORT or a socket path (--qmp's)\n"
	"  e.g. minivmm ctl /tmp/vm.qmp query-status\n"
	"       minivmm ctl /tmp/vm.qmp x-minivmm-snapshot "
	"'{\"file\": \"vm.snap\"}'\n";

static int connect_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int connect_tcp(const struct listen_addr *a)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res, *r;
	char port[8];
	int fd = -1;

	snprintf(port, sizeof(port), "%u", a->port);
	if (getaddrinfo(a->host[0] ? a->host : "127.0.0.1", port, &hints,
			&res)) {
		errno = EHOSTUNREACH;
		return -1;
	}
	for (r = res; r && fd < 0; r = r->ai_next) {
		fd = socket(r->ai_family, r->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, r->ai_addr, r->ai_addrlen) < 0) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	return fd;
}

static int open_addr(const char *spec)
{
	struct listen_addr a;
	char err[128];

	if (strncmp(spec, "unix:", 5) && strncmp(spec, "tcp:", 4))
		return connect_unix(spec);
	if (listen_parse(spec, NULL, &a, err, sizeof(err)) < 0) {
		fprintf(stderr, "minivmm ctl: %s: %s\n", spec, err);
		errno = EINVAL;
		return -1;
	}
	return a.is_unix ? connect_unix(a.path) : connect_tcp(&a);
}

/* The next message as JSON, or NULL (closed, timed out, not JSON). */
static cJSON *next_msg(struct conn *c)
{
	for (;;) {
		while (c->pos < c->n) {
			enum qmp_rx r = qmp_stream_byte(&c->rx,
							c->pending[c->pos++]);

			if (r == QMP_RX_MSG)
				return cJSON_ParseWithLength(c->rx.buf,
							     c->rx.len);
			if (r == QMP_RX_TOO_LONG)
				return NULL;
		}
		struct pollfd pf = { c->fd, POLLIN, 0 };
		ssize_t n;

		if (poll(&pf, 1, REPLY_WAIT_MS) <= 0)
			return NULL;
		n = read(c->fd, c->pending, sizeof(c->pending));
		if (n <= 0)
			return NULL;
		c->n = (size_t)n;
		c->pos = 0;
	}
}

/* The reply to the last command (events skipped), or NULL. */
static cJSON *reply(struct conn *c)
{
	cJSON *m;

	while ((m = next_msg(c))) {
		if (cJSON_GetObjectItemCaseSensitive(m, "return") ||
		    cJSON_GetObjectItemCaseSensitive(m, "error"))
			return m;
		cJSON_Delete(m);
	}
	return NULL;
}

static int send_cmd(struct conn *c, const char *name, cJSON *args)
{
	cJSON *req = cJSON_CreateObject();
	char *text;
	size_t len, off = 0;
	int rc = 0;

	cJSON_AddStringToObject(req, "execute", name);
	if (args)
		cJSON_AddItemToObject(req, "arguments", args);
	text = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	if (!text)
		return -1;
	len = strlen(text);
	text[len++] = '\n';	/* over the string's NUL: sent by length */
	while (off < len && rc == 0) {
		ssize_t n = send(c->fd, text + off, len - off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			rc = -1;
		else
			off += (size_t)n;
	}
	free(text);
	return rc;
}

static int print_reply(cJSON *r)
{
	char *text = cJSON_PrintUnformatted(r);
	int status = cJSON_GetObjectItemCaseSensitive(r, "error") ? 1 : 0;

	if (text)
		puts(text);
	free(text);
	cJSON_Delete(r);
	return status;
}

static int talk(struct conn *c, const char *cmd, cJSON *args)
{
	cJSON *m = next_msg(c);
	bool greeted = m && cJSON_GetObjectItemCaseSensitive(m, "QMP");

	cJSON_Delete(m);
	if (!greeted) {
		cJSON_Delete(args);
		fprintf(stderr, "minivmm ctl: no QMP greeting\n");
		return EXIT_USAGE;
	}
	if (send_cmd(c, "qmp_capabilities", NULL) < 0 ||
	    !(m = reply(c)) || !cJSON_GetObjectItemCaseSensitive(m, "return")) {
		cJSON_Delete(m);
		cJSON_Delete(args);
		fprintf(stderr, "minivmm ctl: capabilities negotiation "
			"failed\n");
		return EXIT_USAGE;
	}
	cJSON_Delete(m);
	if (send_cmd(c, cmd, args) < 0 || !(m = reply(c))) {
		fprintf(stderr, "minivmm ctl: no reply to %s\n", cmd);
		return EXIT_USAGE;
	}
	return print_reply(m);
}

int qmp_ctl_main(int argc, char **argv)
{
	struct conn *c;
	cJSON *args = NULL;
	int status;

	if (argc == 2 && (!strcmp(argv[1], "-h") ||
			  !strcmp(argv[1], "--help"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc < 3 || argc > 4) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	if (argc == 4) {
		args = cJSON_Parse(argv[3]);
		if (!cJSON_IsObject(args)) {
			cJSON_Delete(args);
			fprintf(stderr, "minivmm ctl: arguments '%s' are not a "
				"JSON object\n", argv[3]);
			return EXIT_USAGE;
		}
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		cJSON_Delete(args);
		return EXIT_USAGE;
	}
	qmp_stream_init(&c->rx);
	c->fd = open_addr(argv[1]);
	if (c->fd < 0) {
		fprintf(stderr, "minivmm ctl: cannot connect to %s: %s\n",
			argv[1], strerror(errno));
		cJSON_Delete(args);
		free(c);
		return EXIT_USAGE;
	}
	status = talk(c, argv[2], args);
	close(c->fd);
	free(c);
	return status;
}
