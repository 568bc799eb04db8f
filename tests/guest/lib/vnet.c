// SPDX-License-Identifier: MIT
/* virtio-net for payloads; see vnet.h. */
#include "guest.h"
#include "vnet.h"

#define RXQ		VIRTIO_NET_RXQ
#define TXQ		VIRTIO_NET_TXQ
#define HDR		VIRTIO_NET_HDR_SIZE
#define ETH_ARP		0x0806
#define ETH_IP		0x0800

static uint8_t qmem[2][16 * 1024] __attribute__((aligned(4096)));
static uint8_t arena[VNET_ARENA] __attribute__((aligned(4096)));
static uint8_t tx_hdr[HDR];
static uint8_t tx_frame[VNET_FRAME_MAX];

uint64_t vnet_cycles(uint64_t s)
{
	uint64_t khz = tsc_khz(NULL);

	return (khz ? khz : 3000000) * 1000 * s;
}

/* --- command line ---------------------------------------------------- */

static bool parse_ip(const char *cl, const char *key, uint8_t ip[4])
{
	size_t kl = strlen(key);

	for (const char *p = cl; p && *p; p++) {
		if ((p != cl && p[-1] != ' ') || strncmp(p, key, kl) ||
		    p[kl] != '=')
			continue;
		p += kl + 1;
		for (int i = 0; i < 4; i++) {
			unsigned int v = 0, digits = 0;

			while (*p >= '0' && *p <= '9' && digits++ < 3)
				v = v * 10 + (unsigned int)(*p++ - '0');
			if (!digits || v > 255 || (i < 3 && *p++ != '.'))
				return false;
			ip[i] = (uint8_t)v;
		}
		return true;
	}
	return false;
}

/* --- queues ------------------------------------------------------------ */

static void post(struct vnet *v, uint16_t i)
{
	gv_publish(&v->d.q[RXQ], i);
}

static void fill_rx(struct vnet *v)
{
	struct gvq *q = &v->d.q[RXQ];
	uint16_t old = q->avail_idx;

	for (uint16_t i = 0; i < v->nbufs; i++) {
		q->desc[i] = (struct gv_desc){
			.addr = (uintptr_t)(arena + (uint64_t)i * v->buf_len),
			.len = v->buf_len, .flags = VIRTQ_DESC_F_WRITE,
		};
		post(v, i);
	}
	gv_kick(q, old);
}

static void read_mac(struct vnet *v)
{
	for (unsigned int i = 0; i < 6; i++)
		v->mac[i] = mmio_read8(v->d.device + VIRTIO_NET_CFG_MAC + i);
}

int vnet_open(struct vnet *v, const char *cl, uint64_t want, bool rx_vec)
{
	uint64_t mrg = 1, len = 2048;

	cmdline_u64(cl, "mrg", &mrg);
	cmdline_u64(cl, "rxbuf", &len);
	v->mrg = mrg;
	v->buf_len = (uint32_t)(len < 16 ? 16 : len > VNET_ARENA ? VNET_ARENA :
				len);
	v->nbufs = (uint16_t)(VNET_ARENA / v->buf_len);
	if (v->nbufs > VNET_QSIZE)
		v->nbufs = VNET_QSIZE;
	if (!parse_ip(cl, "ip", v->ip) || !parse_ip(cl, "host", v->host_ip)) {
		gprintf("vnet: need ip=A.B.C.D host=A.B.C.D\n");
		return -1;
	}
	if (gv_find(VIRTIO_ID_NET, 0, &v->d) < 0) {
		gprintf("vnet: no virtio-net device\n");
		return -1;
	}
	want |= 1ull << VIRTIO_F_VERSION_1 | 1ull << VIRTIO_NET_F_MAC |
		1ull << VIRTIO_NET_F_STATUS;
	if (v->mrg)
		want |= 1ull << VIRTIO_NET_F_MRG_RXBUF;
	gv_msix_enable(&v->d, true, false);
	if (!gv_negotiate(&v->d, want, false) ||
	    gv_queue_setup(&v->d, RXQ, VNET_QSIZE, qmem[0],
			   rx_vec ? 1 : VIRTIO_MSI_NO_VECTOR) < 0 ||
	    gv_queue_setup(&v->d, TXQ, VNET_QSIZE, qmem[1],
			   VIRTIO_MSI_NO_VECTOR) < 0) {
		gprintf("vnet: set-up refused\n");
		return -1;
	}
	v->mrg = v->d.features >> VIRTIO_NET_F_MRG_RXBUF & 1;
	read_mac(v);
	gv_driver_ok(&v->d);
	gv_no_interrupts(&v->d.q[RXQ]);
	gv_no_interrupts(&v->d.q[TXQ]);
	fill_rx(v);
	return 0;
}

