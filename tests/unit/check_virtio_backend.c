// SPDX-License-Identifier: MIT
/*
 * devices/virtio/calls.c (through backend.c) with a fake back-end device
 * (backend_queues, as vhost-user's): the call eventfd a started queue's
 * back end signals is the queue's MSI-X vector's own irqfd while that
 * vector can fire as it is (its route programmed at once and kept
 * current), and the transport's relay while MSI-X is off, the function
 * or the entry is masked, or the queue has no vector; each change moves
 * it (set_call), and a reset stops the moves.
 */
#include <check.h>
#include <unistd.h>

#include "tests/unit/unit.h"
#include "tests/unit/virtio_fake.h"

#define F(b)		(1ull << (b))
#define STD		(F(VIRTIO_F_VERSION_1) | F(VIRTIO_F_RING_EVENT_IDX))
#define TABLE		VIRTIO_BAR_MSIX_TABLE

static struct {
	int started_fd;		/* what start() was handed; -2: not called */
	int set_fd;		/* last set_call fd */
	unsigned int sets;
	int set_result;
} fb;

static void process(void *dev, struct virtio_pci *vp, unsigned int q)
{
	(void)dev;
	(void)vp;
	(void)q;
}

static int start(void *dev, struct virtio_pci *vp)
{
	(void)dev;
	fb.started_fd = virtio_pci_call_fd(vp, 0);
	return 0;
}

static int set_call(void *dev, unsigned int q, int fd)
{
	(void)dev;
	ck_assert_uint_eq(q, 0);
	fb.sets++;
	fb.set_fd = fd;
	return fb.set_result;
}

static const struct virtio_device_ops ops = {
	.name = "fake-backend",
	.type = 26,
	.nqueues = 1,
	.queue_max = FAKE_QSIZE,
	.process = process,
	.backend_queues = true,
	.start = start,
	.set_call = set_call,
};

static unsigned int msix_cap;

static void setup(void)
{
	struct pci_bus_config c = { .nbuses = 1 };
	struct virtio_host h = fake_host();

	memset(&fb, 0, sizeof(fb));
	fb.started_fd = -2;
	fb.set_fd = -2;
	fake_bus = pci_bus_create(&c);
	ck_assert_ptr_nonnull(fake_bus);
	fake_vp = virtio_pci_create(fake_bus, FAKE_BDF, &ops, NULL, &h,
				    "fake-backend0");
	ck_assert_ptr_nonnull(fake_vp);
	msix_cap = cfg_rd(PCI_CAPABILITY_LIST, 1);
	while (msix_cap && cfg_rd(msix_cap, 1) != PCI_CAP_ID_MSIX)
		msix_cap = cfg_rd(msix_cap + 1, 1);
	ck_assert_uint_ne(msix_cap, 0);
}

static void teardown(void)
{
	pci_bus_destroy(fake_bus);
}

/* Vector 1's message, unmasked or not; MSI-X on; queue 0 on vector 1. */
static void driver_up(bool unmasked)
{
	bar_wr(TABLE + 16, 0xfee00000, 4);
	bar_wr(TABLE + 16 + 8, 0x41, 4);
	bar_wr(TABLE + 16 + 12, unmasked ? 0 : 1, 4);
	cfg_wr(msix_cap + 2, 0x8000, 2);
	ck_assert(fake_negotiate(STD));
	ck_assert_int_eq(fake_queue(1), 0);
	fake_driver_ok();
}

static int vector_fd(void)
{
	return virtio_pci_vector_fd(fake_vp, 1);
}

static int relay_fd(void)
{
	return fake_vp->call_fd[0];
}

START_TEST(test_direct_from_the_start)
{
	driver_up(true);
	ck_assert_int_ge(vector_fd(), 0);
	ck_assert_int_eq(fb.started_fd, vector_fd());
	/* The back end writes the irqfd itself: routed now, not lazily. */
	ck_assert_uint_eq(fh.routes, 1);
	ck_assert_uint_eq(fh.route_vec, 1);
	ck_assert_uint_eq(fh.route_data, 0x41);
	ck_assert_uint_eq(fb.sets, 0);
	/* A new message while direct: re-routed at once. */
	bar_wr(TABLE + 16 + 8, 0x42, 4);
	ck_assert_uint_eq(fh.routes, 2);
	ck_assert_uint_eq(fh.route_data, 0x42);
	ck_assert_uint_eq(fb.sets, 0);
}
END_TEST

