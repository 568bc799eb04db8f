// SPDX-License-Identifier: MIT
/* virtio-blk request parsing; see blk_req.h. */
#include <string.h>

#include "devices/virtio/blk_req.h"
#include "devices/virtio/spec.h"
#include "firmware/lib/le.h"

static uint8_t *status_byte(const struct vq_chain *c)
{
	const struct iovec *last;

	if (!c->n_in)
		return NULL;
	last = &c->iov[c->n_out + c->n_in - 1];
	return (uint8_t *)last->iov_base + last->iov_len - 1;
}

/* The readable bytes after skip (the header). */
static void slice_out(const struct vq_chain *c, struct blk_req *r,
		      uint64_t skip)
{
	for (unsigned int i = 0; i < c->n_out; i++) {
		uint64_t l = c->iov[i].iov_len;

		if (skip >= l) {
			skip -= l;
			continue;
		}
		r->iov[r->niov].iov_base = (uint8_t *)c->iov[i].iov_base + skip;
		r->iov[r->niov].iov_len = l - skip;
		r->len += l - skip;
		r->niov++;
		skip = 0;
	}
}

/* The writable bytes but the status byte. */
static void slice_in(const struct vq_chain *c, struct blk_req *r)
{
	for (unsigned int i = c->n_out; i < c->n_out + c->n_in; i++) {
		uint64_t l = c->iov[i].iov_len;

		if (i == c->n_out + c->n_in - 1 && --l == 0)
			break;
		r->iov[r->niov].iov_base = c->iov[i].iov_base;
		r->iov[r->niov].iov_len = l;
		r->len += l;
		r->niov++;
	}
}

static bool in_range(const struct blk_geom *g, uint64_t sector,
		     uint64_t sectors)
{
	return sector <= g->capacity && sectors <= g->capacity - sector;
}

static bool block_aligned(const struct blk_geom *g, uint64_t sector,
			  uint64_t sectors)
{
	uint64_t per = g->block > VIRTIO_BLK_SECTOR_SIZE ?
		       g->block / VIRTIO_BLK_SECTOR_SIZE : 1;

	return sector % per == 0 && sectors % per == 0;
}

static uint8_t check_rw(const struct blk_req *r, const struct blk_geom *g,
			bool write)
{
	if (write && g->ro)
		return VIRTIO_BLK_S_IOERR;
	if (r->len % VIRTIO_BLK_SECTOR_SIZE ||
	    !in_range(g, r->sector, r->len / VIRTIO_BLK_SECTOR_SIZE) ||
	    !block_aligned(g, r->sector, r->len / VIRTIO_BLK_SECTOR_SIZE))
		return VIRTIO_BLK_S_IOERR;
	return VIRTIO_BLK_S_OK;
}

static uint8_t parse_segs(const struct vq_chain *c, const struct blk_geom *g,
			  struct blk_req *r)
{
	bool discard = r->type == VIRTIO_BLK_T_DISCARD;
	uint32_t max_segs = discard ? g->max_discard_seg : g->max_wz_seg;
	uint32_t max_sectors = discard ? g->max_discard_sectors :
					 g->max_wz_sectors;
	uint32_t allowed = discard ? 0 : VIRTIO_BLK_WZ_F_UNMAP;
	uint64_t bytes = c->out_len - VIRTIO_BLK_HDR_SIZE;
	uint8_t raw[VIRTIO_BLK_SEG_SIZE];

	if (g->ro)
		return VIRTIO_BLK_S_IOERR;
	if (!bytes || bytes % VIRTIO_BLK_SEG_SIZE ||
	    bytes / VIRTIO_BLK_SEG_SIZE > max_segs ||
	    bytes / VIRTIO_BLK_SEG_SIZE > BLK_MAX_SEGS)
		return VIRTIO_BLK_S_IOERR;
	r->nsegs = (unsigned int)(bytes / VIRTIO_BLK_SEG_SIZE);
	for (unsigned int i = 0; i < r->nsegs; i++) {
		struct blk_seg *s = &r->segs[i];

		vq_copy_from(c, VIRTIO_BLK_HDR_SIZE + i * VIRTIO_BLK_SEG_SIZE,
			     raw, sizeof(raw));
		s->sector = le64_get(raw);
		s->num = le32_get(raw + 8);
		s->flags = le32_get(raw + 12);
		if (s->flags & ~allowed)
			return VIRTIO_BLK_S_UNSUPP;
		if (s->num > max_sectors || !in_range(g, s->sector, s->num) ||
		    !block_aligned(g, s->sector, s->num))
			return VIRTIO_BLK_S_IOERR;
	}
	return VIRTIO_BLK_S_OK;
}

void blk_req_parse(const struct vq_chain *c, const struct blk_geom *g,
		   struct iovec *iov, struct blk_req *r)
{
	uint8_t hdr[VIRTIO_BLK_HDR_SIZE];

	memset(r, 0, sizeof(*r));
	r->iov = iov;
	r->status = VIRTIO_BLK_S_IOERR;
	r->status_at = status_byte(c);
	if (!r->status_at || c->out_len < VIRTIO_BLK_HDR_SIZE)
		return;
	vq_copy_from(c, 0, hdr, sizeof(hdr));
	r->type = le32_get(hdr);
	r->sector = le64_get(hdr + 8);
	switch (r->type) {
	case VIRTIO_BLK_T_IN:
		slice_in(c, r);
		r->status = check_rw(r, g, false);
		return;
	case VIRTIO_BLK_T_OUT:
		slice_out(c, r, VIRTIO_BLK_HDR_SIZE);
		r->status = check_rw(r, g, true);
		return;
	case VIRTIO_BLK_T_FLUSH:
		r->status = VIRTIO_BLK_S_OK;
		return;
	case VIRTIO_BLK_T_GET_ID:
		slice_in(c, r);
		r->status = VIRTIO_BLK_S_OK;
		return;
	case VIRTIO_BLK_T_DISCARD:
	case VIRTIO_BLK_T_WRITE_ZEROES:
		r->status = parse_segs(c, g, r);
		return;
	default:
		r->status = VIRTIO_BLK_S_UNSUPP;
		return;
	}
}

uint32_t blk_req_used_len(const struct blk_req *r)
{
	uint64_t data = 0;

	if (!r->status_at)
		return 0;
	if (r->status == VIRTIO_BLK_S_OK && r->type == VIRTIO_BLK_T_IN)
		data = r->len;
	else if (r->status == VIRTIO_BLK_S_OK &&
		 r->type == VIRTIO_BLK_T_GET_ID)
		data = r->len < VIRTIO_BLK_ID_BYTES ? r->len :
			VIRTIO_BLK_ID_BYTES;
	/* A chain's bytes fit in 32 bits only if the guest made them so;
	 * the used length is advisory, so saturate. */
	return data >= UINT32_MAX ? UINT32_MAX : (uint32_t)data + 1;
}
