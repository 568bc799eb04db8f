/* SPDX-License-Identifier: MIT */
/*
 * A virtio device's own thread.  It sleeps in poll() on one eventfd per
 * queue (the queue's kick, written by KVM's ioeventfd or by the notify
 * register handler) plus a control eventfd, and calls serve(ctx, q,
 * kicks) for each queue that was kicked.  vCPUs never wait for device
 * work, except to park the thread: worker_pause() returns once the thread
 * sits between two serve() calls (nothing in flight), for a device reset
 * or a snapshot; worker_resume() lets it go on.  A device may add one
 * more descriptor (its backend, e.g. a tap): serve(ctx, n, 0) is called
 * when it is readable, n being the number of queues, while the device
 * keeps it switched on (worker_watch_on, from the worker's own thread or
 * before the start).  Pure pthreads and eventfds: no KVM.
 */
#ifndef MINIVMM_VIRTIO_WORKER_H
#define MINIVMM_VIRTIO_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define WORKER_MAX_FDS	16

/* kicks: how many notifications the eventfd had collected (0 when the
 * worker was asked to look at every queue, e.g. after DRIVER_OK). */
typedef void (*worker_serve_fn)(void *ctx, unsigned int q, uint64_t kicks);

struct virtio_worker {
	pthread_t thread;
	bool started;
	int ctl_fd;
	pthread_mutex_t mu;
	pthread_cond_t cond;
	unsigned int pause_req;
	bool parked;
	bool stop;
	int rescan;			/* atomic: serve every queue once */
	unsigned int nfds;
	int fds[WORKER_MAX_FDS];
	int extra_fd;			/* -1: none */
	bool extra_on;			/* poll extra_fd for POLLIN */
	worker_serve_fn serve;
	void *ctx;
};

/* Set up (no thread yet).  0, or -1 if the control eventfd failed. */
int worker_init(struct virtio_worker *w, const int *fds, unsigned int n,
		worker_serve_fn serve, void *ctx);
/* Start the thread; 0 or -1. */
int worker_start(struct virtio_worker *w);
/* Stop and join the thread (if started), close the control eventfd. */
void worker_destroy(struct virtio_worker *w);

void worker_pause(struct virtio_worker *w);
void worker_resume(struct virtio_worker *w);
/* Serve every queue once soon, kicked or not. */
void worker_rescan(struct virtio_worker *w);
/* The extra descriptor (before worker_start), and whether to poll it. */
void worker_watch(struct virtio_worker *w, int fd);
void worker_watch_on(struct virtio_worker *w, bool on);

#endif
