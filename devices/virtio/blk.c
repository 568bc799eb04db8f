// SPDX-License-Identifier: MIT
/*
 * virtio-blk: configuration space and request execution.  Requests run
 * one after the other in the device thread; the image is usually in the
 * host's page cache, where a synchronous preadv/pwritev is a copy and a
 * hand-off to another thread would only add latency (io_uring measured
 * slower here, see docs/performance.md).  Large reads and writes go to helper
 * threads, several at a time (blk_io.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devices/virtio/blk.h"
#include "devices/virtio/blk_io.h"
#include "devices/virtio/blk_req.h"
#include "firmware/lib/le.h"

#define ZERO_CHUNK	(64u * 1024)

struct virtio_blk {
	struct virtio_pci *vp;
	struct virtio_device_ops ops;
	int fd;
	bool unsafe;
	struct blk_geom geom;
	char serial[VIRTIO_BLK_ID_BYTES];
	uint8_t cfg[VIRTIO_BLK_CFG_SIZEOF];
	struct vq_chain chain;
	struct iovec data[VQ_CHAIN_MAX];
	struct blk_io io;
};

/* Aligned for an O_DIRECT image. */
static const uint8_t zeros[ZERO_CHUNK] __attribute__((aligned(65536)));

/* --- I/O ---------------------------------------------------------------- */

