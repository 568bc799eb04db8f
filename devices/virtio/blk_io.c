// SPDX-License-Identifier: MIT
/* virtio-blk image I/O and its helper threads; see blk_io.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devices/virtio/blk_io.h"

#define BOUNCE_MAX	(1u << 20)

static int rw_all(int fd, struct iovec *iov, unsigned int n, uint64_t off,
		  bool write)
{
	while (n) {
		ssize_t r = write ? pwritev(fd, iov, (int)n, (off_t)off) :
				    preadv(fd, iov, (int)n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;	/* error, or EOF: a shrunk image */
		off += (uint64_t)r;
		while (n && (size_t)r >= iov->iov_len) {
			r -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n) {
			iov->iov_base = (uint8_t *)iov->iov_base + r;
			iov->iov_len -= (size_t)r;
		}
	}
	return 0;
}

static bool aligned(const struct iovec *iov, unsigned int n, size_t a)
{
	for (unsigned int i = 0; i < n; i++)
		if ((uintptr_t)iov[i].iov_base % a || iov[i].iov_len % a)
			return false;
	return true;
}

/* Copies len bytes between buf and the iovecs from the cursor (i, at) on
 * (to the iovecs if out), advancing the cursor. */
static void copy_iov(const struct iovec *iov, unsigned int *i, size_t *at,
		     uint8_t *buf, size_t len, bool out)
{
	while (len) {
		size_t k = iov[*i].iov_len - *at;
		uint8_t *p = (uint8_t *)iov[*i].iov_base + *at;

		if (k > len)
			k = len;
		if (out)
			memcpy(p, buf, k);
		else
			memcpy(buf, p, k);
		buf += k;
		len -= k;
		*at += k;
		if (*at == iov[*i].iov_len) {
			(*i)++;
			*at = 0;
		}
	}
}

/* O_DIRECT with guest buffers it cannot take: through an aligned bounce
 * buffer, at most BOUNCE_MAX at a time (a guest's huge request costs no
 * huge allocation).  Lengths and offsets are multiples of io->align. */
static int bounce_rw(const struct blk_io *io, const struct iovec *iov,
		     unsigned int n, uint64_t off, bool write)
{
	size_t total = 0, at = 0, step;
	unsigned int i = 0;
	void *buf;
	int r = 0;

	for (unsigned int k = 0; k < n; k++)
		total += iov[k].iov_len;
	step = BOUNCE_MAX - BOUNCE_MAX % io->align;
	if (!step || posix_memalign(&buf, io->align, step))
		return -1;
	while (total && r == 0) {
		size_t len = total < step ? total : step;
		struct iovec one = { buf, len };

		if (write)
			copy_iov(iov, &i, &at, buf, len, false);
		r = rw_all(io->fd, &one, 1, off, write);
		if (r == 0 && !write)
			copy_iov(iov, &i, &at, buf, len, true);
		off += len;
		total -= len;
	}
	free(buf);
	return r;
}

int blk_io_rw(const struct blk_io *io, struct iovec *iov, unsigned int n,
	      uint64_t off, bool write)
{
	if (io->align && !aligned(iov, n, io->align))
		return bounce_rw(io, iov, n, off, write);
	return rw_all(io->fd, iov, n, off, write);
}

static void *helper(void *p)
{
	struct blk_io_helper *h = p;
	struct blk_io *io = h->io;

	pthread_mutex_lock(&io->mu);
	for (;;) {
		int r;

		while (!io->stop && !h->busy)
			pthread_cond_wait(&h->go, &io->mu);
		if (io->stop)
			break;
		pthread_mutex_unlock(&io->mu);
		r = blk_io_rw(io, h->job.iov, h->job.niov, h->job.off,
			      h->job.write);
		io->done(io->ctx, &h->job, r);
		pthread_mutex_lock(&io->mu);
		h->busy = false;
		if (--io->inflight == 0)
			pthread_cond_broadcast(&io->idle);
	}
	pthread_mutex_unlock(&io->mu);
	return NULL;
}

void blk_io_init(struct blk_io *io, int fd, unsigned int align,
		 blk_io_done_fn done, void *ctx)
{
	memset(io, 0, sizeof(*io));
	io->fd = fd;
	io->align = align;
	io->done = done;
	io->ctx = ctx;
	pthread_mutex_init(&io->mu, NULL);
	pthread_cond_init(&io->idle, NULL);
	for (unsigned int i = 0; i < BLK_IO_HELPERS; i++) {
		struct blk_io_helper *h = &io->helper[i];

		h->io = io;
		pthread_cond_init(&h->go, NULL);
		if (pthread_create(&h->th, NULL, helper, h)) {
			pthread_cond_destroy(&h->go);
			break;
		}
		io->nhelpers++;
	}
}

void blk_io_destroy(struct blk_io *io)
{
	blk_io_drain(io);
	pthread_mutex_lock(&io->mu);
	io->stop = true;
	for (unsigned int i = 0; i < io->nhelpers; i++)
		pthread_cond_signal(&io->helper[i].go);
	pthread_mutex_unlock(&io->mu);
	for (unsigned int i = 0; i < io->nhelpers; i++) {
		pthread_join(io->helper[i].th, NULL);
		pthread_cond_destroy(&io->helper[i].go);
	}
	pthread_cond_destroy(&io->idle);
	pthread_mutex_destroy(&io->mu);
}

bool blk_io_submit(struct blk_io *io, const struct iovec *iov,
		   unsigned int n, const struct blk_job *what)
{
	struct blk_io_helper *h = NULL;

	if (what->len < BLK_IO_ASYNC_MIN || n > VQ_CHAIN_MAX)
		return false;
	pthread_mutex_lock(&io->mu);
	for (unsigned int i = 0; i < io->nhelpers && !h; i++)
		if (!io->helper[i].busy)
			h = &io->helper[i];
	if (h) {
		h->job.off = what->off;
		h->job.len = what->len;
		h->job.write = what->write;
		h->job.head = what->head;
		h->job.status_at = what->status_at;
		h->job.used = what->used;
		memcpy(h->job.iov, iov, n * sizeof(*iov));
		h->job.niov = n;
		h->busy = true;
		io->inflight++;
		pthread_cond_signal(&h->go);
	}
	pthread_mutex_unlock(&io->mu);
	return h != NULL;
}

void blk_io_drain(struct blk_io *io)
{
	pthread_mutex_lock(&io->mu);
	while (io->inflight)
		pthread_cond_wait(&io->idle, &io->mu);
	pthread_mutex_unlock(&io->mu);
}
