// SPDX-License-Identifier: MIT
/*
 * virtio-net without a tap: devices/virtio/net_core.c (transmit header
 * checks against the features, gathering a chain whose header is split
 * over descriptors, receive placement with and without mergeable buffers,
 * waiting for buffers without losing the frame, dropping what cannot
 * fit), the worker's backend descriptor (devices/virtio/worker.c), and
 * the --net value parser (vmm/cli/net_opt.c).
 */
#include <check.h>
#include <errno.h>
#include <sys/eventfd.h>

#include "tests/unit/unit.h"
#include "devices/virtio/net_core.h"
#include "devices/virtio/spec.h"
#include "devices/virtio/virtqueue.h"
#include "devices/virtio/worker.h"
#include "vmm/cli/net_opt.h"

#define RAM_BASE	0x100000ull
#define RAM_SIZE	0x100000ull
#define DESC		(RAM_BASE + 0x0000)
#define AVAIL		(RAM_BASE + 0x1000)
#define USED		(RAM_BASE + 0x2000)
#define BUF		(RAM_BASE + 0x10000)
#define SIZE		16
#define F(b)		(1ull << (b))

static uint8_t ram[RAM_SIZE] __attribute__((aligned(4096)));
static struct vq q;
static struct vq_chain chain, first, scratch;
static struct iovec iov[VQ_CHAIN_MAX + 1];
static struct net_rx rx;
static uint8_t frame[NET_RX_BUF];

static void *fake_ptr(void *ctx, uint64_t gpa, uint64_t len)
{
	(void)ctx;
	if (!len || gpa < RAM_BASE || gpa - RAM_BASE >= RAM_SIZE ||
	    len > RAM_SIZE - (gpa - RAM_BASE))
		return NULL;
	return ram + (gpa - RAM_BASE);
}

static const struct virtio_mem mem = { fake_ptr, NULL };

static uint8_t *at(uint64_t gpa)
{
	return ram + (gpa - RAM_BASE);
}

static void desc(unsigned int i, uint64_t addr, uint32_t len, uint16_t flags,
		 uint16_t next)
{
	uint8_t *p = at(DESC + 16ull * i);

	memcpy(p, &addr, 8);
	memcpy(p + 8, &len, 4);
	memcpy(p + 12, &flags, 2);
	memcpy(p + 14, &next, 2);
}

static void offer(uint16_t head)
{
	uint16_t idx;

	memcpy(&idx, at(AVAIL + 2), 2);
	memcpy(at(AVAIL + 4 + 2 * (idx % SIZE)), &head, 2);
	idx++;
	memcpy(at(AVAIL + 2), &idx, 2);
}

static void setup(void)
{
	memset(ram, 0, sizeof(ram));
	q.mem = &mem;
	vq_reset(&q, 256);
	q.s.size = SIZE;
	q.s.desc = DESC;
	q.s.avail = AVAIL;
	q.s.used = USED;
	q.s.enabled = 1;
	ck_assert_int_eq(vq_start(&q, &mem, 256), 0);
}

static void hdr_set(uint8_t *h, uint8_t flags, uint8_t gso, uint16_t gso_size,
		    uint16_t start, uint16_t off)
{
	memset(h, 0, VIRTIO_NET_HDR_SIZE);
	h[VIRTIO_NET_HDR_FLAGS] = flags;
	h[VIRTIO_NET_HDR_GSO_TYPE] = gso;
	memcpy(h + VIRTIO_NET_HDR_GSO_SIZE, &gso_size, 2);
	memcpy(h + VIRTIO_NET_HDR_CSUM_START, &start, 2);
	memcpy(h + VIRTIO_NET_HDR_CSUM_OFFSET, &off, 2);
}

