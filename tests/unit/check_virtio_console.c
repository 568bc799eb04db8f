// SPDX-License-Identifier: MIT
/*
 * devices/virtio/console.c through the transport and its real device
 * thread: receive buffers wait for host input (and are not touched
 * without it), input split over buffers in order, readable-only receive
 * chains answered with 0 and no input lost, the input buffer's limit,
 * transmit chains to the sink, the emergency write register, and the
 * waiting input carried over a snapshot into a new device.
 */
#include <check.h>
#include <pthread.h>
#include <unistd.h>

#include "tests/unit/unit.h"
#include "tests/unit/virtio_fake.h"
#include "devices/virtio/console.h"
#include "devices/virtio/state.h"

#define F(b)		(1ull << (b))
#define STD		(F(VIRTIO_F_VERSION_1) | \
			 F(VIRTIO_CONSOLE_F_EMERG_WRITE))
/* Queue q's rings: queue 0 where the fake driver puts them, 1 above. */
#define DESC(q)		(FAKE_DESC + (q) * 0x4000ull)
#define AVAIL(q)	(FAKE_AVAIL + (q) * 0x4000ull)
#define USED(q)		(FAKE_USED + (q) * 0x4000ull)
#define RX		VIRTIO_CONSOLE_RXQ
#define TX		VIRTIO_CONSOLE_TXQ

static struct virtio_console *con;
static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;
static char sunk[256];
static size_t nsunk;

static void sink(void *ctx, const uint8_t *buf, size_t n)
{
	(void)ctx;
	pthread_mutex_lock(&sink_lock);
	for (size_t i = 0; i < n && nsunk < sizeof(sunk); i++)
		sunk[nsunk++] = (char)buf[i];
	pthread_mutex_unlock(&sink_lock);
}

static size_t sunk_len(void)
{
	size_t n;

	pthread_mutex_lock(&sink_lock);
	n = nsunk;
	pthread_mutex_unlock(&sink_lock);
	return n;
}

static void make_device(void)
{
	struct pci_bus_config c = { .nbuses = 1 };
	struct virtio_host h = fake_host();

	fake_bus = pci_bus_create(&c);
	ck_assert_ptr_nonnull(fake_bus);
	con = virtio_console_create(fake_bus, FAKE_BDF,
				    (struct vconsole_sink){ sink, NULL }, &h,
				    "virtio-console0");
	ck_assert_ptr_nonnull(con);
	fake_vp = virtio_console_pci(con);
}

static void queue(unsigned int q)
{
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_SELECT), q, 2);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_SIZE), FAKE_QSIZE, 2);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_DESCLO), DESC(q), 8);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_AVAILLO), AVAIL(q), 8);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_USEDLO), USED(q), 8);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_ENABLE), 1, 2);
	ck_assert_uint_eq(bar_rd(COMMON(VIRTIO_PCI_COMMON_Q_ENABLE), 2), 1);
}

static void setup(void)
{
	nsunk = 0;
	make_device();
	ck_assert_int_eq(virtio_pci_start(fake_vp), 0);
	ck_assert(fake_negotiate(STD));
	queue(RX);
	queue(TX);
	fake_driver_ok();
}

static void teardown(void)
{
	pci_bus_destroy(fake_bus);
}

static void desc(unsigned int q, unsigned int i, uint64_t addr, uint32_t len,
		 uint16_t flags, uint16_t next)
{
	uint8_t *p = fake_at(DESC(q) + 16ull * i);

	memcpy(p, &addr, 8);
	memcpy(p + 8, &len, 4);
	memcpy(p + 12, &flags, 2);
	memcpy(p + 14, &next, 2);
}

static void offer(unsigned int q, uint16_t head)
{
	uint16_t idx = fake_get16(AVAIL(q) + 2);

	memcpy(fake_at(AVAIL(q) + 4 + 2 * (idx % FAKE_QSIZE)), &head, 2);
	__atomic_store_n((uint16_t *)fake_at(AVAIL(q) + 2), (uint16_t)(idx + 1),
			 __ATOMIC_RELEASE);
	bar_wr(VIRTIO_BAR_NOTIFY + VIRTIO_NOTIFY_MULT * q, q, 2);
}

