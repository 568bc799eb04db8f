// SPDX-License-Identifier: MIT
/*
 * The virtio-net cases: a polling driver on the first virtio-net function
 * (any VMM's: it goes by the specification), set up once in ring 0, timed
 * in ring 3.  The bench's host side (tools/bench/net.c) owns the tap's
 * other end: 10.0.2.1 with MAC 02:4d:56:00:00:01, a neighbour entry for
 * us (10.0.2.15 at the device's MAC).
 *   net_tx_SIZE: UDP datagrams of SIZE payload bytes to 10.0.2.1:5001,
 *     up to a queue's worth in flight, kicks only when the device asks.
 *   net_rx_SIZE: the host sends such datagrams to 10.0.2.15:5002 as fast
 *     as it can; every receive buffer goes straight back to the device.
 * One op is one datagram; no interrupts (used_event kept behind).  The
 * BENCH line's extra words: size=, pps= and mbps= when the TSC rate is
 * known, kicks= (doorbell writes in all), errors= (frames that did not
 * come in time, or completed malformed).
 */
#include "bench.h"
#include "../lib/virtio.h"

#define NET_QSIZE	256
#define NET_BUF		2048
#define NET_WAIT_S	2		/* no frame for this long: give up */

static struct net_bench {
	struct gvirtio d;
	struct gvq *rx, *tx;
	bool ready;
	uint8_t mac[6];
	uint64_t buf;			/* NET_QSIZE receive + NET_QSIZE
					 * transmit buffers */
	uint32_t size;
	bool send;
	uint16_t free[NET_QSIZE];
	unsigned int nfree;
	uint64_t errors, wait_cycles;
} nb;

static uint8_t net_qmem[2][16384] __attribute__((aligned(4096)));

static uint8_t *net_rx_buf(unsigned int i)
{
	return (uint8_t *)(uintptr_t)(nb.buf + (uint64_t)i * NET_BUF);
}

static uint8_t *net_tx_buf(unsigned int i)
{
	return net_rx_buf(NET_QSIZE + i);
}

static void net_fill_rx(void)
{
	uint16_t old = nb.rx->avail_idx;

	for (uint16_t i = 0; i < NET_QSIZE; i++) {
		nb.rx->desc[i] = (struct gv_desc){ (uintptr_t)net_rx_buf(i),
			NET_BUF, VIRTQ_DESC_F_WRITE, 0 };
		gv_publish(nb.rx, i);
	}
	gv_kick(nb.rx, old);
}

/* Ring 0, once per boot. */
static const char *net_open(const struct platform *p, uint32_t khz)
{
	uint64_t f = 1ull << VIRTIO_F_VERSION_1 |
		     1ull << VIRTIO_F_RING_EVENT_IDX |
		     1ull << VIRTIO_NET_F_MAC | 1ull << VIRTIO_NET_F_MRG_RXBUF;

	if (nb.ready)
		return NULL;
	if (!p->blk_buf || 2ull * NET_QSIZE * NET_BUF > BLK_BUF_BYTES)
		return "not-enough-ram";
	if (gv_find(VIRTIO_ID_NET, 0, &nb.d) < 0)
		return "no-virtio-net";
	if (!nb.d.common || nb.d.common >= (1ull << 32))
		return "virtio-bar-above-4g";
	if (!gv_negotiate(&nb.d, f, false) ||
	    gv_queue_setup(&nb.d, VIRTIO_NET_RXQ, NET_QSIZE, net_qmem[0],
			   VIRTIO_MSI_NO_VECTOR) < 0 ||
	    gv_queue_setup(&nb.d, VIRTIO_NET_TXQ, NET_QSIZE, net_qmem[1],
			   VIRTIO_MSI_NO_VECTOR) < 0)
		return "virtio-net-refused";
	nb.rx = &nb.d.q[VIRTIO_NET_RXQ];
	nb.tx = &nb.d.q[VIRTIO_NET_TXQ];
	for (unsigned int i = 0; i < 6; i++)
		nb.mac[i] = mmio_read8(nb.d.device + VIRTIO_NET_CFG_MAC + i);
	nb.buf = p->blk_buf;
	gv_driver_ok(&nb.d);
	gv_no_interrupts(nb.rx);
	gv_no_interrupts(nb.tx);
	net_fill_rx();
	nb.wait_cycles = (uint64_t)(khz ? khz : 3000000) * 1000 * NET_WAIT_S;
	nb.ready = true;
	return NULL;
}

