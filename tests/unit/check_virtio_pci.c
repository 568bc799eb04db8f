// SPDX-License-Identifier: MIT
/*
 * devices/virtio/{pci,common,irq,msix,worker}.c with virtio-rng as the
 * device: identity and capabilities, the common configuration (feature
 * negotiation, status rules, queue set-up, any access width), MSI-X
 * (table, masking, pending bits, lazy routes), INTx and ISR, where kicks
 * are bound as the BAR moves, the PCI configuration window, a request
 * served end to end by the device thread, and snapshot state taken from
 * one device and loaded into a new one (and malformed state refused).
 */
#include <check.h>
#include <unistd.h>

#include "tests/unit/unit.h"
#include "tests/unit/virtio_fake.h"
#include "devices/virtio/irq.h"
#include "devices/virtio/rng.h"
#include "devices/virtio/state.h"

#define F(b)		(1ull << (b))
#define STD		(F(VIRTIO_F_VERSION_1) | F(VIRTIO_F_RING_EVENT_IDX))
#define BAR_ADDR	0xc0000000u

static void setup(void)
{
	struct pci_bus_config c = { .nbuses = 1 };
	struct virtio_host h = fake_host();
	struct virtio_rng *r;

	fake_bus = pci_bus_create(&c);
	ck_assert_ptr_nonnull(fake_bus);
	r = virtio_rng_create(fake_bus, FAKE_BDF, &h, "virtio-rng0");
	ck_assert_ptr_nonnull(r);
	fake_vp = virtio_rng_pci(r);
}

static void teardown(void)
{
	pci_bus_destroy(fake_bus);
}

static void map_bar(uint32_t addr)
{
	cfg_wr(PCI_BASE_ADDRESS_0, addr, 4);
	cfg_wr(PCI_BASE_ADDRESS_0 + 4, 0, 4);
	cfg_wr(PCI_COMMAND, PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER, 2);
}

/* Offset of the first capability with id (and vendor cfg_type). */
static unsigned int find_cap(uint8_t id, int type)
{
	unsigned int c = cfg_rd(PCI_CAPABILITY_LIST, 1);

	for (int n = 0; c && n < 48; n++) {
		if (cfg_rd(c, 1) == id &&
		    (type < 0 || cfg_rd(c + VIRTIO_PCI_CAP_CFG_TYPE, 1) ==
		     (unsigned int)type))
			return c;
		c = cfg_rd(c + 1, 1);
	}
	return 0;
}

START_TEST(test_identity)
{
	unsigned int m, n;

	ck_assert_uint_eq(cfg_rd(PCI_VENDOR_ID, 4), 0x10441af4);
	ck_assert_uint_eq(cfg_rd(PCI_REVISION_ID, 1), 1);
	ck_assert_uint_eq(cfg_rd(PCI_SUBSYSTEM_VENDOR_ID, 2), 0x1af4);
	ck_assert_uint_eq(cfg_rd(PCI_INTERRUPT_PIN, 1), 1);
	ck_assert_uint_eq(cfg_rd(PCI_CLASS_DEVICE, 2), 0xff00);
	ck_assert_uint_eq(cfg_rd(PCI_STATUS, 2) & PCI_STATUS_CAP_LIST,
			  PCI_STATUS_CAP_LIST);
	cfg_wr(PCI_BASE_ADDRESS_0, ~0u, 4);
	ck_assert_uint_eq(cfg_rd(PCI_BASE_ADDRESS_0, 4),
			  (uint32_t)~(VIRTIO_BAR_SIZE - 1) | 4);
	m = find_cap(PCI_CAP_ID_MSIX, -1);
	ck_assert_uint_ne(m, 0);
	ck_assert_uint_eq(cfg_rd(m + 2, 2), 1);		/* two vectors */
	ck_assert_uint_eq(cfg_rd(m + 4, 4), VIRTIO_BAR_MSIX_TABLE);
	ck_assert_uint_eq(cfg_rd(m + 8, 4), VIRTIO_BAR_MSIX_PBA);
	n = find_cap(PCI_CAP_ID_VNDR, VIRTIO_PCI_CAP_NOTIFY_CFG);
	ck_assert_uint_ne(n, 0);
	ck_assert_uint_eq(cfg_rd(n + VIRTIO_PCI_CAP_OFFSET, 4),
			  VIRTIO_BAR_NOTIFY);
	ck_assert_uint_eq(cfg_rd(n + VIRTIO_PCI_NOTIFY_MULTIPLIER, 4), 4);
	ck_assert_uint_ne(find_cap(PCI_CAP_ID_VNDR, VIRTIO_PCI_CAP_COMMON_CFG),
			  0);
	ck_assert_uint_ne(find_cap(PCI_CAP_ID_VNDR, VIRTIO_PCI_CAP_ISR_CFG), 0);
	ck_assert_uint_ne(find_cap(PCI_CAP_ID_VNDR, VIRTIO_PCI_CAP_PCI_CFG), 0);
	/* virtio-rng has no device configuration. */
	ck_assert_uint_eq(find_cap(PCI_CAP_ID_VNDR, VIRTIO_PCI_CAP_DEVICE_CFG),
			  0);
}
END_TEST