static bool wait_used(unsigned int q, uint16_t want, int ms)
{
	for (int i = 0; i < ms; i++) {
		uint16_t *p = (uint16_t *)fake_at(USED(q) + 2);

		if (__atomic_load_n(p, __ATOMIC_ACQUIRE) == want)
			return true;
		usleep(1000);
	}
	return false;
}

/* Used length of the nth completion of q. */
static uint32_t used_len(unsigned int q, unsigned int nth)
{
	return fake_get32(USED(q) + 4 + 8 * nth + 4);
}

static size_t feed(const char *s)
{
	return virtio_console_receive(con, (const uint8_t *)s, strlen(s));
}

START_TEST(test_rx_waits_for_input)
{
	uint8_t *buf = fake_at(FAKE_BUF);

	desc(RX, 0, FAKE_BUF, 16, VIRTQ_DESC_F_WRITE, 0);
	offer(RX, 0);
	ck_assert(!wait_used(RX, 1, 50));	/* nothing to give yet */
	ck_assert_uint_eq(feed("hello"), 5);
	ck_assert(wait_used(RX, 1, 10000));
	ck_assert_uint_eq(used_len(RX, 0), 5);
	ck_assert_mem_eq(buf, "hello", 5);
	ck_assert_uint_eq(virtio_console_rx_space(con), VCONSOLE_IN_BUF);
	ck_assert_uint_eq(atomic_load(&fake_vp->stats.bytes_read), 5);
}
END_TEST

START_TEST(test_rx_split_in_order)
{
	const char *in = "0123456789abcdefghijklmnopqrstuvwxyzABCD";	/* 40 */

	/* Input first, buffers afterwards: a readable-only chain gets 0,
	 * then three 16-byte buffers take the 40 bytes in order. */
	ck_assert_uint_eq(feed(in), 40);
	ck_assert_uint_eq(virtio_console_rx_space(con), VCONSOLE_IN_BUF - 40);
	desc(RX, 0, FAKE_BUF + 0x100, 16, 0, 0);
	offer(RX, 0);
	ck_assert(wait_used(RX, 1, 10000));
	ck_assert_uint_eq(used_len(RX, 0), 0);
	for (unsigned int i = 0; i < 3; i++) {
		desc(RX, 1 + i, FAKE_BUF + 16 * i, 16, VIRTQ_DESC_F_WRITE, 0);
		offer(RX, (uint16_t)(1 + i));
	}
	ck_assert(wait_used(RX, 4, 10000));
	ck_assert_uint_eq(used_len(RX, 1), 16);
	ck_assert_uint_eq(used_len(RX, 2), 16);
	ck_assert_uint_eq(used_len(RX, 3), 8);
	ck_assert_mem_eq(fake_at(FAKE_BUF), in, 40);
}
END_TEST

START_TEST(test_rx_limit)
{
	static uint8_t big[VCONSOLE_IN_BUF + 100];

	memset(big, 'z', sizeof(big));
	ck_assert_uint_eq(virtio_console_receive(con, big, sizeof(big)),
			  VCONSOLE_IN_BUF);
	ck_assert_uint_eq(virtio_console_rx_space(con), 0);
	ck_assert_uint_eq(virtio_console_receive(con, big, 1), 0);
}
END_TEST

START_TEST(test_tx)
{
	memcpy(fake_at(FAKE_BUF), "ab", 2);
	memcpy(fake_at(FAKE_BUF + 64), "cd\n", 3);
	desc(TX, 0, FAKE_BUF, 2, VIRTQ_DESC_F_NEXT, 1);
	desc(TX, 1, FAKE_BUF + 64, 3, VIRTQ_DESC_F_NEXT, 2);
	desc(TX, 2, FAKE_BUF + 128, 8, VIRTQ_DESC_F_WRITE, 0);
	offer(TX, 0);
	ck_assert(wait_used(TX, 1, 10000));
	ck_assert_uint_eq(used_len(TX, 0), 0);
	ck_assert_uint_eq(sunk_len(), 5);
	ck_assert_mem_eq(sunk, "abcd\n", 5);
	ck_assert_uint_eq(atomic_load(&fake_vp->stats.bytes_written), 5);
}
END_TEST

