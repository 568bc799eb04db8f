// SPDX-License-Identifier: MIT
/*
 * virtio_snap: virtio-blk work with a snapshot request in its middle
 * (tests/boot/virtio.sh).  Whether the run goes on uninterrupted (no
 * --snapshot-at port: the request is ignored) or is a restore of the
 * snapshot, the payload must end with every check holding.
 *
 * Before the request: the device set up with MSI-X, region A written and
 * flushed, a 256 KiB write of region C kicked and not waited for (in flight
 * when the snapshot is asked for: the device must finish it first), and a
 * read of A published in the avail ring without a kick.  After it: both
 * complete (the read once the doorbell rings, as the driver would ring it
 * anyway), region B written, A, B and C read back and compared, and a
 * request that asks for an interrupt gets it on the same MSI-X vector.
 * Prints "blk-written: sector=S count=C fnv=0x..." for A, B and C (the
 * host checks the image), then "virtio-snap: generation G, N failure(s)".
 */
#include "lib/guest.h"
#include "lib/irq.h"
#include "lib/vblk.h"
#include "vmm/layout.h"

#define CTL_GENERATION	(LAYOUT_SNAPCTL_BASE + 0x008)
#define CTL_REQUEST	(LAYOUT_SNAPCTL_BASE + 0x010)
#define REQUEST_MAGIC	0x50414e53u
#define VEC_QUEUE	0x34
#define QSIZE		64
#define WAIT		(20ull * 1000 * 1000 * 1000)

struct region {
	uint64_t sector;
	uint32_t bytes;
	uint8_t *buf;
};

static uint8_t qmem[16 * 1024] __attribute__((aligned(4096)));
static uint8_t buf_a[32 * 1024], buf_b[64 * 1024], back[256 * 1024];
static uint8_t buf_c[256 * 1024] __attribute__((aligned(4096)));
static struct vblk blk;
static const struct region A = { 0, sizeof(buf_a), buf_a };
static const struct region B = { 2048, sizeof(buf_b), buf_b };
static const struct region C = { 4096, sizeof(buf_c), buf_c };

struct fill {
	uint8_t *p;
	uint64_t len, x, fnv;
};

static void fill(void *arg)
{
	struct fill *f = arg;
	uint64_t x = f->x | 1;

	for (uint64_t i = 0; i < f->len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(f->p + i, &x, 8);
	}
}

static void fnv(void *arg)
{
	struct fill *f = arg;
	uint64_t h = 0xcbf29ce484222325ull;

	for (uint64_t i = 0; i < f->len; i++)
		h = (h ^ f->p[i]) * 0x100000001b3ull;
	f->fnv = h;
}

static uint64_t sum(uint8_t *p, uint64_t len)
{
	struct fill f = { p, len, 0, 0 };

	run_user(fnv, &f);
	return f.fnv;
}

static void pattern(const struct region *r)
{
	struct fill f = { r->buf, r->bytes, 0x5eed ^ r->sector, 0 };

	run_user(fill, &f);
}

static int io(uint32_t type, const struct region *r, uint8_t *buf)
{
	struct vblk_shape s = { .split = 2, .no_interrupt = true };

	return vblk_req(&blk, type, r->sector, buf, r->bytes, &s, NULL);
}

/* A request published (and for C kicked) but not waited for. */
static struct hdr {
	uint32_t type, reserved;
	uint64_t sector;
} hdr_c, hdr_r;
static volatile uint8_t st_c = 0xff, st_r = 0xff;

static uint16_t start(struct hdr *h, uint32_t type, const struct region *r,
		      uint8_t *data, volatile uint8_t *st)
{
	struct gv_buf b[3] = {
		{ h, 16, false },
		{ data, r->bytes, type == VIRTIO_BLK_T_IN },
		{ (void *)st, 1, true },
	};
	uint16_t head;

	*h = (struct hdr){ type, 0, r->sector };
	head = gv_add(blk.q, b, 3, NULL);
	gv_publish(blk.q, head);
	return head;
}

