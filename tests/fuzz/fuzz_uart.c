// SPDX-License-Identifier: MIT
/*
 * The 16550A UART and the console input path that feeds it.  The UART is
 * registered on a real port bus at COM1, as vm.c does; the input is a
 * sequence of guest port accesses (1, 2 or 4 bytes, also past the 8 ports)
 * and of host console input, which goes through console_filter() and
 * uart_receive() as run.c's feed_console() does.
 *
 * Checked after every step:
 *   - transmitted bytes reach the sink exactly when the guest writes THR
 *     with DLAB clear and loopback off, and they are the bytes written;
 *   - the IRQ line only changes level, and is only raised with OUT2 set;
 *   - LSR.DR is set exactly when the receive FIFO is not empty, and the
 *     FIFO never holds more than UART_RX_FIFO bytes;
 *   - uart_receive() takes exactly what fits; console_filter() never
 *     produces more bytes than it got, and passes bytes other than
 *     Ctrl-A through unchanged.
 */
#include "devices/uart16550.h"
#include "tests/fuzz/fuzz_util.h"
#include "vmm/console/console.h"

#define MAX_OPS		1024
#define COM1		0x3f8
#define REG_LCR		3
#define REG_MCR		4
#define REG_LSR		5
#define LCR_DLAB	0x80
#define MCR_OUT2	0x08
#define MCR_LOOP	0x10
#define LSR_DR		0x01

struct state {
	int level;			/* last IRQ level set, -1: none yet */
	uint64_t irq_calls;
	uint8_t sent[64];		/* what the sink got this step */
	size_t nsent;
	uint8_t lcr, mcr;		/* as the guest last wrote them */
};

static void on_irq(void *ctx, uint32_t irq, int level)
{
	struct state *s = ctx;

	FZ_CHECK(irq == 4, "IRQ %u", irq);
	FZ_CHECK(level != s->level, "IRQ set to %d twice", level);
	s->level = level;
	s->irq_calls++;
}

static void on_tx(void *ctx, const uint8_t *buf, size_t n)
{
	struct state *s = ctx;

	FZ_CHECK(s->nsent + n <= sizeof(s->sent), "sink got %zu bytes",
		 s->nsent + n);
	memcpy(s->sent + s->nsent, buf, n);
	s->nsent += n;
}

static uint8_t reg(struct bus *pio, unsigned int r)
{
	uint8_t v;

	bus_access(pio, COM1 + r, &v, 1, false);
	return v;
}

/* What the sink must have got from a write of len bytes at off. */
static size_t expect_tx(struct state *s, uint64_t off, const uint8_t *data,
			uint32_t len, uint8_t *want)
{
	size_t n = 0;

	for (uint32_t i = 0; i < len && off + i < UART_NR_PORTS; i++) {
		uint64_t r = off + i;

		if (r == 0 && !(s->lcr & LCR_DLAB) && !(s->mcr & MCR_LOOP))
			want[n++] = data[i];
		if (r == REG_LCR)
			s->lcr = data[i];
		if (r == REG_MCR)
			s->mcr = data[i] & 0x1f;
	}
	return n;
}

static void guest_access(struct bus *pio, struct state *s, struct fz *in)
{
	static const uint32_t widths[] = { 1, 2, 4, 1 };
	uint8_t sel = fz_u8(in), data[4], want[4];
	uint32_t len = widths[sel & 3], val = fz_u32(in);
	uint64_t off = (sel >> 3) & 0xf;
	bool wr = sel & 4;
	size_t n = 0;

	memcpy(data, &val, 4);
	s->nsent = 0;
	bus_access(pio, COM1 + off, data, len, wr);
	if (wr)
		n = expect_tx(s, off, (const uint8_t *)&val, len, want);
	FZ_CHECK(s->nsent == n && !memcmp(s->sent, want, n),
		 "write of %u at +%llu: sink got %zu bytes, want %zu", len,
		 (unsigned long long)off, s->nsent, n);
}

static void host_input(struct uart *u, struct console *c, struct fz *in)
{
	uint8_t out[UART_RX_FIFO];
	size_t space = uart_rx_space(u), n, n_out, took;
	const uint8_t *buf = fz_bytes(in, fz_u8(in) % (UART_RX_FIFO + 1), &n);
	bool plain = !c->escape && !memchr(buf, 0x01, n);
	enum console_input r;

	FZ_CHECK(space <= UART_RX_FIFO, "rx space %zu", space);
	if (n > space)
		n = space;	/* feed_console reads at most the space */
	r = console_filter(c, buf, n, out, &n_out);
	FZ_CHECK(n_out <= n, "filter made %zu bytes of %zu", n_out, n);
	FZ_CHECK(!plain || (r == CONSOLE_INPUT_OK && n_out == n &&
			    !memcmp(out, buf, n)),
		 "filter changed input without Ctrl-A");
	took = uart_receive(u, out, n_out);
	FZ_CHECK(took == n_out, "uart took %zu of %zu with %zu free", took,
		 n_out, space);
}

static void check_state(struct bus *pio, struct uart *u, struct state *s)
{
	size_t space = uart_rx_space(u);
	uint8_t lsr = reg(pio, REG_LSR), mcr = reg(pio, REG_MCR);

	FZ_CHECK(space <= UART_RX_FIFO, "rx space %zu", space);
	FZ_CHECK(!!(lsr & LSR_DR) == (space < UART_RX_FIFO),
		 "LSR 0x%02x with %zu bytes free", lsr, space);
	FZ_CHECK(mcr == s->mcr, "MCR 0x%02x, wrote 0x%02x", mcr, s->mcr);
	FZ_CHECK(s->level != 1 || (mcr & MCR_OUT2), "IRQ high without OUT2");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct state s = { .level = -1, .lcr = 0x03 };
	struct fz in = { data, size };
	struct console con;
	struct uart *u;
	struct bus pio;

	u = uart_create((struct irq_line){ on_irq, &s, 4 },
			(struct uart_sink){ on_tx, &s });
	FZ_CHECK(u, "uart_create");
	console_open(&con, CONSOLE_NONE, NULL);
	bus_init(&pio, "pio", 0x10000);
	pio.whole_access = true;	/* as vm.c */
	FZ_CHECK(bus_register(&pio, COM1, UART_NR_PORTS, &uart_ops, u,
			      "uart-com1") == 0, "register");
	for (int i = 0; i < MAX_OPS && !fz_empty(&in); i++) {
		if (fz_u8(&in) < 0x30)
			host_input(u, &con, &in);
		else
			guest_access(&pio, &s, &in);
		check_state(&pio, u, &s);
	}
	bus_destroy(&pio);
	console_close(&con);
	uart_destroy(u);
	return 0;
}
