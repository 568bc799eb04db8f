// SPDX-License-Identifier: MIT
/* virtio-blk image I/O, large requests in parallel pieces; see blk_io.h. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "devices/virtio/blk_io.h"

#define PAGE	4096u

/* All of iov at off, or -1.  Advances the caller's (scratch) iovecs. */
static int rw_full(int fd, struct iovec *iov, unsigned int n, uint64_t off,
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

static void *helper(void *p)
{
	struct blk_io_helper *a = p;
	struct blk_io *io = a->io;
	unsigned int seen = 0;

	pthread_mutex_lock(&io->mu);
	while (!io->stop) {
		struct blk_io_piece *pc;
		bool write;
		int r;

		if (io->gen == seen) {
			pthread_cond_wait(&io->go, &io->mu);
			continue;
		}
		seen = io->gen;
		if (a->idx + 1 >= io->npieces)
			continue;
		pc = &io->piece[a->idx + 1];
		write = io->write;
		pthread_mutex_unlock(&io->mu);
		r = rw_full(io->fd, pc->iov, pc->n, pc->off, write);
		pthread_mutex_lock(&io->mu);
		pc->result = r;
		if (--io->left == 0)
			pthread_cond_signal(&io->done);
	}
	pthread_mutex_unlock(&io->mu);
	return NULL;
}

void blk_io_init(struct blk_io *io, int fd)
{
	memset(io, 0, sizeof(*io));
	io->fd = fd;
	pthread_mutex_init(&io->mu, NULL);
	pthread_cond_init(&io->go, NULL);
	pthread_cond_init(&io->done, NULL);
	for (unsigned int i = 0; i < BLK_IO_HELPERS; i++) {
		struct blk_io_helper *a = &io->helper[i];

		a->io = io;
		a->idx = i;
		if (pthread_create(&a->th, NULL, helper, a))
			break;
		io->nhelpers++;
	}
}

void blk_io_destroy(struct blk_io *io)
{
	pthread_mutex_lock(&io->mu);
	io->stop = true;
	pthread_cond_broadcast(&io->go);
	pthread_mutex_unlock(&io->mu);
	for (unsigned int i = 0; i < io->nhelpers; i++)
		pthread_join(io->helper[i].th, NULL);
	pthread_cond_destroy(&io->done);
	pthread_cond_destroy(&io->go);
	pthread_mutex_destroy(&io->mu);
}

/* Cut iov[0..n) (len bytes) into k pieces of whole pages, the last one
 * taking the rest. */
static void split(struct blk_io *io, const struct iovec *iov, unsigned int n,
		  uint64_t len, uint64_t off, unsigned int k)
{
	uint64_t each = len / k / PAGE * PAGE, skip = 0;
	unsigned int i = 0;

	for (unsigned int p = 0; p < k; p++) {
		struct blk_io_piece *pc = &io->piece[p];
		uint64_t want = p + 1 == k ? len - each * (k - 1) : each;

		pc->n = 0;
		pc->off = off + each * p;
		pc->result = 0;
		while (want && i < n) {
			uint64_t take = iov[i].iov_len - skip;

			if (take > want)
				take = want;
			pc->iov[pc->n].iov_base = (uint8_t *)iov[i].iov_base +
						  skip;
			pc->iov[pc->n++].iov_len = take;
			want -= take;
			skip += take;
			if (skip == iov[i].iov_len) {
				skip = 0;
				i++;
			}
		}
	}
}

int blk_io_rw(struct blk_io *io, struct iovec *iov, unsigned int n,
	      uint64_t len, uint64_t off, bool write)
{
	unsigned int k = 1 + io->nhelpers;
	int r;

	if (len < BLK_IO_SPLIT_MIN || !io->nhelpers)
		return rw_full(io->fd, iov, n, off, write);
	if (len / BLK_IO_PIECE_MIN < k)
		k = (unsigned int)(len / BLK_IO_PIECE_MIN);
	split(io, iov, n, len, off, k);
	pthread_mutex_lock(&io->mu);
	io->write = write;
	io->npieces = k;
	io->left = k - 1;
	io->gen++;
	pthread_cond_broadcast(&io->go);
	pthread_mutex_unlock(&io->mu);
	r = rw_full(io->fd, io->piece[0].iov, io->piece[0].n, io->piece[0].off,
		    write);
	pthread_mutex_lock(&io->mu);
	while (io->left)
		pthread_cond_wait(&io->done, &io->mu);
	for (unsigned int p = 1; p < k; p++)
		r |= io->piece[p].result;
	pthread_mutex_unlock(&io->mu);
	return r;
}
