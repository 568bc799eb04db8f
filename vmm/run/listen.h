/* SPDX-License-Identifier: MIT */
/*
 * Listening sockets from the command line's address forms, shared by the
 * gdb stub and the QMP socket: "tcp:[HOST]:PORT" (HOST empty: loopback)
 * and "unix:PATH" (created with mode 0600, removed at the end), each with
 * options after commas that the caller names (",wait").
 */
#ifndef MINIVMM_RUN_LISTEN_H
#define MINIVMM_RUN_LISTEN_H

#include <stdbool.h>
#include <stddef.h>

struct listen_addr {
	bool is_unix;
	char host[256];		/* tcp: "" means 127.0.0.1 */
	unsigned int port;
	char path[108];		/* unix */
	unsigned int opts;	/* bit i: options[i] was given */
};

/* Parses spec; options is a NULL-ended list of the words allowed after
 * commas.  0, or -1 with a reason in err. */
int listen_parse(const char *spec, const char *const *options,
		 struct listen_addr *a, char *err, size_t errlen);
/* Binds and listens (non-blocking, close-on-exec): the fd, or -1 with a
 * reason in err.  TCP port 0 becomes the port the kernel chose. */
int listen_open(struct listen_addr *a, char *err, size_t errlen);
/* Removes a unix socket's file. */
void listen_close(const struct listen_addr *a, int fd);
/* "tcp:127.0.0.1:1234" / "unix:/path" into buf. */
void listen_describe(const struct listen_addr *a, char *buf, size_t len);

#endif