/* --- frames ------------------------------------------------------------ */

int vnet_send(struct vnet *v, const void *frame, uint32_t len)
{
	struct gvq *q = &v->d.q[TXQ];
	struct gv_buf b[2] = {
		{ tx_hdr, HDR, false }, { (void *)frame, len, false },
	};

	memset(tx_hdr, 0, sizeof(tx_hdr));
	if (gv_submit_wait(q, gv_add(q, b, 2, NULL), vnet_cycles(5)) < 0)
		return -1;
	v->tx_frames++;
	return 0;
}

/* The next used entry of the receive queue, waiting a little for the
 * rest of a mergeable frame. */
static bool next_used(struct gvq *q, uint32_t *id, uint32_t *len, bool wait)
{
	uint64_t end = rdtsc() + (wait ? vnet_cycles(1) : 0);

	do {
		if (gv_poll(q, id, len))
			return true;
	} while (rdtsc() < end);
	return false;
}

int vnet_recv(struct vnet *v, uint8_t *buf, uint32_t max)
{
	struct gvq *q = &v->d.q[RXQ];
	uint16_t old = q->avail_idx;
	uint32_t id, len, got = 0, nb = 1;
	int bad = 0;

	if (!next_used(q, &id, &len, false))
		return 0;
	for (uint32_t i = 0; i < nb; i++) {
		const uint8_t *p = arena + (uint64_t)id * v->buf_len;
		uint32_t skip = i ? 0 : HDR;

		if (id >= v->nbufs || len > v->buf_len || len < skip) {
			bad = 1;
		} else {
			if (!i && v->mrg)
				nb = p[VIRTIO_NET_HDR_NUM_BUFFERS] |
				     p[VIRTIO_NET_HDR_NUM_BUFFERS + 1] << 8;
			if (got + len - skip <= max)
				memcpy(buf + got, p + skip, len - skip);
			got += len - skip;
		}
		if (id < v->nbufs)
			post(v, (uint16_t)id);
		if (bad || nb == 0 || nb > v->nbufs)
			break;
		if (i + 1 < nb && !next_used(q, &id, &len, true)) {
			bad = 1;
			break;
		}
	}
	gv_kick(q, old);
	if (bad || !nb || nb > v->nbufs || got > max) {
		v->rx_empty++;
		return -1;
	}
	v->rx_frames++;
	return (int)got;
}

/* --- a little IPv4 --------------------------------------------------------- */

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, uint16_t x)
{
	p[0] = (uint8_t)(x >> 8);
	p[1] = (uint8_t)x;
}

static uint16_t csum(const uint8_t *p, uint32_t n)
{
	uint32_t s = 0;

	for (uint32_t i = 0; i + 1 < n; i += 2)
		s += be16(p + i);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static void eth(uint8_t *f, const uint8_t *dst, const uint8_t *src,
		uint16_t type)
{
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	put16(f + 12, type);
}

static uint32_t arp_frame(struct vnet *v, uint8_t *f, uint16_t op,
			  const uint8_t *tha, const uint8_t *tpa)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t *a = f + 14;

	eth(f, op == 1 ? bcast : tha, v->mac, ETH_ARP);
	put16(a, 1);
	put16(a + 2, ETH_IP);
	a[4] = 6;
	a[5] = 4;
	put16(a + 6, op);
	memcpy(a + 8, v->mac, 6);
	memcpy(a + 14, v->ip, 4);
	memcpy(a + 18, tha, 6);
	memcpy(a + 24, tpa, 4);
	memset(f + 42, 0, 18);
	return 60;
}

static int arp(struct vnet *v, uint16_t op, const uint8_t *tha,
	       const uint8_t *tpa)
{
	return vnet_send(v, tx_frame, arp_frame(v, tx_frame, op, tha, tpa));
}

uint32_t vnet_arp_host_frame(struct vnet *v, uint8_t *f)
{
	static const uint8_t zero[6];

	return arp_frame(v, f, 1, zero, v->host_ip);
}

int vnet_arp_host(struct vnet *v)
{
	return vnet_send(v, tx_frame, vnet_arp_host_frame(v, tx_frame));
}