START_TEST(test_tx_check)
{
	const uint64_t all = F(VIRTIO_NET_F_CSUM) | F(VIRTIO_NET_F_HOST_TSO4) |
			     F(VIRTIO_NET_F_HOST_TSO6);
	static const struct {
		uint8_t flags, gso;
		uint16_t gso_size, start, off;
		uint64_t len, features;
		const char *why;	/* NULL: accepted */
	} cases[] = {
		{ 0, 0, 0, 0, 0, 60, 0, NULL },
		{ 0, 0, 0, 0, 0, 14, 0, NULL },
		{ 0, 0, 0, 0, 0, 13, 0, "runt" },
		{ 0, 0, 0, 0, 0, NET_FRAME_MAX, 0, NULL },
		{ 0, 0, 0, 0, 0, NET_FRAME_MAX + 1, 0, "oversized" },
		{ 2, 0, 0, 0, 0, 60, all, "unknown header flags" },
		{ 0x80, 0, 0, 0, 0, 60, all, "unknown header flags" },
		{ 1, 0, 0, 34, 16, 60, 0, "not negotiated" },
		{ 1, 0, 0, 34, 16, 60, all, NULL },
		{ 1, 0, 0, 34, 24, 60, all, NULL },
		{ 1, 0, 0, 34, 25, 60, all, "beyond the frame" },
		{ 1, 0, 0, 0xffff, 0xffff, 60, all, "beyond the frame" },
		{ 1, 1, 1448, 34, 16, 9000, all, NULL },
		{ 1, 4, 1440, 54, 16, 9000, all, NULL },
		{ 1, 1, 1448, 34, 16, 9000, F(VIRTIO_NET_F_CSUM),
		  "not negotiated" },
		{ 1, 3, 1448, 34, 6, 9000, all, "not negotiated" },
		{ 1, 0x81, 1448, 34, 16, 9000, all, "ECN" },
		{ 0, 0x80, 0, 0, 0, 60, all, "ECN" },
		{ 0, 1, 1448, 0, 0, 9000, all, "without a partial checksum" },
		{ 1, 1, 0, 34, 16, 9000, all, "gso_size 0" },
		{ 1, 7, 1448, 34, 16, 9000, all, "not negotiated" },
	};
	uint8_t h[VIRTIO_NET_HDR_SIZE];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *why;

		hdr_set(h, cases[i].flags, cases[i].gso, cases[i].gso_size,
			cases[i].start, cases[i].off);
		why = net_tx_check(h, cases[i].len, cases[i].features);
		if (!cases[i].why)
			ck_assert_msg(!why, "case %zu refused: %s", i, why);
		else
			ck_assert_msg(why && strstr(why, cases[i].why),
				      "case %zu: got '%s', want '%s'", i,
				      why ? why : "(accepted)", cases[i].why);
	}
}
END_TEST

/* What the fake backend saw. */
static uint8_t sent[NET_RX_BUF];
static size_t sent_len;
static int sent_iovs;
static bool send_fails;

static ssize_t fake_send(void *ctx, const struct iovec *v, int n)
{
	(void)ctx;
	sent_len = 0;
	sent_iovs = n;
	for (int i = 0; i < n; i++) {
		memcpy(sent + sent_len, v[i].iov_base, v[i].iov_len);
		sent_len += v[i].iov_len;
	}
	if (send_fails) {
		errno = EIO;
		return -1;
	}
	return (ssize_t)sent_len;
}

static const struct net_port port = { fake_send, NULL, NULL };

START_TEST(test_tx_gather)
{
	uint8_t *b = at(BUF);

	for (int i = 0; i < 12 + 60; i++)
		b[i] = (uint8_t)(i < 12 ? 0 : i);
	/* Header cut 1 + 5 + 8 (the last piece carries frame bytes too). */
	desc(0, BUF, 1, VIRTQ_DESC_F_NEXT, 1);
	desc(1, BUF + 1, 5, VIRTQ_DESC_F_NEXT, 2);
	desc(2, BUF + 6, 8, VIRTQ_DESC_F_NEXT, 3);
	desc(3, BUF + 14, 58, 0, 0);
	offer(0);
	ck_assert_int_eq(vq_pop(&q, &chain), VQ_CHAIN);
	ck_assert_ptr_null(net_tx(&chain, 0, &port, iov));
	ck_assert_uint_eq(sent_len, 72);
	ck_assert_int_eq(sent_iovs, 3);		/* copy, 2 + 58 */
	ck_assert_int_eq(memcmp(sent, b, 72), 0);
	/* The header is a copy, not the guest's bytes. */
	ck_assert(iov[0].iov_base < (void *)ram ||
		  iov[0].iov_base >= (void *)(ram + RAM_SIZE));
	/* A failing backend is a drop, said so. */
	send_fails = true;
	offer(0);
	ck_assert_int_eq(vq_pop(&q, &chain), VQ_CHAIN);
	ck_assert_str_eq(net_tx(&chain, 0, &port, iov),
			 "backend refused the frame");
	send_fails = false;
	/* Short header: only 11 readable bytes. */
	desc(4, BUF, 11, 0, 0);
	offer(4);
	ck_assert_int_eq(vq_pop(&q, &chain), VQ_CHAIN);
	ck_assert_str_eq(net_tx(&chain, 0, &port, iov), "short header");
}
END_TEST