static uint16_t net_csum(const uint8_t *p, uint32_t n)
{
	uint32_t s = 0;

	for (uint32_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static void net_put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Header (all zero) + Ethernet + IPv4 + UDP (no checksum) + payload. */
static uint32_t net_build(uint8_t *f, uint32_t size)
{
	static const uint8_t host_mac[6] = { 0x02, 0x4d, 0x56, 0, 0, 1 };
	static const uint8_t ips[8] = { 10, 0, 2, 15, 10, 0, 2, 1 };
	uint8_t *e = f + VIRTIO_NET_HDR_SIZE, *ip = e + 14, *udp = ip + 20;

	memset(f, 0, VIRTIO_NET_HDR_SIZE + 42);
	memcpy(e, host_mac, 6);
	memcpy(e + 6, nb.mac, 6);
	net_put16(e + 12, 0x0800);
	ip[0] = 0x45;
	net_put16(ip + 2, 28 + size);
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, ips, 8);
	net_put16(ip + 10, net_csum(ip, 20));
	net_put16(udp, 5002);
	net_put16(udp + 2, 5001);
	net_put16(udp + 4, 8 + size);
	for (uint32_t i = 0; i < size; i++)
		udp[8 + i] = (uint8_t)i;
	return VIRTIO_NET_HDR_SIZE + 42 + size;
}

static uint64_t net_reap_tx(void)
{
	uint32_t id, len;
	uint64_t n = 0;

	while (gv_poll(nb.tx, &id, &len)) {
		if (id >= NET_QSIZE) {
			nb.errors++;
			continue;
		}
		nb.free[nb.nfree++] = (uint16_t)id;
		n++;
	}
	gv_no_interrupts(nb.tx);
	return n;
}

/* The timed loop (ring 3): n datagrams out; returns cycles. */
static uint64_t net_tx_loop(uint64_t arg, uint64_t value, uint64_t n,
			    uint64_t value2)
{
	uint64_t t0 = tsc_begin(), issued = 0, done = 0;

	(void)arg;
	(void)value;
	(void)value2;
	while (done < n) {
		uint16_t old = nb.tx->avail_idx;

		while (nb.nfree && issued < n) {
			gv_publish(nb.tx, nb.free[--nb.nfree]);
			issued++;
		}
		if (nb.tx->avail_idx != old)
			gv_kick(nb.tx, old);
		done += net_reap_tx();
	}
	return tsc_end() - t0;
}

/* Give back what arrived while nobody was timing (a full ring would
 * otherwise be counted at memory speed). */
static void net_rx_drain(void)
{
	uint16_t old = nb.rx->avail_idx;
	uint32_t id, len;

	while (gv_poll(nb.rx, &id, &len))
		if (id < NET_QSIZE)
			gv_publish(nb.rx, (uint16_t)id);
	gv_no_interrupts(nb.rx);
	gv_kick(nb.rx, old);
}

/* The timed loop (ring 3): n datagrams in; a host that stops sending
 * ends it early, counted as errors. */
static uint64_t net_rx_loop(uint64_t arg, uint64_t value, uint64_t n,
			    uint64_t value2)
{
	uint64_t t0, done = 0, last;
	uint32_t id, len;

	(void)arg;
	(void)value;
	(void)value2;
	net_rx_drain();
	t0 = last = tsc_begin();
	while (done < n) {
		uint16_t old = nb.rx->avail_idx;

		while (gv_poll(nb.rx, &id, &len)) {
			if (id >= NET_QSIZE || len <= VIRTIO_NET_HDR_SIZE)
				nb.errors++;
			else
				done++;
			if (id < NET_QSIZE)
				gv_publish(nb.rx, (uint16_t)id);
		}
		if (nb.rx->avail_idx != old) {
			gv_no_interrupts(nb.rx);
			gv_kick(nb.rx, old);
			last = rdtsc();
		} else if (rdtsc() - last > nb.wait_cycles) {
			nb.errors += n - done;
			break;
		}
	}
	return tsc_end() - t0;
}

static const char *net_setup(const struct platform *p, uint32_t khz,
			     struct run *r, bool send, uint32_t size)
{
	const char *why = net_open(p, khz);

	if (why)
		return why;
	nb.size = size;
	nb.send = send;
	nb.errors = 0;
	nb.nfree = 0;
	if (send) {
		for (uint16_t i = 0; i < NET_QSIZE; i++) {
			uint8_t *f = net_tx_buf(i);

			nb.tx->desc[i] = (struct gv_desc){ (uintptr_t)f,
				net_build(f, size), 0, 0 };
			nb.free[nb.nfree++] = i;
		}
	}
	r->loop = send ? net_tx_loop : net_rx_loop;
	r->net = true;
	/* A ring's worth at least: one frame's time is the host's
	 * scheduling more than the device's. */
	r->min_n = 4 * NET_QSIZE;
	return NULL;
}

/* The words after a net case's BENCH line. */
static void net_extra(char *buf, size_t len, uint64_t milli_ns)
{
	gsnprintf(buf, len, "size=%u kicks=%llu errors=%llu", nb.size,
		  (unsigned long long)(nb.send ? nb.tx : nb.rx)->kicks,
		  (unsigned long long)nb.errors);
	if (!milli_ns)
		return;
	gsnprintf(buf + strlen(buf), len - strlen(buf), " pps=%llu mbps=%llu",
		  (unsigned long long)(1000000000000ull / milli_ns),
		  (unsigned long long)(nb.size * 1000000ull / milli_ns));
}