/* Both early requests' completions, in any order. */
static void reap_early(void)
{
	uint64_t end = rdtsc() + WAIT;
	unsigned int got = 0;
	uint32_t id, len;

	while (got < 2 && rdtsc() < end)
		got += gv_poll(blk.q, &id, &len);
	check(got == 2, "early requests: %u of 2 completed", got);
	check(st_c == VIRTIO_BLK_S_OK && st_r == VIRTIO_BLK_S_OK,
	      "early requests: status %#x %#x", st_c, st_r);
}

static void verify(const struct region *r, const char *name)
{
	memset(back, 0xaa, r->bytes);
	check(io(VIRTIO_BLK_T_IN, r, back) == VIRTIO_BLK_S_OK, "read %s",
	      name);
	check(sum(back, r->bytes) == sum(r->buf, r->bytes), "%s differs",
	      name);
	gprintf("blk-written: sector=%llu count=%u fnv=%#llx\n",
		(unsigned long long)r->sector, r->bytes / 512,
		(unsigned long long)sum(r->buf, r->bytes));
}

int payload_main(const struct hvm_start_info *si)
{
	uint64_t want = 1ull << VIRTIO_F_VERSION_1 |
			1ull << VIRTIO_F_RING_EVENT_IDX |
			1ull << VIRTIO_F_RING_INDIRECT_DESC;
	uint64_t before;
	uint32_t gen;

	(void)si;
	irq_init();
	if (gv_find(VIRTIO_ID_BLOCK, 0, &blk.d) < 0)
		return 1;
	gv_msix_enable(&blk.d, true, false);
	gv_msix_vector(&blk.d, 1, msi_addr(), msi_data(VEC_QUEUE), false);
	if (vblk_open(&blk, 0, want, QSIZE, qmem, 1) < 0)
		return 1;
	pattern(&A);
	pattern(&B);
	pattern(&C);
	check(io(VIRTIO_BLK_T_OUT, &A, buf_a) == VIRTIO_BLK_S_OK, "write A");
	check(vblk_req(&blk, VIRTIO_BLK_T_FLUSH, 0, NULL, 0, NULL, NULL) ==
	      VIRTIO_BLK_S_OK, "flush");
	gv_no_interrupts(blk.q);
	start(&hdr_c, VIRTIO_BLK_T_OUT, &C, buf_c, &st_c);
	gv_kick_always(blk.q);
	start(&hdr_r, VIRTIO_BLK_T_IN, &A, back, &st_r);
	gputs("virtio-snap: requesting\n");
	mmio_write32(CTL_REQUEST, REQUEST_MAGIC);
	gen = mmio_read32(CTL_GENERATION);
	gv_kick_always(blk.q);
	reap_early();
	check(sum(back, A.bytes) == sum(buf_a, A.bytes), "early read of A");
	check(io(VIRTIO_BLK_T_OUT, &B, buf_b) == VIRTIO_BLK_S_OK, "write B");
	verify(&A, "A");
	verify(&B, "B");
	verify(&C, "C");
	/* Interrupts come in only inside irq_wait(): take the flush's first,
	 * then one more must follow the loud read. */
	irq_wait(VEC_QUEUE, ~0ull, WAIT / 1000);
	before = irq_count(VEC_QUEUE);
	gv_want_interrupt(blk.q);
	check(vblk_req(&blk, VIRTIO_BLK_T_IN, 0, back, 512,
		       &(struct vblk_shape){ .split = 1 }, NULL) == 0,
	      "loud read");
	check(irq_wait(VEC_QUEUE, before + 1, WAIT / 10) == before + 1,
	      "MSI-X: %llu interrupts on the restored vector, want 1",
	      (unsigned long long)(irq_count(VEC_QUEUE) - before));
	gprintf("virtio-snap: generation %u, %u failure(s)\n", gen,
		check_failures());
	return check_failures() ? 1 : 0;
}
