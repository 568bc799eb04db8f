/* SPDX-License-Identifier: MIT */
/*
 * One vhost-user connection, front-end side: the Unix socket to a back
 * end, the opening handshake (features, protocol features, owner),
 * requests with their file descriptors, and the replies, each awaited
 * for at most VHU_REPLY_TIMEOUT_MS so a stuck back end is an error, not
 * a hang.  A back end that closes the socket or answers nonsense leaves
 * the connection dead: every later request fails at once (minivmm never
 * reconnects; the device's owner ends the run).
 *
 * Threads: requests are serialized by the connection's lock.
 */
#ifndef MINIVMM_VHOST_USER_CONN_H
#define MINIVMM_VHOST_USER_CONN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A reply may take this long; the first one longer: virtiofsd builds its
 * sandbox (namespaces, pivot_root, seccomp) only once connected, which
 * took over 10 s on a loaded nested-virtualization host. */
#define VHU_REPLY_TIMEOUT_MS	30000
#define VHU_FIRST_REPLY_MS	120000
#define VHU_ERR_MAX		200

struct vhu_conn {
	int fd;
	pthread_mutex_t lock;
	uint64_t features;		/* the back end's GET_FEATURES */
	uint64_t protocol;		/* protocol features in use */
	bool dead;
	int timeout_ms;			/* for the next reply */
	char err[VHU_ERR_MAX];		/* why the last request failed */
};

/* Connect to path and do the handshake: 0, or -1 with a one-line reason
 * in c->err (no such socket, nobody listening, a bad reply). */
int vhu_conn_open(struct vhu_conn *c, const char *path);
void vhu_conn_close(struct vhu_conn *c);

/* Send request with len payload bytes and nfds descriptors; wait for
 * its reply (GET_*: the value into *val, may be NULL) or, with
 * REPLY_ACK in use, its acknowledgement.  0 or -1 (c->err says why). */
int vhu_conn_request(struct vhu_conn *c, uint32_t request, const void *data,
		     uint32_t len, const int *fds, unsigned int nfds,
		     uint64_t *val);

/* Shorthands: a u64 payload; a vring state payload. */
int vhu_conn_u64(struct vhu_conn *c, uint32_t request, uint64_t v,
		 const int *fd);
int vhu_conn_state(struct vhu_conn *c, uint32_t request, uint32_t index,
		   uint32_t num, uint64_t *val);

/* The back end hung up (the socket reads EOF or fails); for the
 * device's watch on the socket. */
bool vhu_conn_gone(struct vhu_conn *c);

#endif
