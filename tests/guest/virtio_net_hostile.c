// SPDX-License-Identifier: MIT
/*
 * virtio_net_hostile: breaks virtio-net's rules and checks the device
 * survives each time.  Transmit chains with a short header, a header
 * split over three descriptors (valid: it must go out), a runt, an
 * oversized frame, a checksum field beyond the frame, segmentation not
 * negotiated, unknown header flags, only writable buffers: each must
 * complete (dropped or sent), and an ARP exchange with the host must work
 * afterwards.  Receive buffers too small for the header complete empty.
 * A receive and a transmit descriptor outside guest RAM end in
 * DEVICE_NEEDS_RESET, after which a reset brings the device back.
 * Command line: ip=A.B.C.D host=A.B.C.D.  The host counts the drops
 * (--stats-json).  Ends with "virtio-net-hostile: N failure(s)".
 */
#include "lib/guest.h"
#include "lib/vnet.h"

#define OUTSIDE		0xfffffff000ull		/* no RAM there */
#define TX_DROPS	7

static struct vnet v;
static const char *cmdline;
static uint8_t frame[VNET_FRAME_MAX];
static uint8_t hdr[VIRTIO_NET_HDR_SIZE];
static uint8_t big[70 * 1024];
static uint8_t arp[64];
static uint64_t deadline;

static bool open_dev(void)
{
	memset(&v, 0, sizeof(v));
	/* CSUM but no segmentation: both kinds of offload mistakes. */
	return vnet_open(&v, cmdline, 1ull << VIRTIO_NET_F_CSUM, false) == 0;
}

/* An ARP exchange with the host: the device still works both ways. */
static bool alive(void)
{
	uint64_t resend = 0;

	while (rdtsc() < deadline) {
		int n;

		if (rdtsc() >= resend) {
			vnet_arp_host(&v);
			resend = rdtsc() + vnet_cycles(1);
		}
		n = vnet_recv(&v, frame, sizeof(frame));
		if (n > 0 && vnet_is_arp_reply(&v, frame, (uint32_t)n))
			return true;
	}
	return false;
}

static int64_t tx_chain(const struct gv_buf *b, unsigned int n)
{
	struct gvq *q = &v.d.q[VIRTIO_NET_TXQ];

	return gv_submit_wait(q, gv_add(q, b, n, NULL), vnet_cycles(5));
}

static void set_hdr(uint8_t flags, uint8_t gso, uint16_t start,
		    uint16_t off)
{
	memset(hdr, 0, sizeof(hdr));
	hdr[VIRTIO_NET_HDR_FLAGS] = flags;
	hdr[VIRTIO_NET_HDR_GSO_TYPE] = gso;
	hdr[VIRTIO_NET_HDR_GSO_SIZE] = gso ? 100 : 0;
	hdr[VIRTIO_NET_HDR_CSUM_START] = (uint8_t)start;
	hdr[VIRTIO_NET_HDR_CSUM_START + 1] = (uint8_t)(start >> 8);
	hdr[VIRTIO_NET_HDR_CSUM_OFFSET] = (uint8_t)off;
	hdr[VIRTIO_NET_HDR_CSUM_OFFSET + 1] = (uint8_t)(off >> 8);
}

static void bad_tx(const char *what, const struct gv_buf *b, unsigned int n)
{
	check(tx_chain(b, n) >= 0, "tx %s: not completed", what);
}

static void test_tx(void)
{
	uint32_t alen = vnet_arp_host_frame(&v, arp);
	struct gv_buf split[4] = {
		{ hdr, 1, false }, { hdr + 1, 5, false }, { hdr + 6, 6, false },
		{ arp, alen, false },
	};
	struct gv_buf two[2] = { { hdr, sizeof(hdr), false },
				 { arp, alen, false } };
	struct gv_buf w = { frame, 64, true };

	set_hdr(0, 0, 0, 0);
	bad_tx("short header", split, 1);
	two[1].len = 10;
	bad_tx("runt", two, 2);
	two[1] = (struct gv_buf){ big, sizeof(big), false };
	memcpy(big, arp, alen);
	bad_tx("oversized", two, 2);
	two[1] = (struct gv_buf){ arp, alen, false };
	set_hdr(VIRTIO_NET_HDR_F_NEEDS_CSUM, 0, 40, 20);
	bad_tx("checksum beyond the frame", two, 2);
	set_hdr(VIRTIO_NET_HDR_F_NEEDS_CSUM, VIRTIO_NET_HDR_GSO_TCPV4, 14, 16);
	bad_tx("segmentation not negotiated", two, 2);
	set_hdr(0x80, 0, 0, 0);
	bad_tx("unknown flags", two, 2);
	bad_tx("only writable buffers", &w, 1);
	/* Valid, just oddly cut: the host must answer it. */
	set_hdr(0, 0, 0, 0);
	check(tx_chain(split, 4) >= 0, "tx split header: not completed");
	check(alive(), "no ARP exchange after the bad transmits");
}

/* Every receive buffer (frames the host sends on its own, IPv6
 * neighbour discovery among them, may take any of them first). */
static void rx_descs(uint64_t addr, uint32_t len)
{
	struct gvq *q = &v.d.q[VIRTIO_NET_RXQ];

	for (uint16_t i = 0; i < v.nbufs; i++) {
		if (addr)
			q->desc[i].addr = addr;
		q->desc[i].len = len;
	}
}

static void test_rx_small(void)
{
	uint64_t end = rdtsc() + vnet_cycles(5);

	rx_descs(0, VIRTIO_NET_HDR_SIZE - 4);
	vnet_arp_host(&v);
	while (!v.rx_empty && rdtsc() < end)
		vnet_recv(&v, frame, sizeof(frame));
	rx_descs(0, v.buf_len);
	check(v.rx_empty >= 1, "a buffer smaller than a header did not "
	      "complete empty");
	check(alive(), "no ARP exchange after small receive buffers");
}

static bool wait_needs_reset(void)
{
	uint64_t end = rdtsc() + vnet_cycles(5);

	while (rdtsc() < end)
		if (gv_status(&v.d) & VIRTIO_STATUS_NEEDS_RESET)
			return true;
	return false;
}

static void test_outside(void)
{
	struct gv_buf out = { (void *)(uintptr_t)OUTSIDE, 64, false };
	struct gvq *q = &v.d.q[VIRTIO_NET_TXQ];
	uint16_t old = q->avail_idx;

	rx_descs(OUTSIDE, v.buf_len);
	vnet_arp_host(&v);
	check(wait_needs_reset(), "rx buffer outside RAM: no NEEDS_RESET");
	check(open_dev() && alive(), "no ARP exchange after a reset (rx)");
	gv_publish(q, gv_add(q, &out, 1, NULL));
	gv_kick(q, old);
	check(wait_needs_reset(), "tx buffer outside RAM: no NEEDS_RESET");
	check(open_dev() && alive(), "no ARP exchange after a reset (tx)");
}

int payload_main(const struct hvm_start_info *si)
{
	cmdline = start_info_cmdline(si);
	deadline = rdtsc() + vnet_cycles(60);
	if (!open_dev())
		return 1;
	check(alive(), "no ARP exchange with the host");
	test_tx();
	test_rx_small();
	test_outside();
	gprintf("virtio-net-hostile: %u tx drops expected, %llu empty "
		"receives\n", TX_DROPS, (unsigned long long)v.rx_empty);
	gprintf("virtio-net-hostile: %u failure(s)\n", check_failures());
	return check_failures() ? 1 : 0;
}
