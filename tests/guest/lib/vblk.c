// SPDX-License-Identifier: MIT
/* virtio-blk requests for payloads; see vblk.h. */
#include "guest.h"
#include "vblk.h"

#define MAX_SPLIT	16

struct req_hdr {
	uint32_t type, reserved;
	uint64_t sector;
};

static struct req_hdr hdr;
static uint8_t seg[VIRTIO_BLK_SEG_SIZE];
static volatile uint8_t status;
static struct gv_desc itab[MAX_SPLIT + 2] __attribute__((aligned(16)));

int vblk_open(struct vblk *b, unsigned int nth, uint64_t want,
	      uint16_t size, void *mem, uint16_t vec)
{
	if (gv_find(VIRTIO_ID_BLOCK, nth, &b->d) < 0) {
		gprintf("vblk: no virtio-blk #%u\n", nth);
		return -1;
	}
	if (!gv_negotiate(&b->d, want, false)) {
		gprintf("vblk: FEATURES_OK refused\n");
		return -1;
	}
	if (gv_queue_setup(&b->d, 0, size, mem, vec) < 0) {
		gprintf("vblk: queue 0 refused\n");
		return -1;
	}
	b->q = &b->d.q[0];
	b->capacity = gv_cfg_read64(&b->d, VIRTIO_BLK_CFG_CAPACITY);
	gv_driver_ok(&b->d);
	return 0;
}

int vblk_req(struct vblk *b, uint32_t type, uint64_t sector, void *buf,
	     uint32_t len, const struct vblk_shape *s, int64_t *used)
{
	bool wr = type == VIRTIO_BLK_T_IN || type == VIRTIO_BLK_T_GET_ID;
	unsigned int split = s && s->split ? s->split : 1, n = 0;
	struct gv_buf bufs[MAX_SPLIT + 2];
	uint32_t piece;
	int64_t u;

	if (split > MAX_SPLIT)
		split = MAX_SPLIT;
	hdr = (struct req_hdr){ .type = type, .sector = sector };
	status = 0xff;
	bufs[n++] = (struct gv_buf){ &hdr, sizeof(hdr), false };
	piece = len / split;
	for (unsigned int i = 0; len && i < split; i++) {
		uint32_t l = i + 1 == split ? len - piece * i : piece;

		if (l)
			bufs[n++] = (struct gv_buf){ (uint8_t *)buf + piece * i,
						     l, wr };
	}
	bufs[n++] = (struct gv_buf){ (void *)&status, 1, true };
	if (s && s->no_interrupt)
		gv_no_interrupts(b->q);
	else
		gv_want_interrupt(b->q);
	u = gv_submit_wait(b->q, gv_add(b->q, bufs, n, s && s->indirect ?
					 itab : NULL), VBLK_TIMEOUT_CYCLES);
	if (used)
		*used = u;
	return u < 0 ? -1 : status;
}

int vblk_range(struct vblk *b, uint32_t type, uint64_t sector, uint32_t num,
	       uint32_t flags)
{
	const struct vblk_shape s = { .split = 1, .no_interrupt = true };

	memcpy(seg, &sector, 8);
	memcpy(seg + 8, &num, 4);
	memcpy(seg + 12, &flags, 4);
	/* The segment is device-readable: vblk_req marks data writable
	 * only for IN and GET_ID. */
	return vblk_req(b, type, 0, seg, sizeof(seg), &s, NULL);
}
