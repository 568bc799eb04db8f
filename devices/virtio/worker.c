// SPDX-License-Identifier: MIT
/* The device thread: poll, serve, park on request; see worker.h. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "devices/virtio/worker.h"

int worker_init(struct virtio_worker *w, const int *fds, unsigned int n,
		worker_serve_fn serve, void *ctx)
{
	memset(w, 0, sizeof(*w));
	if (n > WORKER_MAX_FDS)
		return -1;
	memcpy(w->fds, fds, n * sizeof(*fds));
	w->nfds = n;
	w->extra_fd = -1;
	w->serve = serve;
	w->ctx = ctx;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cond, NULL);
	w->ctl_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return w->ctl_fd < 0 ? -1 : 0;
}

static void wake(struct virtio_worker *w)
{
	uint64_t one = 1;
	ssize_t r = write(w->ctl_fd, &one, sizeof(one));

	(void)r;
}

static uint64_t drain(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/* Park while a pause is requested; false once told to stop. */
static bool checkpoint(struct virtio_worker *w)
{
	bool go;

	pthread_mutex_lock(&w->mu);
	while (w->pause_req && !w->stop) {
		w->parked = true;
		pthread_cond_broadcast(&w->cond);
		pthread_cond_wait(&w->cond, &w->mu);
	}
	w->parked = false;
	go = !w->stop;
	pthread_mutex_unlock(&w->mu);
	return go;
}

static void serve_ready(struct virtio_worker *w, struct pollfd *p)
{
	bool all = __atomic_exchange_n(&w->rescan, 0, __ATOMIC_ACQ_REL);

	for (unsigned int q = 0; q < w->nfds; q++) {
		uint64_t kicks = 0;

		if (p[q + 1].revents & POLLIN)
			kicks = drain(w->fds[q]);
		if (kicks || all)
			w->serve(w->ctx, q, kicks);
	}
	/* An error on it (the tap went away) is the device's to find out. */
	if (w->extra_fd >= 0 && (p[w->nfds + 1].revents || all))
		w->serve(w->ctx, w->nfds, 0);
}

static void *run(void *arg)
{
	struct virtio_worker *w = arg;
	struct pollfd p[WORKER_MAX_FDS + 2];

	p[0] = (struct pollfd){ .fd = w->ctl_fd, .events = POLLIN };
	for (unsigned int q = 0; q < w->nfds; q++)
		p[q + 1] = (struct pollfd){ .fd = w->fds[q], .events = POLLIN };
	while (checkpoint(w)) {
		/* Only this thread switches it, so this read is current;
		 * off means not polled at all (errors would still wake). */
		p[w->nfds + 1] = (struct pollfd){
			.fd = w->extra_on ? w->extra_fd : -1,
			.events = POLLIN };
		if (poll(p, w->nfds + 1 + (w->extra_fd >= 0), -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents & POLLIN)
			drain(w->ctl_fd);
		if (!checkpoint(w))
			break;
		serve_ready(w, p);
	}
	return NULL;
}

int worker_start(struct virtio_worker *w)
{
	if (pthread_create(&w->thread, NULL, run, w))
		return -1;
	w->started = true;
	return 0;
}

void worker_destroy(struct virtio_worker *w)
{
	if (w->started) {
		pthread_mutex_lock(&w->mu);
		w->stop = true;
		pthread_cond_broadcast(&w->cond);
		pthread_mutex_unlock(&w->mu);
		wake(w);
		pthread_join(w->thread, NULL);
		w->started = false;
	}
	if (w->ctl_fd >= 0)
		close(w->ctl_fd);
	w->ctl_fd = -1;
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->mu);
}

void worker_pause(struct virtio_worker *w)
{
	pthread_mutex_lock(&w->mu);
	w->pause_req++;
	if (w->started) {
		wake(w);
		while (!w->parked && !w->stop)
			pthread_cond_wait(&w->cond, &w->mu);
	}
	pthread_mutex_unlock(&w->mu);
}

void worker_resume(struct virtio_worker *w)
{
	pthread_mutex_lock(&w->mu);
	if (w->pause_req)
		w->pause_req--;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->mu);
}

void worker_rescan(struct virtio_worker *w)
{
	__atomic_store_n(&w->rescan, 1, __ATOMIC_RELEASE);
	wake(w);
}

void worker_watch(struct virtio_worker *w, int fd)
{
	w->extra_fd = fd;
	w->extra_on = fd >= 0;
}

void worker_watch_on(struct virtio_worker *w, bool on)
{
	w->extra_on = on;
}