START_TEST(test_features)
{
	bar_wr(COMMON(VIRTIO_PCI_COMMON_DFSELECT), 0, 4);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_DF), 4),
			  F(VIRTIO_F_RING_INDIRECT_DESC) |
			  F(VIRTIO_F_RING_EVENT_IDX));
	bar_wr(COMMON(VIRTIO_PCI_COMMON_DFSELECT), 1, 4);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_DF), 4), 1);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_DFSELECT), 7, 4);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_DF), 4), 0);
	ck_assert(fake_negotiate(STD));
	ck_assert(!fake_negotiate(STD | F(VIRTIO_F_RING_PACKED)));
	ck_assert(!fake_negotiate(F(VIRTIO_F_RING_EVENT_IDX)));
	ck_assert(!fake_negotiate(STD | F(63)));
	/* After FEATURES_OK the driver's features are frozen. */
	ck_assert(fake_negotiate(STD));
	bar_wr(COMMON(VIRTIO_PCI_COMMON_GFSELECT), 0, 4);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_GF), 0, 4);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_GF), 4),
			  F(VIRTIO_F_RING_EVENT_IDX));
}
END_TEST

static uint8_t status(void)
{
	return (uint8_t)bar_rd(COMMON(VIRTIO_PCI_COMMON_STATUS), 1);
}

START_TEST(test_status_rules)
{
	ck_assert(fake_negotiate(STD));
	bar_wr(COMMON(VIRTIO_PCI_COMMON_STATUS), VIRTIO_STATUS_ACKNOWLEDGE, 1);
	ck_assert(status() & VIRTIO_STATUS_NEEDS_RESET);
	ck_assert(status() & VIRTIO_STATUS_FEATURES_OK);	/* kept */
	bar_wr(COMMON(VIRTIO_PCI_COMMON_STATUS), 0, 1);
	ck_assert_uint_eq(status(), 0);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_STATUS), VIRTIO_STATUS_ACKNOWLEDGE |
	       VIRTIO_STATUS_DRIVER_OK, 1);
	ck_assert_uint_eq(status(), VIRTIO_STATUS_ACKNOWLEDGE |
			  VIRTIO_STATUS_NEEDS_RESET);
	/* Queues before FEATURES_OK: refused. */
	bar_wr(COMMON(VIRTIO_PCI_COMMON_STATUS), 0, 1);
	ck_assert_int_eq(fake_queue(0), -1);
	ck_assert(status() & VIRTIO_STATUS_NEEDS_RESET);
	ck_assert_uint_eq(atomic_load(&fake_vp->stats.resets), 3);
}
END_TEST

START_TEST(test_queue_setup)
{
	ck_assert(fake_negotiate(STD));
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_SELECT), 0, 2);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_Q_SIZE), 2), 64);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_NUMQ), 2), 1);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_Q_MSIX), 2),
			  VIRTIO_MSI_NO_VECTOR);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_MSIX), 2, 2);	/* only 0, 1 */
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_Q_MSIX), 2),
			  VIRTIO_MSI_NO_VECTOR);
	ck_assert_int_eq(fake_queue(1), 0);
	/* 64-bit field read in one access; enabled: set-up frozen. */
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_Q_AVAILLO), 8),
			  FAKE_AVAIL);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_DESCLO), 0x5000, 4);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_SIZE), 8, 2);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_Q_DESCLO), 8),
			  FAKE_DESC);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_Q_SIZE), 2),
			  FAKE_QSIZE);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_Q_MSIX), 2), 1);
	/* An absent queue reads zero and takes nothing. */
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_SELECT), 3, 2);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_Q_SIZE), 2), 0);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_ENABLE), 1, 2);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_Q_ENABLE), 2), 0);
	/* A write straddling queue_select and queue_size. */
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_SELECT), 0x00200000, 4);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_Q_SELECT), 2), 0);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_Q_SIZE), 2),
			  FAKE_QSIZE);
	/* Reset: back to the reset values. */
	bar_wr(COMMON(VIRTIO_PCI_COMMON_STATUS), 0, 1);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_Q_ENABLE), 2), 0);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_Q_SIZE), 2), 64);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_Q_DESCLO), 8), 0);
	/* Reads past the structure are zero. */
	ck_assert_uint_eq(bar_rd(COMMON(0x3e), 2), 0);
	ck_assert_uint_eq(bar_rd(COMMON(0x800), 8), 0);
}
END_TEST