bool vnet_is_arp_reply(struct vnet *v, const uint8_t *f, uint32_t len)
{
	const uint8_t *a = f + 14;

	if (len < 42 || be16(f + 12) != ETH_ARP || be16(a + 6) != 2 ||
	    memcmp(a + 14, v->host_ip, 4) || memcmp(a + 24, v->ip, 4))
		return false;
	memcpy(v->host_mac, a + 8, 6);
	v->have_host_mac = true;
	return true;
}

static bool answer_arp(struct vnet *v, const uint8_t *f, uint32_t len)
{
	const uint8_t *a = f + 14;
	uint8_t sha[6], spa[4];

	if (len < 42 || be16(a + 6) != 1 || memcmp(a + 24, v->ip, 4))
		return false;
	memcpy(sha, a + 8, 6);
	memcpy(spa, a + 14, 4);
	if (arp(v, 2, sha, spa) == 0)
		v->arp_answered++;
	return true;
}

/* An echo request to us: the same datagram back with the addresses
 * swapped, type 0 and both checksums new. */
static bool answer_echo(struct vnet *v, const uint8_t *f, uint32_t len)
{
	const uint8_t *ip = f + 14;
	uint32_t ihl = (ip[0] & 15) * 4u, tot = be16(ip + 2);
	uint8_t *o = tx_frame, *oip = o + 14, *icmp = oip + ihl;

	if (len < 34 || ip[0] >> 4 != 4 || ihl < 20 || tot < ihl + 8 ||
	    14 + tot > len || ip[9] != 1 || memcmp(ip + 16, v->ip, 4) ||
	    ip[ihl] != 8 || (be16(ip + 6) & 0x3fff) || tot > VNET_FRAME_MAX - 14)
		return false;
	eth(o, f + 6, v->mac, ETH_IP);
	memcpy(oip, ip, tot);
	memcpy(oip + 12, ip + 16, 4);
	memcpy(oip + 16, ip + 12, 4);
	oip[8] = 64;
	put16(oip + 10, 0);
	put16(oip + 10, csum(oip, ihl));
	icmp[0] = 0;
	put16(icmp + 2, 0);
	put16(icmp + 2, csum(icmp, tot - ihl));
	if (vnet_send(v, o, 14 + tot) == 0)
		v->echo_answered++;
	return true;
}

bool vnet_answer(struct vnet *v, const uint8_t *f, uint32_t len)
{
	if (len < 14)
		return false;
	if (be16(f + 12) == ETH_ARP)
		return answer_arp(v, f, len);
	if (be16(f + 12) == ETH_IP)
		return answer_echo(v, f, len);
	return false;
}

int vnet_ping_host(struct vnet *v, uint16_t id, uint16_t seq, uint32_t n,
		   uint8_t seed)
{
	uint8_t *f = tx_frame, *ip = f + 14, *icmp = ip + 20;
	uint32_t tot = 20 + 8 + n;

	if (14 + tot > VNET_FRAME_MAX)
		return -1;
	eth(f, v->host_mac, v->mac, ETH_IP);
	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)tot);
	put16(ip + 4, seq);
	ip[8] = 64;
	ip[9] = 1;
	memcpy(ip + 12, v->ip, 4);
	memcpy(ip + 16, v->host_ip, 4);
	put16(ip + 10, csum(ip, 20));
	icmp[0] = 8;
	icmp[1] = 0;
	put16(icmp + 2, 0);
	put16(icmp + 4, id);
	put16(icmp + 6, seq);
	for (uint32_t i = 0; i < n; i++)
		icmp[8 + i] = (uint8_t)(seed + i);
	put16(icmp + 2, csum(icmp, 8 + n));
	return vnet_send(v, f, 14 + tot);
}

bool vnet_is_pong(const struct vnet *v, const uint8_t *f, uint32_t len,
		  uint16_t id, uint16_t seq, uint32_t n, uint8_t seed)
{
	const uint8_t *ip = f + 14, *icmp = ip + 20;

	if (len < 14 + 28 + n || be16(f + 12) != ETH_IP || ip[0] != 0x45 ||
	    ip[9] != 1 || memcmp(ip + 12, v->host_ip, 4) || icmp[0] != 0 ||
	    be16(icmp + 4) != id || be16(icmp + 6) != seq ||
	    be16(ip + 2) != 28 + n || csum(icmp, 8 + n))
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (icmp[8 + i] != (uint8_t)(seed + i))
			return false;
	return true;
}