static void fill_frame(uint32_t len)
{
	memset(frame, 0, VIRTIO_NET_HDR_SIZE);
	for (uint32_t i = VIRTIO_NET_HDR_SIZE; i < len; i++)
		frame[i] = (uint8_t)(i * 13);
}

static uint16_t num_buffers(uint64_t gpa)
{
	uint16_t v;

	memcpy(&v, at(gpa + VIRTIO_NET_HDR_NUM_BUFFERS), 2);
	return v;
}

START_TEST(test_rx_mergeable)
{
	const uint32_t len = 12 + 1500;

	for (unsigned int i = 0; i < 8; i++) {
		desc(i, BUF + 0x1000 * i, 512, VIRTQ_DESC_F_WRITE, 0);
		offer((uint16_t)i);
	}
	fill_frame(len);
	ck_assert_int_eq(net_rx_place(&q, &first, &scratch, frame, len, true,
				      &rx), NET_RX_OK);
	ck_assert_uint_eq(rx.n, 3);
	ck_assert_uint_eq(rx.lens[0] + rx.lens[1] + rx.lens[2], len);
	ck_assert_uint_eq(rx.lens[2], len - 1024);
	ck_assert_uint_eq(num_buffers(BUF), 3);
	ck_assert_int_eq(memcmp(at(BUF + 0x2000), frame + 1024, len - 1024), 0);
	ck_assert_int_eq(memcmp(at(BUF + 12), frame + 12, 500), 0);
	/* The next frame needs 6 buffers, 5 are left: it waits, nothing
	 * taken; two more buffers and it goes. */
	fill_frame(12 + 2800);
	ck_assert_int_eq(net_rx_place(&q, &first, &scratch, frame, 12 + 2800,
				      true, &rx), NET_RX_WAIT);
	ck_assert_uint_eq(q.s.last_avail, 3);
	desc(8, BUF + 0x8000, 512, VIRTQ_DESC_F_WRITE, 0);
	desc(9, BUF + 0x9000, 512, VIRTQ_DESC_F_WRITE, 0);
	offer(8);
	offer(9);
	ck_assert_int_eq(net_rx_place(&q, &first, &scratch, frame, 12 + 2800,
				      true, &rx), NET_RX_OK);
	ck_assert_uint_eq(rx.n, 6);
	ck_assert_uint_eq(rx.heads[0], 3);
	ck_assert_uint_eq(num_buffers(BUF + 0x3000), 6);
}
END_TEST

START_TEST(test_rx_single)
{
	desc(0, BUF, 2048, VIRTQ_DESC_F_WRITE, 0);
	desc(1, BUF + 0x1000, 100, VIRTQ_DESC_F_WRITE, 0);
	desc(2, BUF + 0x2000, 8, VIRTQ_DESC_F_WRITE, 0);
	desc(3, BUF + 0x3000, 64, 0, 0);	/* not writable */
	for (uint16_t i = 0; i < 4; i++)
		offer(i);
	fill_frame(12 + 60);
	ck_assert_int_eq(net_rx_place(&q, &first, &scratch, frame, 72, false,
				      &rx), NET_RX_OK);
	ck_assert_uint_eq(rx.n, 1);
	ck_assert_uint_eq(rx.lens[0], 72);
	ck_assert_uint_eq(num_buffers(BUF), 1);
	/* Too big for one buffer without mergeable ones: dropped, the
	 * buffer completes empty. */
	fill_frame(12 + 200);
	ck_assert_int_eq(net_rx_place(&q, &first, &scratch, frame, 212, false,
				      &rx), NET_RX_DROP);
	ck_assert_uint_eq(rx.n, 1);
	ck_assert_uint_eq(rx.lens[0], 0);
	/* Smaller than a header, or no writable bytes: dropped. */
	ck_assert_int_eq(net_rx_place(&q, &first, &scratch, frame, 72, false,
				      &rx), NET_RX_DROP);
	ck_assert_uint_eq(rx.heads[0], 2);
	ck_assert_int_eq(net_rx_place(&q, &first, &scratch, frame, 72, true,
				      &rx), NET_RX_DROP);
	ck_assert_uint_eq(rx.heads[0], 3);
	ck_assert_int_eq(net_rx_place(&q, &first, &scratch, frame, 72, true,
				      &rx), NET_RX_WAIT);
}
END_TEST

