// SPDX-License-Identifier: MIT
/*
 * virtio_net: drives the first virtio-net function with raw frames.  It
 * claims ip= on the tap's link, asks the host (host=) for its MAC by ARP,
 * pings it with a small and a size= byte payload (echo replies checked
 * byte for byte), takes one MSI-X interrupt for a received frame, and
 * answers ARP requests and ICMP echo requests until pings= of them were
 * answered (the host side pings it after the "ready" line).
 * Command line: ip=A.B.C.D host=A.B.C.D [pings=N] [size=N] [rxbuf=BYTES]
 * [mrg=0|1] [timeout=SECONDS].
 * Ends with "virtio-net: N failure(s)" and status 0 or 1.
 */
#include "lib/guest.h"
#include "lib/irq.h"
#include "lib/vnet.h"

#define VEC_RX		0x38
#define PING_ID		0x4d56

static struct vnet v;
static uint8_t frame[VNET_FRAME_MAX];
static uint64_t deadline;

/* Take one frame: the host's replies are returned, the rest answered.
 * Returns the frame length if it is a reply the caller may want. */
static int step(void)
{
	int n = vnet_recv(&v, frame, sizeof(frame));

	if (n <= 0)
		return 0;
	if (vnet_answer(&v, frame, (uint32_t)n))
		return 0;
	return n;
}

static bool arp_host(void)
{
	uint64_t resend = 0;

	while (rdtsc() < deadline) {
		int n;

		if (rdtsc() >= resend) {
			vnet_arp_host(&v);
			resend = rdtsc() + vnet_cycles(1);
		}
		n = step();
		if (n > 0 && vnet_is_arp_reply(&v, frame, (uint32_t)n))
			return true;
	}
	return false;
}

static bool ping_host(uint16_t seq, uint32_t size)
{
	uint64_t resend = 0;
	uint8_t seed = (uint8_t)(seq * 37);

	while (rdtsc() < deadline) {
		int n;

		if (rdtsc() >= resend) {
			vnet_ping_host(&v, PING_ID, seq, size, seed);
			resend = rdtsc() + vnet_cycles(1);
		}
		n = step();
		if (n > 0 && vnet_is_pong(&v, frame, (uint32_t)n, PING_ID, seq,
					  size, seed))
			return true;
	}
	return false;
}

/* Ask for an interrupt at the next used entry, ARP the host, wait.  The
 * host may have sent something on its own (IPv6 neighbour discovery)
 * that arrived before the request was armed: then take it and ask
 * again. */
static void test_interrupt(void)
{
	uint64_t before = irq_count(VEC_RX);
	bool got = false;

	for (int i = 0; i < 5 && !got && rdtsc() < deadline; i++) {
		while (step() > 0)
			;
		gv_want_interrupt(&v.d.q[VIRTIO_NET_RXQ]);
		vnet_arp_host(&v);
		got = irq_wait(VEC_RX, before + 1, vnet_cycles(1)) > before;
	}
	gv_no_interrupts(&v.d.q[VIRTIO_NET_RXQ]);
	check(got, "no MSI-X interrupt for a received frame");
}

static void serve_host(uint64_t pings)
{
	while (v.echo_answered < pings && rdtsc() < deadline)
		step();
	check(v.echo_answered >= pings, "answered %llu of %llu echo requests",
	      (unsigned long long)v.echo_answered, (unsigned long long)pings);
}

int payload_main(const struct hvm_start_info *si)
{
	const char *cl = start_info_cmdline(si);
	uint64_t pings = 0, size = 1400, timeout = 60;
	uint16_t status;

	cmdline_u64(cl, "pings", &pings);
	cmdline_u64(cl, "size", &size);
	cmdline_u64(cl, "timeout", &timeout);
	irq_init();
	deadline = rdtsc() + vnet_cycles(timeout);
	if (vnet_open(&v, cl, 1ull << VIRTIO_F_RING_EVENT_IDX, true) < 0)
		return 1;
	gv_msix_vector(&v.d, 1, msi_addr(), msi_data(VEC_RX), false);
	check(gv_pci_read(&v.d, PCI_CLASS_DEVICE, 2) == 0x0200, "class %#x",
	      gv_pci_read(&v.d, PCI_CLASS_DEVICE, 2));
	status = mmio_read16(v.d.device + VIRTIO_NET_CFG_STATUS);
	check(status & VIRTIO_NET_S_LINK_UP, "link down (status %#x)", status);
	gprintf("virtio-net: mac %02x:%02x:%02x:%02x:%02x:%02x, %u buffers of "
		"%u bytes%s\n", v.mac[0], v.mac[1], v.mac[2], v.mac[3],
		v.mac[4], v.mac[5], v.nbufs, v.buf_len,
		v.mrg ? ", mergeable" : "");
	check(arp_host(), "no ARP reply from the host");
	check(v.have_host_mac && ping_host(1, 56), "no echo reply (56 bytes)");
	check(ping_host(2, (uint32_t)size), "no echo reply (%llu bytes)",
	      (unsigned long long)size);
	test_interrupt();
	gprintf("virtio-net: ready\n");
	serve_host(pings);
	gprintf("virtio-net: rx %llu tx %llu frames, answered %llu ARP %llu "
		"echo, %llu malformed\n", (unsigned long long)v.rx_frames,
		(unsigned long long)v.tx_frames,
		(unsigned long long)v.arp_answered,
		(unsigned long long)v.echo_answered,
		(unsigned long long)v.rx_empty);
	check(!v.rx_empty, "%llu malformed receives",
	      (unsigned long long)v.rx_empty);
	gprintf("virtio-net: %u failure(s)\n", check_failures());
	return check_failures() ? 1 : 0;
}