static uint64_t vector_count(unsigned int v)
{
	uint64_t n = 0;

	if (read(virtio_pci_vector_fd(fake_vp, v), &n, sizeof(n)) !=
	    sizeof(n))
		return 0;
	return n;
}

START_TEST(test_msix)
{
	unsigned int m = find_cap(PCI_CAP_ID_MSIX, -1);
	uint64_t t = VIRTIO_BAR_MSIX_TABLE;

	ck_assert_uint_eq(bar_rd(t + 12, 4), 1);	/* masked at reset */
	ck_assert_uint_eq(bar_rd(t + 16 * 2, 4), 0xffffffffu);
	bar_wr(t + 16, 0xfee00000, 4);
	bar_wr(t + 16 + 4, 0, 4);
	bar_wr(t + 16 + 8, 0x41, 4);
	bar_wr(t + 16 + 1, 0xff, 1);		/* byte access: dropped */
	ck_assert_uint_eq(bar_rd(t + 16, 8), 0xfee00000);
	cfg_wr(m + 2, 0x8000, 2);		/* enable */
	ck_assert(fake_negotiate(STD));
	ck_assert_int_eq(fake_queue(1), 0);
	/* Masked entry: pending bit, no message, no route yet. */
	virtio_irq_queue(fake_vp, 0);
	ck_assert_uint_eq(bar_rd(VIRTIO_BAR_MSIX_PBA, 8), 2);
	ck_assert_uint_eq(vector_count(1), 0);
	ck_assert_uint_eq(fh.routes, 0);
	/* Unmask: the pending message goes out, routed first. */
	bar_wr(t + 16 + 12, 0, 4);
	ck_assert_uint_eq(bar_rd(VIRTIO_BAR_MSIX_PBA, 8), 0);
	ck_assert_uint_eq(vector_count(1), 1);
	ck_assert_uint_eq(fh.routes, 1);
	ck_assert_uint_eq(fh.route_vec, 1);
	ck_assert_uint_eq(fh.route_addr, 0xfee00000);
	ck_assert_uint_eq(fh.route_data, 0x41);
	/* Same message again: no new route. */
	virtio_irq_queue(fake_vp, 0);
	ck_assert_uint_eq(vector_count(1), 1);
	ck_assert_uint_eq(fh.routes, 1);
	/* Function mask: pending, delivered when cleared; no INTx. */
	cfg_wr(m + 2, 0xc000, 2);
	virtio_irq_queue(fake_vp, 0);
	ck_assert_uint_eq(vector_count(1), 0);
	cfg_wr(m + 2, 0x8000, 2);
	ck_assert_uint_eq(vector_count(1), 1);
	ck_assert_uint_eq(fh.intx_raises, 0);
	/* The message changed: re-routed before the next one. */
	bar_wr(t + 16 + 8, 0x42, 4);
	virtio_irq_queue(fake_vp, 0);
	ck_assert_uint_eq(fh.routes, 2);
	ck_assert_uint_eq(fh.route_data, 0x42);
	/* No vector: no message. */
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_MSIX), VIRTIO_MSI_NO_VECTOR, 2);
	vector_count(1);
	virtio_irq_queue(fake_vp, 0);
	ck_assert_uint_eq(vector_count(1), 0);
}
END_TEST