/* A frame read straight into the first chain (the device's fast path):
 * the rest goes into further chains, a wait gives the first one back. */
START_TEST(test_rx_rest)
{
	for (unsigned int i = 0; i < 4; i++) {
		desc(i, BUF + 0x1000 * i, 512, VIRTQ_DESC_F_WRITE, 0);
		offer((uint16_t)i);
	}
	fill_frame(12 + 100);
	ck_assert_int_eq(vq_pop(&q, &first), VQ_CHAIN);
	ck_assert_int_eq(net_rx_place_rest(&q, &first, &scratch, frame, 112,
					   true, &rx), NET_RX_OK);
	ck_assert_uint_eq(rx.n, 1);
	ck_assert_uint_eq(rx.lens[0], 112);
	ck_assert_uint_eq(num_buffers(BUF), 1);
	ck_assert_uint_eq(q.s.last_avail, 1);
	/* 1100 bytes: 512 already in chain 1, the rest from frame + 512
	 * into chains 2 and 3. */
	fill_frame(1100);
	ck_assert_int_eq(vq_pop(&q, &first), VQ_CHAIN);
	ck_assert_int_eq(net_rx_place_rest(&q, &first, &scratch, frame, 1100,
					   true, &rx), NET_RX_OK);
	ck_assert_uint_eq(rx.n, 3);
	ck_assert_uint_eq(rx.heads[0], 1);
	ck_assert_uint_eq(rx.lens[0], 512);
	ck_assert_uint_eq(rx.lens[2], 1100 - 1024);
	ck_assert_uint_eq(num_buffers(BUF + 0x1000), 3);
	ck_assert_int_eq(memcmp(at(BUF + 0x2000), frame + 512, 512), 0);
	ck_assert_int_eq(memcmp(at(BUF + 0x3000), frame + 1024, 76), 0);
	/* Without mergeable buffers it does not fit: dropped, empty. */
	desc(4, BUF + 0x4000, 512, VIRTQ_DESC_F_WRITE, 0);
	desc(5, BUF + 0x5000, 512, VIRTQ_DESC_F_WRITE, 0);
	offer(4);
	offer(5);
	ck_assert_int_eq(vq_pop(&q, &first), VQ_CHAIN);
	ck_assert_int_eq(net_rx_place_rest(&q, &first, &scratch, frame, 1100,
					   false, &rx), NET_RX_DROP);
	ck_assert_uint_eq(rx.n, 1);
	ck_assert_uint_eq(rx.lens[0], 0);
	/* One chain left for three chains' worth: all given back. */
	ck_assert_int_eq(vq_pop(&q, &first), VQ_CHAIN);
	ck_assert_int_eq(net_rx_place_rest(&q, &first, &scratch, frame, 1100,
					   true, &rx), NET_RX_WAIT);
	ck_assert_uint_eq(rx.n, 0);
	ck_assert_uint_eq(q.s.last_avail, 5);
}
END_TEST

/* Every descriptor offered and still too little: waiting would stall the
 * queue for good, so the frame is dropped. */
START_TEST(test_rx_never_fits)
{
	for (uint16_t i = 0; i < SIZE; i++) {
		desc(i, BUF + 0x100 * i, 16, VIRTQ_DESC_F_WRITE, 0);
		offer(i);
	}
	fill_frame(1000);
	ck_assert_int_eq(net_rx_place(&q, &first, &scratch, frame, 1000, true,
				      &rx), NET_RX_DROP);
	ck_assert_uint_eq(rx.n, SIZE);
	for (unsigned int i = 0; i < rx.n; i++)
		ck_assert_uint_eq(rx.lens[i], 0);
}
END_TEST