START_TEST(test_config)
{
	uint64_t dev = VIRTIO_BAR_DEVICE;

	ck_assert_uint_eq(bar_rd(dev + VIRTIO_CONSOLE_CFG_MAX_NR_PORTS, 4), 1);
	ck_assert_uint_eq(bar_rd(dev + VIRTIO_CONSOLE_CFG_COLS, 4), 0);
	bar_wr(dev + VIRTIO_CONSOLE_CFG_EMERG_WR, 'x', 4);
	bar_wr(dev + VIRTIO_CONSOLE_CFG_EMERG_WR + 1, 'n', 1);	/* no */
	bar_wr(dev + VIRTIO_CONSOLE_CFG_COLS, 0x4e4e4e4e, 4);	/* no */
	bar_wr(dev + VIRTIO_CONSOLE_CFG_MAX_NR_PORTS, 0x4100000000ull, 8);
	bar_wr(dev + VIRTIO_CONSOLE_CFG_SIZEOF, 'n', 4);	/* no */
	ck_assert_uint_eq(sunk_len(), 2);
	ck_assert_mem_eq(sunk, "xA", 2);
	ck_assert_uint_eq(bar_rd(dev + VIRTIO_CONSOLE_CFG_EMERG_WR, 4), 0);
	ck_assert_uint_eq(bar_rd(dev + VIRTIO_CONSOLE_CFG_MAX_NR_PORTS, 4), 1);
}
END_TEST

START_TEST(test_snapshot_input)
{
	static struct vconsole_state st, bad;
	static uint8_t ram[FAKE_RAM_SIZE];
	static struct pci_fn_state fs;
	struct virtio_pci_snap ts;
	const char *why = NULL;

	/* The driver has nothing posted: the input waits in the device. */
	ck_assert_uint_eq(feed("waiting"), 7);
	virtio_pci_quiesce(fake_vp);
	virtio_pci_get_state(fake_vp, &ts);
	virtio_console_get_state(con, &st);
	pci_fn_get_state(virtio_pci_fn(fake_vp), &fs);
	memcpy(ram, fake_ram, sizeof(ram));
	virtio_pci_resume(fake_vp);
	ck_assert_uint_eq(st.len, 7);

	teardown();
	make_device();
	memcpy(fake_ram, ram, sizeof(ram));
	ck_assert_int_eq(pci_fn_set_state(virtio_pci_fn(fake_vp), &fs), 0);
	ck_assert_int_eq(virtio_pci_start(fake_vp), 0);
	ck_assert_int_eq(virtio_pci_set_state(fake_vp, &ts, &why), 0);
	bad = st;
	bad.len = VCONSOLE_IN_BUF + 1;
	ck_assert_int_eq(virtio_console_set_state(con, &bad), -1);
	ck_assert_uint_eq(virtio_console_rx_space(con), VCONSOLE_IN_BUF);
	ck_assert_int_eq(virtio_console_set_state(con, &st), 0);
	ck_assert_uint_eq(virtio_console_rx_space(con), VCONSOLE_IN_BUF - 7);
	desc(RX, 0, FAKE_BUF, 16, VIRTQ_DESC_F_WRITE, 0);
	offer(RX, 0);
	ck_assert(wait_used(RX, 1, 10000));
	ck_assert_uint_eq(used_len(RX, 0), 7);
	ck_assert_mem_eq(fake_at(FAKE_BUF), "waiting", 7);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("virtio_console");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_rx_waits_for_input);
	tcase_add_test(tc, test_rx_split_in_order);
	tcase_add_test(tc, test_rx_limit);
	tcase_add_test(tc, test_tx);
	tcase_add_test(tc, test_config);
	tcase_add_test(tc, test_snapshot_input);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
