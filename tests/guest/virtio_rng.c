// SPDX-License-Identifier: MIT
/*
 * virtio_rng: drives the first virtio-rng function: negotiation, requests
 * of one buffer, of several, behind an indirect table and larger than the
 * device serves at once (the used length says what it filled), and the
 * MSI-X completion interrupt.  The bytes must not be all zero and no two
 * requests may return the same bytes.
 * Ends with "virtio-rng: N failure(s)" and status 0 or 1.
 */
#include "lib/guest.h"
#include "lib/irq.h"
#include "lib/virtio.h"

#define VEC_QUEUE	0x38
#define QSIZE		64
#define MAX_REQUEST	(64u * 1024)	/* devices/virtio/rng.h */
#define CYCLES		(20ull * 1000 * 1000 * 1000)

static uint8_t qmem[16 * 1024] __attribute__((aligned(4096)));
static uint8_t buf[4][64];
static uint8_t big[128 * 1024];
static struct gv_desc itab[4] __attribute__((aligned(16)));
static struct gvirtio d;

static bool all_zero(const uint8_t *p, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static int64_t request(const struct gv_buf *b, unsigned int n, bool indirect)
{
	struct gvq *q = &d.q[0];

	return gv_submit_wait(q, gv_add(q, b, n, indirect ? itab : NULL),
			      CYCLES);
}

static void test_single(void)
{
	for (int i = 0; i < 4; i++) {
		struct gv_buf b = { buf[i], sizeof(buf[i]), true };
		int64_t used = request(&b, 1, false);

		check(used == (int64_t)sizeof(buf[i]), "request %d: used %lld",
		      i, (long long)used);
		check(!all_zero(buf[i], sizeof(buf[i])), "request %d: zeros",
		      i);
		for (int j = 0; j < i; j++)
			check(memcmp(buf[i], buf[j], sizeof(buf[i])),
			      "requests %d and %d returned the same bytes", j,
			      i);
	}
}

static void test_chains(void)
{
	struct gv_buf three[3] = {
		{ buf[0], 16, true }, { buf[1], 32, true }, { buf[2], 60, true },
	};
	struct gv_buf one = { big, sizeof(big), true };
	int64_t used;

	memset(buf, 0, sizeof(buf));
	used = request(three, 3, false);
	check(used == 108, "three buffers: used %lld", (long long)used);
	check(!all_zero(buf[2], 60), "third buffer left zero");
	memset(buf, 0, sizeof(buf));
	used = request(three, 3, true);
	check(used == 108 && !all_zero(buf[1], 32), "indirect: used %lld",
	      (long long)used);
	memset(big, 0, sizeof(big));
	used = request(&one, 1, false);
	check(used == MAX_REQUEST, "128 KiB asked: used %lld, want %u",
	      (long long)used, MAX_REQUEST);
	check(!all_zero(big + MAX_REQUEST - 64, 64) &&
	      all_zero(big + MAX_REQUEST, 64), "fill does not match used");
}

static void test_interrupt(void)
{
	struct gv_buf b = { buf[3], 8, true };
	uint64_t before = irq_count(VEC_QUEUE);

	gv_want_interrupt(&d.q[0]);
	request(&b, 1, false);
	check(irq_wait(VEC_QUEUE, before + 1, CYCLES / 10) >= before + 1,
	      "no MSI-X interrupt");
}

int payload_main(const struct hvm_start_info *si)
{
	uint64_t want = 1ull << VIRTIO_F_VERSION_1 |
			1ull << VIRTIO_F_RING_EVENT_IDX |
			1ull << VIRTIO_F_RING_INDIRECT_DESC;

	(void)si;
	irq_init();
	if (gv_find(VIRTIO_ID_RNG, 0, &d) < 0) {
		gprintf("virtio-rng: no device\n");
		return 1;
	}
	check(gv_pci_read(&d, PCI_CLASS_DEVICE, 2) == 0xff00,
	      "class %#x", gv_pci_read(&d, PCI_CLASS_DEVICE, 2));
	gv_msix_enable(&d, true, false);
	gv_msix_vector(&d, 1, msi_addr(), msi_data(VEC_QUEUE), false);
	if (!gv_negotiate(&d, want, false) ||
	    gv_queue_setup(&d, 0, QSIZE, qmem, 1) < 0) {
		gprintf("virtio-rng: set-up refused\n");
		return 1;
	}
	gv_driver_ok(&d);
	gv_no_interrupts(&d.q[0]);
	test_single();
	test_chains();
	test_interrupt();
	gprintf("virtio-rng: %u failure(s)\n", check_failures());
	return check_failures() ? 1 : 0;
}