START_TEST(test_rx_broken)
{
	desc(0, RAM_BASE + RAM_SIZE - 8, 64, VIRTQ_DESC_F_WRITE, 0);
	offer(0);
	fill_frame(72);
	ck_assert_int_eq(net_rx_place(&q, &first, &scratch, frame, 72, true,
				      &rx), NET_RX_BROKEN);
	ck_assert(q.s.broken);
}
END_TEST

/* --- the worker's backend descriptor ---------------------------------- */

static unsigned int served[3];

static void count_serve(void *ctx, unsigned int qn, uint64_t kicks)
{
	(void)ctx;
	(void)kicks;
	served[qn < 2 ? qn : 2]++;
}

static bool wait_served(unsigned int idx, unsigned int want)
{
	for (int i = 0; i < 2000; i++) {
		if (__atomic_load_n(&served[idx], __ATOMIC_ACQUIRE) >= want)
			return true;
		usleep(1000);
	}
	return false;
}

START_TEST(test_worker_watch)
{
	struct virtio_worker w;
	int kicks[1], p[2];
	uint64_t one = 1;
	char c = 'x';

	ck_assert_int_eq(pipe(p), 0);
	kicks[0] = eventfd(0, EFD_NONBLOCK);
	ck_assert_int_eq(worker_init(&w, kicks, 1, count_serve, NULL), 0);
	worker_watch(&w, p[0]);
	ck_assert_int_eq(worker_start(&w), 0);
	ck_assert_int_eq(write(p[1], &c, 1), 1);
	ck_assert(wait_served(1, 1));	/* index nqueues = 1 */
	/* Switched off (as the device does from its thread; parked here):
	 * the readable pipe no longer wakes it, a kick still does. */
	worker_pause(&w);
	worker_watch_on(&w, false);
	served[1] = 0;
	worker_resume(&w);
	ck_assert_int_eq(write(kicks[0], &one, 8), 8);
	ck_assert(wait_served(0, 1));
	usleep(20000);
	ck_assert_uint_le(served[1], 1);
	worker_destroy(&w);
	close(p[0]);
	close(p[1]);
	close(kicks[0]);
}
END_TEST

/* --- --net values -------------------------------------------------------- */

START_TEST(test_net_opt)
{
	struct net_opt o;
	char err[160];
	uint8_t mac[6];

	ck_assert_int_eq(net_opt_parse("tap", &o, err, sizeof(err)), 0);
	ck_assert(!o.has_name && !o.has_mac && !o.no_offload);
	ck_assert_int_eq(net_opt_parse("tap=vm0,mac=02:AB:cd:00:11:22,"
				       "offload=off", &o, err, sizeof(err)), 0);
	ck_assert(o.has_name && o.has_mac && o.no_offload);
	ck_assert_str_eq(o.name, "vm0");
	ck_assert_uint_eq(o.mac[1], 0xab);
	ck_assert_uint_eq(o.mac[5], 0x22);
	ck_assert_int_eq(net_opt_parse("tap=abcdefghijklmno", &o, err,
				       sizeof(err)), 0);
	static const char *const bad[] = {
		"", "tun", "taps", "tap=", "tap=abcdefghijklmnop", "tap=a/b",
		"tap=a b", "tap=..", "tap,mac=01:00:00:00:00:01",
		"tap,mac=00:00:00:00:00:00", "tap,mac=02:00:00:00:00",
		"tap,mac=02-00-00-00-00-01", "tap,mac=02:00:00:00:00:0g",
		"tap,offload=maybe", "tap,", "tap,vhost",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(net_opt_parse(bad[i], &o, err, sizeof(err)) < 0,
			      "'%s' accepted", bad[i]);
	net_opt_default_mac(1, mac);
	ck_assert_uint_eq(mac[0], 0x52);
	ck_assert_uint_eq(mac[5], 0x57);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("virtio_net");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_tx_check);
	tcase_add_test(tc, test_tx_gather);
	tcase_add_test(tc, test_rx_mergeable);
	tcase_add_test(tc, test_rx_single);
	tcase_add_test(tc, test_rx_rest);
	tcase_add_test(tc, test_rx_never_fits);
	tcase_add_test(tc, test_rx_broken);
	tcase_add_test(tc, test_worker_watch);
	tcase_add_test(tc, test_net_opt);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