START_TEST(test_intx)
{
	virtio_irq_queue(fake_vp, 0);
	ck_assert_int_eq(fh.intx_level, 1);
	virtio_irq_config(fake_vp);
	ck_assert_uint_eq(bar_rd(VIRTIO_BAR_ISR, 1), 3);
	ck_assert_int_eq(fh.intx_level, 0);
	ck_assert_uint_eq(bar_rd(VIRTIO_BAR_ISR, 1), 0);
	virtio_irq_queue(fake_vp, 0);
	cfg_wr(PCI_COMMAND, PCI_COMMAND_INTX_DISABLE, 2);
	ck_assert_int_eq(fh.intx_level, 0);
	cfg_wr(PCI_COMMAND, 0, 2);
	ck_assert_int_eq(fh.intx_level, 1);
	ck_assert_uint_eq(fh.intx_raises, 3);
	/* MSI-X on: INTx drops; ISR keeps only the configuration bit. */
	cfg_wr(find_cap(PCI_CAP_ID_MSIX, -1) + 2, 0x8000, 2);
	ck_assert_int_eq(fh.intx_level, 0);
	bar_rd(VIRTIO_BAR_ISR, 1);
	virtio_irq_queue(fake_vp, 0);
	virtio_irq_config(fake_vp);
	ck_assert_uint_eq(bar_rd(VIRTIO_BAR_ISR, 1), VIRTIO_ISR_CONFIG);
	ck_assert_uint_eq(bar_rd(VIRTIO_BAR_ISR + 1, 1), 0);
}
END_TEST

START_TEST(test_notify_binding)
{
	fh.bind_result = 0;
	map_bar(BAR_ADDR);
	ck_assert_uint_eq(fh.binds, 1);
	ck_assert_uint_eq(fh.bound_at, BAR_ADDR + VIRTIO_BAR_NOTIFY);
	cfg_wr(PCI_COMMAND, 0, 2);			/* decode off */
	ck_assert_uint_eq(fh.unbinds, 1);
	cfg_wr(PCI_BASE_ADDRESS_0, BAR_ADDR + 0x100000, 4);
	cfg_wr(PCI_COMMAND, PCI_COMMAND_MEMORY, 2);
	ck_assert_uint_eq(fh.binds, 2);
	ck_assert_uint_eq(fh.bound_at, BAR_ADDR + 0x100000 + VIRTIO_BAR_NOTIFY);
	/* A 64-bit placement above 4 GiB. */
	cfg_wr(PCI_BASE_ADDRESS_0 + 4, 1, 4);
	ck_assert_uint_eq(fh.bound_at,
			  0x100000000ull + BAR_ADDR + 0x100000 + 0x3000);
	ck_assert_uint_eq(fh.unbinds, 2);
	/* Sizing moves nothing. */
	cfg_wr(PCI_COMMAND, 0, 2);
	cfg_wr(PCI_BASE_ADDRESS_0, ~0u, 4);
	ck_assert_uint_eq(fh.binds, 3);
}
END_TEST

START_TEST(test_window)
{
	unsigned int c = find_cap(PCI_CAP_ID_VNDR, VIRTIO_PCI_CAP_PCI_CFG);

	cfg_wr(c + VIRTIO_PCI_CAP_BAR, 0, 1);
	cfg_wr(c + VIRTIO_PCI_CAP_OFFSET, VIRTIO_PCI_COMMON_NUMQ, 4);
	cfg_wr(c + VIRTIO_PCI_CAP_LENGTH, 2, 4);
	ck_assert_uint_eq(cfg_rd(c + VIRTIO_PCI_CFG_DATA, 4), 1);
	/* Writes through it: status = ACKNOWLEDGE. */
	cfg_wr(c + VIRTIO_PCI_CAP_OFFSET, VIRTIO_PCI_COMMON_STATUS, 4);
	cfg_wr(c + VIRTIO_PCI_CAP_LENGTH, 1, 4);
	cfg_wr(c + VIRTIO_PCI_CFG_DATA, VIRTIO_STATUS_ACKNOWLEDGE, 1);
	ck_assert_uint_eq(status(), VIRTIO_STATUS_ACKNOWLEDGE);
	/* Bad windows do nothing. */
	cfg_wr(c + VIRTIO_PCI_CFG_DATA, 0xaa, 4);
	cfg_wr(c + VIRTIO_PCI_CAP_BAR, 2, 1);
	ck_assert_uint_eq(cfg_rd(c + VIRTIO_PCI_CFG_DATA, 4), 0xaa);
	cfg_wr(c + VIRTIO_PCI_CAP_OFFSET, VIRTIO_BAR_SIZE - 2, 4);
	cfg_wr(c + VIRTIO_PCI_CAP_LENGTH, 4, 4);
	cfg_wr(c + VIRTIO_PCI_CAP_BAR, 0, 1);		/* past the BAR */
	ck_assert_uint_eq(cfg_rd(c + VIRTIO_PCI_CFG_DATA, 4), 0xaa);
	cfg_wr(c + VIRTIO_PCI_CAP_LENGTH, 3, 4);
	cfg_wr(c + VIRTIO_PCI_CAP_OFFSET, 0, 4);	/* length 3 */
	ck_assert_uint_eq(cfg_rd(c + VIRTIO_PCI_CFG_DATA, 4), 0xaa);
	/* 0xaa through the window cleared ACKNOWLEDGE: refused. */
	ck_assert_uint_eq(status(), VIRTIO_STATUS_ACKNOWLEDGE |
			  VIRTIO_STATUS_NEEDS_RESET);
}
END_TEST

