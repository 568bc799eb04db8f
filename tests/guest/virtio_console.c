// SPDX-License-Identifier: MIT
/*
 * virtio_console: drives the first virtio-console function (port 0).
 * Output: the emergency write register, then transmit chains of one
 * buffer, of three, behind an indirect table, with an MSI-X completion
 * interrupt; every line starts "vconsole:" and goes only through the
 * device, so the host test finds it on stdout only if the device works.
 * Input (unless "noinput"): four small receive buffers posted, then
 * "vconsole: ready" and every byte received echoed as "<hex>" until a
 * 'q', woken by MSI-X; then the same again with MSI-X off and INTx
 * through the IOAPIC after "vconsole: intx ready".  Waits for input as
 * long as "wait=S" seconds (default 60).
 * Ends with "virtio-console: N failure(s)" (through the UART) and status
 * 0 or 1.
 */
#include "lib/guest.h"
#include "lib/irq.h"
#include "lib/virtio.h"

#define VEC_RX		0x38
#define VEC_TX		0x39
#define VEC_INTX	0x3a
#define QSIZE		64
#define NRX		4
#define RX_LEN		16
#define CYCLES		(20ull * 1000 * 1000 * 1000)
#define F(b)		(1ull << (b))

static uint8_t qmem[2][16 * 1024] __attribute__((aligned(4096)));
static uint8_t rxbuf[NRX][RX_LEN];
static int rx_of_head[QSIZE];
static struct gv_desc itab[4] __attribute__((aligned(16)));
static struct gvirtio d;
static uint64_t wait_cycles;
static char got[256];
static unsigned int ngot;

static int64_t tx(const struct gv_buf *b, unsigned int n, bool indirect)
{
	struct gvq *q = &d.q[VIRTIO_CONSOLE_TXQ];

	return gv_submit_wait(q, gv_add(q, b, n, indirect ? itab : NULL),
			      CYCLES);
}

static void tx_str(const char *s)
{
	struct gv_buf b = { (void *)s, (uint32_t)strlen(s), false };
	int64_t used = tx(&b, 1, false);

	check(used == 0, "transmit '%s': used %lld", s, (long long)used);
}

static void test_identity(void)
{
	uint64_t f = gv_device_features(&d);

	check(gv_pci_read(&d, PCI_CLASS_DEVICE, 2) == 0x0780, "class %#x",
	      gv_pci_read(&d, PCI_CLASS_DEVICE, 2));
	check((f & F(VIRTIO_CONSOLE_F_EMERG_WRITE)) &&
	      !(f & (F(VIRTIO_CONSOLE_F_SIZE) |
		     F(VIRTIO_CONSOLE_F_MULTIPORT))),
	      "device features %#llx", (unsigned long long)f);
	check(gv_cfg_read32(&d, VIRTIO_CONSOLE_CFG_MAX_NR_PORTS) == 1 &&
	      gv_cfg_read32(&d, VIRTIO_CONSOLE_CFG_COLS) == 0,
	      "configuration");
}

static bool open_dev(uint16_t rx_vec, uint16_t tx_vec)
{
	uint64_t want = F(VIRTIO_F_VERSION_1) | F(VIRTIO_F_RING_EVENT_IDX) |
			F(VIRTIO_F_RING_INDIRECT_DESC) |
			F(VIRTIO_CONSOLE_F_EMERG_WRITE);

	if (!gv_negotiate(&d, want, false) ||
	    gv_queue_setup(&d, VIRTIO_CONSOLE_RXQ, QSIZE, qmem[0], rx_vec) < 0 ||
	    gv_queue_setup(&d, VIRTIO_CONSOLE_TXQ, QSIZE, qmem[1], tx_vec) < 0)
		return false;
	gv_driver_ok(&d);
	gv_no_interrupts(&d.q[VIRTIO_CONSOLE_TXQ]);
	return true;
}

/* Before DRIVER_OK matters not: the register works whenever the feature
 * was negotiated (5.3.6.3). */
static void test_emergency(void)
{
	const char *s = "vconsole: emergency write\n";

	for (; *s; s++)
		mmio_write32(d.device + VIRTIO_CONSOLE_CFG_EMERG_WR,
			     (uint8_t)*s);
	check(gv_cfg_read32(&d, VIRTIO_CONSOLE_CFG_EMERG_WR) == 0,
	      "emerg_wr reads back");
}

static void test_transmit(void)
{
	static const char a[] = "vconsole: ", b[] = "split ", c[] = "chain\n";
	struct gv_buf three[3] = {
		{ (void *)a, sizeof(a) - 1, false },
		{ (void *)b, sizeof(b) - 1, false },
		{ (void *)c, sizeof(c) - 1, false },
	};
	static const char ind[] = "vconsole: indirect\n";
	struct gv_buf one = { (void *)ind, sizeof(ind) - 1, false };
	uint64_t before = irq_count(VEC_TX);

	tx_str("vconsole: hello from the guest\n");
	check(tx(three, 3, false) == 0, "three-buffer chain");
	check(tx(&one, 1, true) == 0, "indirect chain");
	gv_want_interrupt(&d.q[VIRTIO_CONSOLE_TXQ]);
	tx_str("vconsole: with an interrupt\n");
	check(irq_wait(VEC_TX, before + 1, CYCLES / 10) >= before + 1,
	      "no MSI-X interrupt for a transmit");
	gv_no_interrupts(&d.q[VIRTIO_CONSOLE_TXQ]);
}