static int write_zeros(int fd, uint64_t off, uint64_t len)
{
	while (len) {
		size_t n = len < ZERO_CHUNK ? (size_t)len : ZERO_CHUNK;
		ssize_t r = pwrite(fd, zeros, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		off += (uint64_t)r;
		len -= (uint64_t)r;
	}
	return 0;
}

static bool unsupported(int err)
{
	return err == EOPNOTSUPP || err == ENOSYS || err == EINVAL ||
	       err == ENODEV;
}

static int range_op(struct virtio_blk *b, const struct blk_seg *s,
		    bool discard)
{
	uint64_t off = s->sector * VIRTIO_BLK_SECTOR_SIZE;
	uint64_t len = (uint64_t)s->num * VIRTIO_BLK_SECTOR_SIZE;
	int mode = FALLOC_FL_KEEP_SIZE;

	if (!len)
		return 0;
	mode |= discard || (s->flags & VIRTIO_BLK_WZ_F_UNMAP) ?
		FALLOC_FL_PUNCH_HOLE : FALLOC_FL_ZERO_RANGE;
	if (fallocate(b->fd, mode, (off_t)off, (off_t)len) == 0)
		return 0;
	if (!unsupported(errno))
		return -1;
	/* Discard is a hint; zeroes must be written one way or another. */
	return discard ? 0 : write_zeros(b->fd, off, len);
}

static uint8_t execute(struct virtio_blk *b, struct blk_req *r)
{
	struct virtio_stats *st = &b->vp->stats;
	uint64_t n;

	switch (r->type) {
	case VIRTIO_BLK_T_IN:
		if (blk_io_rw(&b->io, r->iov, r->niov,
			      r->sector * VIRTIO_BLK_SECTOR_SIZE, false) < 0)
			return VIRTIO_BLK_S_IOERR;
		atomic_fetch_add(&st->bytes_read, r->len);
		return VIRTIO_BLK_S_OK;
	case VIRTIO_BLK_T_OUT:
		if (blk_io_rw(&b->io, r->iov, r->niov,
			      r->sector * VIRTIO_BLK_SECTOR_SIZE, true) < 0)
			return VIRTIO_BLK_S_IOERR;
		atomic_fetch_add(&st->bytes_written, r->len);
		return VIRTIO_BLK_S_OK;
	case VIRTIO_BLK_T_FLUSH:
		/* Done only when fdatasync returned: what the guest wrote
		 * before is on the disk then.  cache=unsafe: not at all. */
		if (b->geom.ro || b->unsafe)
			return VIRTIO_BLK_S_OK;
		return fdatasync(b->fd) == 0 ? VIRTIO_BLK_S_OK :
					       VIRTIO_BLK_S_IOERR;
	case VIRTIO_BLK_T_GET_ID:
		n = r->len < VIRTIO_BLK_ID_BYTES ? r->len : VIRTIO_BLK_ID_BYTES;
		for (unsigned int i = 0, done = 0; done < n; i++) {
			uint64_t k = r->iov[i].iov_len < n - done ?
				     r->iov[i].iov_len : n - done;

			memcpy(r->iov[i].iov_base, b->serial + done, k);
			done += (unsigned int)k;
		}
		return VIRTIO_BLK_S_OK;
	default:	/* DISCARD, WRITE_ZEROES: parse_segs checked them */
		for (unsigned int i = 0; i < r->nsegs; i++)
			if (range_op(b, &r->segs[i],
				     r->type == VIRTIO_BLK_T_DISCARD) < 0)
				return VIRTIO_BLK_S_IOERR;
		return VIRTIO_BLK_S_OK;
	}
}

/* A helper thread finished a large read or write (blk_io.c). */
static void async_done(void *ctx, struct blk_job *j, int result)
{
	struct virtio_blk *b = ctx;
	struct virtio_stats *st = &b->vp->stats;

	if (result < 0) {
		atomic_fetch_add(&st->errors, 1);
		*j->status_at = VIRTIO_BLK_S_IOERR;
	} else {
		atomic_fetch_add(j->write ? &st->bytes_written : &st->bytes_read,
				 j->len);
		*j->status_at = VIRTIO_BLK_S_OK;
	}
	virtio_complete(b->vp, 0, j->head, result < 0 ? 1 : j->used);
}

/* Large reads and writes to an idle helper, when there is one. */
static bool handed_off(struct virtio_blk *b, uint16_t head,
		       const struct blk_req *r)
{
	const struct blk_job what = {
		.off = r->sector * VIRTIO_BLK_SECTOR_SIZE, .len = r->len,
		.write = r->type == VIRTIO_BLK_T_OUT, .head = head,
		.status_at = r->status_at, .used = blk_req_used_len(r),
	};

	if (r->status != VIRTIO_BLK_S_OK ||
	    (r->type != VIRTIO_BLK_T_IN && r->type != VIRTIO_BLK_T_OUT))
		return false;
	return blk_io_submit(&b->io, r->iov, r->niov, &what);
}

static uint32_t handle(void *dev, struct vq_chain *c)
{
	struct virtio_blk *b = dev;
	struct blk_req r;

	blk_req_parse(c, &b->geom, b->data, &r);
	if (handed_off(b, c->head, &r))
		return VIRTIO_ASYNC;
	if (r.status == VIRTIO_BLK_S_OK)
		r.status = execute(b, &r);
	if (r.status != VIRTIO_BLK_S_OK)
		atomic_fetch_add(&b->vp->stats.errors, 1);
	if (r.status_at)
		*r.status_at = r.status;
	return blk_req_used_len(&r);
}

static void process(void *dev, struct virtio_pci *vp, unsigned int q)
{
	struct virtio_blk *b = dev;

	virtio_serve(vp, q, &b->chain, handle, b);
}

/* --- configuration ------------------------------------------------------- */

static void build_cfg(struct virtio_blk *b)
{
	uint8_t *c = b->cfg;

	le64_put(c + VIRTIO_BLK_CFG_CAPACITY, b->geom.capacity);
	le32_put(c + VIRTIO_BLK_CFG_SEG_MAX, VIRTIO_BLK_SEG_MAX);
	le32_put(c + VIRTIO_BLK_CFG_BLK_SIZE, b->geom.block);
	le16_put(c + VIRTIO_BLK_CFG_NUM_QUEUES, 1);
	le32_put(c + VIRTIO_BLK_CFG_MAX_DISCARD_SECTORS,
		 VIRTIO_BLK_MAX_DISCARD);
	le32_put(c + VIRTIO_BLK_CFG_MAX_DISCARD_SEG, VIRTIO_BLK_MAX_SEG);
	le32_put(c + VIRTIO_BLK_CFG_DISCARD_ALIGN, VIRTIO_BLK_DISCARD_ALIGN);
	le32_put(c + VIRTIO_BLK_CFG_MAX_WZ_SECTORS, VIRTIO_BLK_MAX_DISCARD);
	le32_put(c + VIRTIO_BLK_CFG_MAX_WZ_SEG, VIRTIO_BLK_MAX_SEG);
	c[VIRTIO_BLK_CFG_WZ_MAY_UNMAP] = 1;
}

/* Read-only: without VIRTIO_BLK_F_CONFIG_WCE nothing here is writable,
 * and nothing changes after creation, so no lock. */
static void cfg_read(void *dev, unsigned int off, uint8_t *data,
		     unsigned int len)
{
	struct virtio_blk *b = dev;

	memcpy(data, b->cfg + off, len);
}

static void drain(void *dev)
{
	struct virtio_blk *b = dev;

	blk_io_drain(&b->io);
}

static void release(void *dev)
{
	struct virtio_blk *b = dev;

	blk_io_destroy(&b->io);
	close(b->fd);
	free(b);
}

static uint64_t features(bool ro, bool unsafe)
{
	uint64_t f = 1ull << VIRTIO_BLK_F_SEG_MAX | 1ull << VIRTIO_BLK_F_BLK_SIZE;

	if (!unsafe)
		f |= 1ull << VIRTIO_BLK_F_FLUSH;
	if (ro)
		return f | 1ull << VIRTIO_BLK_F_RO;
	return f | 1ull << VIRTIO_BLK_F_DISCARD |
	       1ull << VIRTIO_BLK_F_WRITE_ZEROES;
}

struct virtio_blk *virtio_blk_create(struct pci_bus *bus, uint32_t bdf,
				     const struct virtio_blk_conf *conf,
				     const struct virtio_host *host,
				     const char *name)
{
	struct virtio_blk *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->fd = conf->fd;
	b->unsafe = conf->unsafe;
	b->geom = (struct blk_geom){
		.capacity = conf->size / VIRTIO_BLK_SECTOR_SIZE,
		.block = conf->direct_align > VIRTIO_BLK_SECTOR_SIZE ?
			 conf->direct_align : VIRTIO_BLK_SECTOR_SIZE,
		.ro = conf->ro,
		.max_discard_sectors = VIRTIO_BLK_MAX_DISCARD,
		.max_discard_seg = VIRTIO_BLK_MAX_SEG,
		.max_wz_sectors = VIRTIO_BLK_MAX_DISCARD,
		.max_wz_seg = VIRTIO_BLK_MAX_SEG,
	};
	/* Not NUL-terminated when it fills all 20 bytes (5.2.6). */
	if (conf->serial)
		memcpy(b->serial, conf->serial,
		       strnlen(conf->serial, sizeof(b->serial)));
	build_cfg(b);
	b->ops = (struct virtio_device_ops){
		.name = "virtio-blk",
		.type = VIRTIO_ID_BLOCK,
		.class_code = 0x010000,		/* mass storage, SCSI */
		.nqueues = 1,
		.queue_max = VIRTIO_BLK_QUEUE_SIZE,
		.features = features(conf->ro, conf->unsafe),
		.cfg_size = VIRTIO_BLK_CFG_SIZEOF,
		.poll_ns = VIRTIO_BLK_POLL_NS,
		.cfg_read = cfg_read,
		.process = process,
		.drain = drain,
		.release = release,
	};
	b->vp = virtio_pci_create(bus, bdf, &b->ops, b, host, name);
	if (!b->vp) {
		free(b);
		return NULL;
	}
	blk_io_init(&b->io, b->fd, conf->direct_align, async_done, b);
	return b;
}

struct virtio_pci *virtio_blk_pci(struct virtio_blk *b)
{
	return b->vp;
}