/* The device thread serves a request kicked through the notify register
 * (no ioeventfd here: fake_bind refuses). */
START_TEST(test_served)
{
	uint8_t *buf = fake_at(FAKE_BUF);

	ck_assert_int_eq(virtio_pci_start(fake_vp), 0);
	ck_assert(fake_negotiate(STD));
	ck_assert_int_eq(fake_queue(VIRTIO_MSI_NO_VECTOR), 0);
	/* Before DRIVER_OK nothing is taken. */
	fake_desc(0, FAKE_BUF, 16, VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT, 1);
	fake_desc(1, FAKE_BUF + 16, 48, VIRTQ_DESC_F_WRITE, 0);
	fake_offer(0);
	ck_assert(!fake_wait_used_ms(1, 50));
	fake_driver_ok();
	ck_assert(fake_wait_used(1));
	ck_assert_uint_eq(fake_get32(FAKE_USED + 4), 0);
	ck_assert_uint_eq(fake_get32(FAKE_USED + 8), 64);
	ck_assert(memcmp(buf, buf + 32, 32));
	ck_assert_uint_eq(atomic_load(&fake_vp->stats.requests), 1);
	ck_assert_uint_eq(atomic_load(&fake_vp->stats.notify_exits), 1);
	ck_assert_uint_eq(fh.intx_raises, 1);		/* used_event 0 */
	/* A loop: DEVICE_NEEDS_RESET and a configuration interrupt. */
	fake_desc(2, FAKE_BUF, 16, VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT, 2);
	fake_offer(2);
	for (int i = 0; i < 5000 && !(status() & VIRTIO_STATUS_NEEDS_RESET);
	     i++)
		usleep(1000);
	ck_assert(status() & VIRTIO_STATUS_NEEDS_RESET);
	ck_assert(bar_rd(VIRTIO_BAR_ISR, 1) & VIRTIO_ISR_CONFIG);
	virtio_pci_quiesce(fake_vp);
	virtio_pci_quiesce(fake_vp);		/* nests */
	virtio_pci_resume(fake_vp);
	virtio_pci_resume(fake_vp);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_STATUS), 0, 1);
	ck_assert_uint_eq(status(), 0);
}
END_TEST

/* Queue 0 on vector 1, one request served, the vector masked with a
 * message pending. */
static void snap_workload(void)
{
	unsigned int m = find_cap(PCI_CAP_ID_MSIX, -1);
	uint64_t t = VIRTIO_BAR_MSIX_TABLE;

	map_bar(BAR_ADDR);
	bar_wr(t + 16, 0xfee00000, 4);
	bar_wr(t + 16 + 8, 0x51, 4);
	bar_wr(t + 16 + 12, 0, 4);
	cfg_wr(m + 2, 0x8000, 2);
	ck_assert_int_eq(virtio_pci_start(fake_vp), 0);
	ck_assert(fake_negotiate(STD));
	ck_assert_int_eq(fake_queue(1), 0);
	fake_driver_ok();
	fake_desc(0, FAKE_BUF, 64, VIRTQ_DESC_F_WRITE, 0);
	fake_offer(0);
	ck_assert(fake_wait_used(1));
	ck_assert_uint_eq(vector_count(1), 1);
	bar_wr(t + 16 + 12, 1, 4);			/* mask */
	virtio_irq_queue(fake_vp, 0);
	ck_assert_uint_eq(bar_rd(VIRTIO_BAR_MSIX_PBA, 8), 2);
}