START_TEST(test_masks_move_the_call)
{
	driver_up(true);
	/* Entry masked: the relay, which keeps the pending bit. */
	bar_wr(TABLE + 16 + 12, 1, 4);
	ck_assert_uint_eq(fb.sets, 1);
	ck_assert_int_eq(fb.set_fd, relay_fd());
	ck_assert_int_ne(relay_fd(), vector_fd());
	/* A new message while masked: nothing to route yet. */
	bar_wr(TABLE + 16 + 8, 0x43, 4);
	ck_assert_uint_eq(fh.routes, 1);
	/* Unmasked: back to the irqfd, routed first. */
	bar_wr(TABLE + 16 + 12, 0, 4);
	ck_assert_uint_eq(fb.sets, 2);
	ck_assert_int_eq(fb.set_fd, vector_fd());
	ck_assert_uint_eq(fh.routes, 2);
	ck_assert_uint_eq(fh.route_data, 0x43);
	/* The function mask, then MSI-X off: the relay each time. */
	cfg_wr(msix_cap + 2, 0xc000, 2);
	ck_assert_int_eq(fb.set_fd, relay_fd());
	cfg_wr(msix_cap + 2, 0x8000, 2);
	ck_assert_int_eq(fb.set_fd, vector_fd());
	cfg_wr(msix_cap + 2, 0, 2);
	ck_assert_int_eq(fb.set_fd, relay_fd());
	cfg_wr(msix_cap + 2, 0x8000, 2);
	ck_assert_int_eq(fb.set_fd, vector_fd());
	ck_assert_uint_eq(fb.sets, 6);
	/* Writes that change nothing move nothing. */
	bar_wr(TABLE + 16 + 12, 0, 4);
	ck_assert_uint_eq(fb.sets, 6);
	/* No vector for the queue: the relay (INTx or nothing). */
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_SELECT), 0, 2);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_MSIX), VIRTIO_MSI_NO_VECTOR, 2);
	ck_assert_uint_eq(fb.sets, 7);
	ck_assert_int_eq(fb.set_fd, relay_fd());
}
END_TEST

START_TEST(test_masked_at_start_and_failures)
{
	driver_up(false);
	ck_assert_int_eq(fb.started_fd, relay_fd());
	ck_assert_uint_eq(fh.routes, 0);
	/* The back end refuses the move: the old one stays, tried again. */
	fb.set_result = -1;
	bar_wr(TABLE + 16 + 12, 0, 4);
	ck_assert_uint_eq(fb.sets, 1);
	bar_wr(TABLE + 16 + 12, 0, 4);
	ck_assert_uint_eq(fb.sets, 2);
	fb.set_result = 0;
	bar_wr(TABLE + 16 + 12, 0, 4);
	ck_assert_uint_eq(fb.sets, 3);
	ck_assert_int_eq(fb.set_fd, vector_fd());
	/* After a reset the back end has no ring: nothing moves. */
	bar_wr(COMMON(VIRTIO_PCI_COMMON_STATUS), 0, 1);
	bar_wr(TABLE + 16 + 12, 1, 4);
	bar_wr(TABLE + 16 + 12, 0, 4);
	ck_assert_uint_eq(fb.sets, 3);
}
END_TEST

/* Devices whose queues minivmm serves never see any of this. */
START_TEST(test_own_queues_untouched)
{
	static const struct virtio_device_ops own = {
		.name = "fake-own", .type = 4, .nqueues = 1,
		.queue_max = FAKE_QSIZE, .process = process,
	};
	struct virtio_host h = fake_host();
	struct virtio_pci *vp;

	pci_bus_destroy(fake_bus);
	fake_bus = pci_bus_create(&(struct pci_bus_config){ .nbuses = 1 });
	vp = virtio_pci_create(fake_bus, FAKE_BDF, &own, NULL, &h, "own0");
	ck_assert_ptr_nonnull(vp);
	fake_vp = vp;
	driver_up(true);
	/* Routes stay lazy: none before the first interrupt. */
	ck_assert_uint_eq(fh.routes, 0);
	ck_assert_uint_eq(fb.sets, 0);
}
END_TEST

static Suite *backend_suite(void)
{
	Suite *s = suite_create("virtio_backend");
	TCase *tc = tcase_create("calls");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_direct_from_the_start);
	tcase_add_test(tc, test_masks_move_the_call);
	tcase_add_test(tc, test_masked_at_start_and_failures);
	tcase_add_test(tc, test_own_queues_untouched);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(backend_suite());
}
