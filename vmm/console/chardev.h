/* SPDX-License-Identifier: MIT */
/*
 * A guest console device's own host end, other than the shared console:
 * a pseudo-terminal (its slave path said on stderr), a listening unix
 * socket (one client at a time; the next one is accepted when it leaves),
 * a file (output only) or nothing.  Output comes from vCPU and device
 * threads and never blocks them: what the host end cannot take at once
 * (no client, a full socket or terminal) waits in a bounded backlog whose
 * oldest bytes are dropped when it is full.  Input (a client's or the
 * terminal's bytes, raw: no Ctrl-A keys) goes to the device as fast as
 * it has room.  The main thread's poll loop drives the sockets
 * (chardev_poll_add, chardev_poll_service).
 */
#ifndef MINIVMM_CHARDEV_H
#define MINIVMM_CHARDEV_H

#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/cli/serial_opt.h"

#define CHARDEV_BACKLOG		65536	/* output held for the host end */
#define CHARDEV_FEED_MAX	256	/* input read at once */

/* The device a host end feeds: free space in its receive buffer, and
 * taking bytes (returns how many it took). */
struct chardev_target {
	size_t (*space)(void *ctx);
	size_t (*receive)(void *ctx, const uint8_t *buf, size_t n);
	void *ctx;
};

struct chardev {
	enum serial_kind kind;
	const char *what;		/* "serial", "serial2", ... */
	char path[SERIAL_OPT_UNIX_MAX + 1];
	int listen_fd;			/* unix: -1 once closed */
	int fd;				/* client, pty master, file; -1: none */
	int pty_slave;			/* held open: the master never hangs up */
	bool broken;			/* a write failed: close the client */
	bool hup;			/* the client left, its input not all read */
	struct chardev_target in;	/* .space NULL: none */
	pthread_mutex_t lock;		/* fd (for writers), backlog */
	uint8_t *backlog;
	size_t head, len;		/* ring in backlog */
	uint64_t dropped;		/* output bytes lost to a full backlog */
	uint64_t clients;		/* accepted so far */
};

/* Opens the host end (for pty, says its path on stderr as "minivmm:
 * WHAT: /dev/pts/N").  what names it in messages.  -1 with a message. */
int chardev_open(struct chardev *cd, const struct serial_opt *o,
		 const char *what);
void chardev_close(struct chardev *cd);
/* Guest output; never blocks. */
void chardev_write(struct chardev *cd, const uint8_t *buf, size_t n);

/* Fills one pollfd (fd -1: nothing to wait for) and lowers *tmo (ms, -1:
 * none) where the loop must look again without an event (the device's
 * receive buffer full, output waiting). */
void chardev_poll_add(struct chardev *cd, struct pollfd *fds, int *tmo);
/* After poll, on the same pollfd: accept, read, flush, drop a client
 * that left. */
void chardev_poll_service(struct chardev *cd, const struct pollfd *fds);

#endif