START_TEST(test_snapshot_state)
{
	static uint8_t ram[FAKE_RAM_SIZE];
	static struct pci_fn_state fs;
	struct virtio_pci_snap st, bad;
	const char *why = NULL;

	snap_workload();
	virtio_pci_quiesce(fake_vp);
	virtio_pci_get_state(fake_vp, &st);
	pci_fn_get_state(virtio_pci_fn(fake_vp), &fs);
	memcpy(ram, fake_ram, sizeof(ram));
	virtio_pci_resume(fake_vp);
	ck_assert_uint_eq(st.vq[0].used_idx, 1);
	ck_assert_uint_eq(st.vq[0].last_avail, 1);
	ck_assert_uint_eq(st.msix.pba, 2);

	/* A new machine: the same device, RAM and config space back. */
	teardown();
	setup();
	memcpy(fake_ram, ram, sizeof(ram));
	ck_assert_int_eq(pci_fn_set_state(virtio_pci_fn(fake_vp), &fs), 0);
	ck_assert_int_eq(virtio_pci_start(fake_vp), 0);

	/* Malformed or foreign state changes nothing. */
#define REFUSED(field, value, reason)					\
	do {								\
		bad = st;						\
		bad.field = value;					\
		why = NULL;						\
		ck_assert_int_eq(virtio_pci_set_state(fake_vp, &bad,	\
						      &why), -1);	\
		ck_assert_ptr_nonnull(strstr(why, reason));		\
		ck_assert_uint_eq(status(), 0);				\
	} while (0)
	REFUSED(type, VIRTIO_ID_BLOCK, "different virtio device");
	REFUSED(offered, st.offered | F(VIRTIO_BLK_F_RO), "features");
	REFUSED(cfg_size, 60, "configuration differs");
	REFUSED(msix.pba, 4, "transport");
	REFUSED(msix.enabled, 2, "transport");
	REFUSED(st.config_vector, 7, "transport");
	REFUSED(reserved[1], 1, "transport");
	REFUSED(vq[0].size, 48, "queue");
	REFUSED(vq[0].msix_vector, 2, "queue");
	REFUSED(vq[1].enabled, 1, "queue");
#undef REFUSED

	ck_assert_int_eq(virtio_pci_set_state(fake_vp, &st, &why), 0);
	ck_assert_uint_eq(status(), VIRTIO_STATUS_ACKNOWLEDGE |
			  VIRTIO_STATUS_DRIVER | VIRTIO_STATUS_FEATURES_OK |
			  VIRTIO_STATUS_DRIVER_OK);
	ck_assert_uint_eq(fh.binds, 1);		/* kicks where BAR 0 is */
	ck_assert_uint_eq(fh.bound_at, BAR_ADDR + VIRTIO_BAR_NOTIFY);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_SELECT), 0, 2);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_Q_ENABLE), 2), 1);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_Q_USEDLO), 8),
			  FAKE_USED);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_Q_MSIX), 2), 1);
	/* The pending message goes out on unmask, routed anew. */
	ck_assert_uint_eq(fh.routes, 0);
	bar_wr(VIRTIO_BAR_MSIX_TABLE + 16 + 12, 0, 4);
	ck_assert_uint_eq(vector_count(1), 1);
	ck_assert_uint_eq(fh.routes, 1);
	ck_assert_uint_eq(fh.route_data, 0x51);
	/* The queue goes on from where it was. */
	fake_desc(1, FAKE_BUF + 64, 32, VIRTQ_DESC_F_WRITE, 0);
	/* used_event: interrupt after the second completion */
	*(uint16_t *)fake_at(FAKE_AVAIL + 4 + 2 * FAKE_QSIZE) = 1;
	fake_offer(1);
	ck_assert(fake_wait_used(2));
	ck_assert_uint_eq(fake_get32(FAKE_USED + 4 + 8), 1);
	ck_assert_uint_eq(fake_get32(FAKE_USED + 4 + 8 + 4), 32);
	ck_assert_uint_eq(vector_count(1), 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("virtio_pci");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_identity);
	tcase_add_test(tc, test_features);
	tcase_add_test(tc, test_status_rules);
	tcase_add_test(tc, test_queue_setup);
	tcase_add_test(tc, test_msix);
	tcase_add_test(tc, test_intx);
	tcase_add_test(tc, test_notify_binding);
	tcase_add_test(tc, test_window);
	tcase_add_test(tc, test_served);
	tcase_add_test(tc, test_snapshot_state);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