static void post_rx(unsigned int i)
{
	struct gvq *q = &d.q[VIRTIO_CONSOLE_RXQ];
	struct gv_buf b = { rxbuf[i], RX_LEN, true };
	uint16_t head = gv_add(q, &b, 1, NULL), old = q->avail_idx;

	rx_of_head[head] = (int)i;
	gv_publish(q, head);
	gv_kick(q, old);
}

/* Take completed receive buffers; true once a 'q' came. */
static bool take_rx(void)
{
	struct gvq *q = &d.q[VIRTIO_CONSOLE_RXQ];
	uint32_t id, len;
	bool quit = false;

	while (gv_poll(q, &id, &len)) {
		int i = id < QSIZE ? rx_of_head[id] : -1;

		if (!check(i >= 0 && len <= RX_LEN, "used id %u len %u", id,
			   len))
			return true;
		for (uint32_t k = 0; k < len && ngot < sizeof(got); k++) {
			got[ngot++] = (char)rxbuf[i][k];
			quit |= rxbuf[i][k] == 'q';
		}
		post_rx((unsigned int)i);
	}
	return quit;
}

/* Echo input until 'q', each wake-up an interrupt on vec. */
static void receive(const char *what, unsigned int vec)
{
	uint64_t end = rdtsc() + wait_cycles, wakes = 0;
	char line[sizeof(got) * 4 + 32];
	unsigned int at;

	ngot = 0;
	/* Interrupts are taken only inside irq_wait(): one that came while
	 * they were off is pending and taken there, before the buffers are
	 * looked at. */
	while (rdtsc() < end) {
		uint64_t n = irq_count(vec);

		gv_want_interrupt(&d.q[VIRTIO_CONSOLE_RXQ]);
		if (irq_wait(vec, n + 1, CYCLES / 20) > n)
			wakes++;
		if (take_rx())
			break;
	}
	/* The device raises the interrupt after it fills the ring: input
	 * that came near the end of a wait is taken before its interrupt.
	 * That one is still owed (taken only inside irq_wait). */
	if (!wakes && ngot) {
		uint64_t n = irq_count(vec);

		wakes = irq_wait(vec, n + 1, CYCLES / 20) > n;
	}
	at = (unsigned int)gsnprintf(line, sizeof(line), "vconsole: %s ", what);
	for (unsigned int i = 0; i < ngot; i++)
		at += (unsigned int)gsnprintf(line + at, sizeof(line) - at,
					     "<%02x>", (uint8_t)got[i]);
	gsnprintf(line + at, sizeof(line) - at, "\n");
	tx_str(line);
	check(ngot && got[ngot - 1] == 'q', "%s: no 'q' (%u bytes)", what,
	      ngot);
	check(wakes > 0, "%s: no interrupt", what);
}

static void test_msix_input(void)
{
	for (unsigned int i = 0; i < NRX; i++)
		post_rx(i);
	tx_str("vconsole: ready\n");
	receive("received", VEC_RX);
}

static void test_intx_input(void)
{
	uint64_t claims = irq_claims(VEC_INTX);

	gv_msix_enable(&d, false, false);
	if (!check(open_dev(VIRTIO_MSI_NO_VECTOR, VIRTIO_MSI_NO_VECTOR),
		   "INTx: re-open failed"))
		return;
	irq_set_ack(VEC_INTX, d.isr);
	ioapic_route(d.irq_line, VEC_INTX, true, true, false);
	for (unsigned int i = 0; i < NRX; i++)
		post_rx(i);
	tx_str("vconsole: intx ready\n");
	receive("intx received", VEC_INTX);
	check(irq_claims(VEC_INTX) > claims, "INTx: no interrupt with ISR "
	      "set");
	ioapic_route(d.irq_line, VEC_INTX, true, true, true);
}

int payload_main(const struct hvm_start_info *si)
{
	const char *cl = start_info_cmdline(si);
	uint64_t secs = 60, khz = tsc_khz(NULL);

	cmdline_u64(cl, "wait", &secs);
	wait_cycles = secs * 1000 * (khz ? khz : 3000000);
	irq_init();
	if (gv_find(VIRTIO_ID_CONSOLE, 0, &d) < 0) {
		gprintf("virtio-console: no device\n");
		return 1;
	}
	test_identity();
	gv_msix_enable(&d, true, false);
	gv_msix_vector(&d, 1, msi_addr(), msi_data(VEC_RX), false);
	gv_msix_vector(&d, 2, msi_addr(), msi_data(VEC_TX), false);
	if (!open_dev(1, 2)) {
		gprintf("virtio-console: set-up refused\n");
		return 1;
	}
	test_emergency();
	test_transmit();
	if (!cmdline_has(cl, "noinput")) {
		test_msix_input();
		test_intx_input();
	}
	gprintf("virtio-console: %u failure(s)\n", check_failures());
	return check_failures() ? 1 : 0;
}
