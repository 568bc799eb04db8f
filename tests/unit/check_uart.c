// SPDX-License-Identifier: MIT
/* The 16550A model as a guest driver sees it: registers, the divisor latch,
 * interrupt identification and the IRQ line, the receive FIFO, loopback,
 * and accesses of every width at every offset. */
#include "tests/unit/unit.h"
#include "devices/uart16550.h"

enum { RBR = 0, THR = 0, DLL = 0, IER = 1, DLM = 1, IIR = 2, FCR = 2,
       LCR = 3, MCR = 4, LSR = 5, MSR = 6, SCR = 7 };

#define MCR_OUT2	0x08
#define MCR_LOOP	0x10

static struct uart *u;
static uint8_t sent[4096];
static size_t nsent;
static int level;		/* last level set on the line */
static int irq_calls;
static uint32_t irq_num;

static void sink(void *ctx, const uint8_t *buf, size_t n)
{
	ck_assert_ptr_eq(ctx, sent);
	ck_assert_uint_le(nsent + n, sizeof(sent));
	memcpy(sent + nsent, buf, n);
	nsent += n;
}

static void set_irq(void *ctx, uint32_t irq, int lvl)
{
	ck_assert_ptr_eq(ctx, &level);
	irq_num = irq;
	level = lvl;
	irq_calls++;
}

static void setup(void)
{
	struct irq_line line = { .set = set_irq, .ctx = &level, .irq = 4 };
	struct uart_sink out = { .write = sink, .ctx = sent };

	nsent = 0;
	level = 0;
	irq_calls = 0;
	u = uart_create(line, out);
	ck_assert_ptr_nonnull(u);
}

static void teardown(void)
{
	uart_destroy(u);
}

static uint8_t rd(uint64_t reg)
{
	uint8_t v = 0xee;

	uart_ops.read(u, reg, &v, 1);
	return v;
}

static void wr(uint64_t reg, uint8_t v)
{
	uart_ops.write(u, reg, &v, 1);
}

START_TEST(transmit)
{
	wr(THR, 'h');
	wr(THR, 'i');
	wr(THR, 0);
	wr(THR, 0xff);
	ck_assert_uint_eq(nsent, 4);
	ck_assert_mem_eq(sent, "hi\0\xff", 4);
	ck_assert_int_eq(irq_calls, 0);	/* no interrupts enabled */
}
END_TEST

START_TEST(reset_state)
{
	ck_assert_uint_eq(rd(IER), 0);
	ck_assert_uint_eq(rd(IIR), 0x01);	/* nothing pending */
	ck_assert_uint_eq(rd(LCR), 0x03);
	ck_assert_uint_eq(rd(MCR), 0);
	ck_assert_uint_eq(rd(LSR), 0x60);	/* THRE | TEMT */
	ck_assert_uint_eq(rd(MSR), 0xb0);
	ck_assert_uint_eq(rd(RBR), 0);		/* empty FIFO reads 0 */
	ck_assert_int_eq(level, 0);
}
END_TEST

START_TEST(divisor_latch)
{
	wr(LCR, 0x83);			/* DLAB */
	ck_assert_uint_eq(rd(DLL), 12);	/* 9600 baud after reset */
	wr(DLL, 0x01);
	wr(DLM, 0x02);
	ck_assert_uint_eq(rd(DLL), 0x01);
	ck_assert_uint_eq(rd(DLM), 0x02);
	ck_assert_uint_eq(nsent, 0);	/* DLL writes are not data */
	ck_assert_uint_eq(rd(LCR), 0x83);
	wr(LCR, 0x03);
	ck_assert_uint_eq(rd(IER), 0);	/* DLM write did not reach IER */
	wr(THR, 'x');
	ck_assert_uint_eq(nsent, 1);
	wr(LCR, 0x80);
	ck_assert_uint_eq(rd(DLL), 0x01);	/* latch kept */
	ck_assert_uint_eq(rd(DLM), 0x02);
}
END_TEST

START_TEST(ier_bits)
{
	wr(IER, 0xff);
	ck_assert_uint_eq(rd(IER), 0x0f);	/* only 4 bits exist */
	wr(IER, 0);
	ck_assert_uint_eq(rd(IER), 0);
}
END_TEST

START_TEST(thre_interrupt)
{
	wr(MCR, MCR_OUT2);
	ck_assert_int_eq(irq_calls, 0);
	wr(IER, 0x02);			/* THR is empty: interrupt at once */
	ck_assert_int_eq(level, 1);
	ck_assert_uint_eq(irq_num, 4);
	ck_assert_uint_eq(rd(IIR), 0x02);
	ck_assert_int_eq(level, 0);	/* reading IIR acknowledged it */
	ck_assert_uint_eq(rd(IIR), 0x01);
	wr(THR, 'a');			/* transmit completes: THRE again */
	ck_assert_int_eq(level, 1);
	ck_assert_uint_eq(rd(IIR), 0x02);
	ck_assert_int_eq(level, 0);
	/* Rewriting IER with THRE already on does not re-arm it. */
	wr(IER, 0x02);
	ck_assert_int_eq(level, 0);
	ck_assert_uint_eq(rd(IIR), 0x01);
	/* Turning it off and on again does. */
	wr(IER, 0);
	wr(IER, 0x02);
	ck_assert_int_eq(level, 1);
	/* Disabling THRE drops the line. */
	wr(IER, 0);
	ck_assert_int_eq(level, 0);
	ck_assert_uint_eq(rd(IIR), 0x01);
	ck_assert_int_eq(irq_calls, 6);	/* only transitions are signalled */
}
END_TEST

START_TEST(out2_gates_irq)
{
	wr(IER, 0x02);
	ck_assert_int_eq(level, 0);
	ck_assert_int_eq(irq_calls, 0);
	wr(MCR, MCR_OUT2);		/* the pending one reaches the line */
	ck_assert_int_eq(level, 1);
	wr(MCR, 0);
	ck_assert_int_eq(level, 0);
	ck_assert_uint_eq(rd(IIR), 0x02);	/* still identified */
	wr(MCR, MCR_OUT2);
	ck_assert_int_eq(level, 0);
}
END_TEST

START_TEST(receive_and_rda)
{
	wr(MCR, MCR_OUT2);
	wr(IER, 0x01);
	ck_assert_int_eq(level, 0);
	ck_assert_uint_eq(uart_receive(u, (const uint8_t *)"ok", 2), 2);
	ck_assert_int_eq(level, 1);
	ck_assert_uint_eq(rd(LSR), 0x61);	/* DR */
	ck_assert_uint_eq(rd(IIR), 0x04);
	ck_assert_int_eq(level, 1);	/* IIR read does not clear RDA */
	ck_assert_uint_eq(rd(RBR), 'o');
	ck_assert_int_eq(level, 1);
	ck_assert_uint_eq(rd(RBR), 'k');
	ck_assert_int_eq(level, 0);
	ck_assert_uint_eq(rd(LSR), 0x60);
	ck_assert_uint_eq(rd(IIR), 0x01);
	ck_assert_uint_eq(rd(RBR), 0);
}
END_TEST

START_TEST(rda_before_thre)
{
	wr(MCR, MCR_OUT2);
	wr(IER, 0x03);
	uart_receive(u, (const uint8_t *)"z", 1);
	ck_assert_uint_eq(rd(IIR), 0x04);	/* higher priority */
	ck_assert_uint_eq(rd(IIR), 0x04);	/* THRE not consumed */
	ck_assert_uint_eq(rd(RBR), 'z');
	ck_assert_int_eq(level, 1);
	ck_assert_uint_eq(rd(IIR), 0x02);
	ck_assert_int_eq(level, 0);
}
END_TEST

START_TEST(rx_fifo)
{
	uint8_t in[32];

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)('a' + i);
	ck_assert_uint_eq(uart_rx_space(u), UART_RX_FIFO);
	ck_assert_uint_eq(uart_receive(u, in, 10), 10);
	ck_assert_uint_eq(uart_rx_space(u), UART_RX_FIFO - 10);
	for (int i = 0; i < 5; i++)
		ck_assert_uint_eq(rd(RBR), 'a' + i);
	/* Refill past the ring's end: order is kept, excess is refused. */
	ck_assert_uint_eq(uart_receive(u, in + 10, 14), 11);
	ck_assert_uint_eq(uart_rx_space(u), 0);
	ck_assert_uint_eq(uart_receive(u, in, 1), 0);
	for (int i = 5; i < 21; i++)
		ck_assert_uint_eq(rd(RBR), 'a' + i);
	ck_assert_uint_eq(uart_rx_space(u), UART_RX_FIFO);
	ck_assert_uint_eq(rd(LSR) & 1, 0);
	ck_assert_uint_eq(uart_receive(u, in, 0), 0);
}
END_TEST

START_TEST(fcr)
{
	ck_assert_uint_eq(rd(IIR) & 0xc0, 0);
	wr(FCR, 0x01);
	ck_assert_uint_eq(rd(IIR) & 0xc0, 0xc0);	/* FIFOs enabled */
	uart_receive(u, (const uint8_t *)"abc", 3);
	wr(FCR, 0x03);				/* clear RX */
	ck_assert_uint_eq(rd(LSR) & 1, 0);
	ck_assert_uint_eq(uart_rx_space(u), UART_RX_FIFO);
	uart_receive(u, (const uint8_t *)"d", 1);
	ck_assert_uint_eq(rd(RBR), 'd');
	wr(FCR, 0);
	ck_assert_uint_eq(rd(IIR) & 0xc0, 0);
	ck_assert_uint_eq(rd(LCR), 0x03);	/* FCR is not LCR */
}
END_TEST

START_TEST(loopback)
{
	wr(MCR, MCR_LOOP);
	wr(THR, 'L');
	ck_assert_uint_eq(nsent, 0);	/* not on the wire */
	ck_assert_uint_eq(rd(LSR) & 1, 1);
	ck_assert_uint_eq(rd(RBR), 'L');
	/* Modem outputs come back on the status inputs. */
	wr(MCR, MCR_LOOP | 0x01);
	ck_assert_uint_eq(rd(MSR) & 0xf0, 0x20);	/* DTR → DSR */
	wr(MCR, MCR_LOOP | 0x02);
	ck_assert_uint_eq(rd(MSR) & 0xf0, 0x10);	/* RTS → CTS */
	wr(MCR, MCR_LOOP | 0x04);
	ck_assert_uint_eq(rd(MSR) & 0xf0, 0x40);	/* OUT1 → RI */
	wr(MCR, MCR_LOOP | 0x08);
	ck_assert_uint_eq(rd(MSR) & 0xf0, 0x80);	/* OUT2 → DCD */
	wr(MCR, MCR_LOOP);
	ck_assert_uint_eq(rd(MSR) & 0xf0, 0);
	wr(MCR, 0xff);
	ck_assert_uint_eq(rd(MCR), 0x1f);
	ck_assert_uint_eq(rd(MSR) & 0xf0, 0xf0);
	wr(MCR, 0);
	wr(THR, 'W');
	ck_assert_uint_eq(nsent, 1);
	ck_assert_uint_eq(rd(MSR), 0xb0);
}
END_TEST

START_TEST(loopback_fifo_full)
{
	wr(MCR, MCR_LOOP);
	for (int i = 0; i < UART_RX_FIFO + 3; i++)
		wr(THR, (uint8_t)('A' + i));
	ck_assert_uint_eq(uart_rx_space(u), 0);
	/* The overflow is lost; what was queued is intact and in order. */
	for (int i = 0; i < UART_RX_FIFO; i++)
		ck_assert_uint_eq(rd(RBR), 'A' + i);
	ck_assert_uint_eq(rd(LSR) & 1, 0);
	ck_assert_uint_eq(nsent, 0);
}
END_TEST

START_TEST(loopback_rda_interrupt)
{
	wr(MCR, MCR_LOOP | MCR_OUT2);
	wr(IER, 0x01);
	wr(THR, '!');
	ck_assert_int_eq(level, 1);
	ck_assert_uint_eq(rd(IIR), 0x04);
	ck_assert_uint_eq(rd(RBR), '!');
	ck_assert_int_eq(level, 0);
}
END_TEST

START_TEST(scratch_and_readonly)
{
	wr(SCR, 0x5a);
	ck_assert_uint_eq(rd(SCR), 0x5a);
	wr(SCR, 0xa5);
	ck_assert_uint_eq(rd(SCR), 0xa5);
	wr(LSR, 0x00);
	wr(MSR, 0x00);
	ck_assert_uint_eq(rd(LSR), 0x60);
	ck_assert_uint_eq(rd(MSR), 0xb0);
	ck_assert_uint_eq(rd(SCR), 0xa5);
	wr(LCR, 0x1b);
	ck_assert_uint_eq(rd(LCR), 0x1b);
}
END_TEST

START_TEST(wide_accesses)
{
	uint8_t d[8];

	wr(SCR, 0x11);
	wr(MCR, 0x03);
	/* A 4-byte read at 4 sees MCR, LSR, MSR, SCR. */
	memset(d, 0, sizeof(d));
	uart_ops.read(u, 4, d, 4);
	ck_assert_mem_eq(d, "\x03\x60\xb0\x11", 4);
	/* A 2-byte write at 6 hits MSR (ignored) and SCR. */
	uart_ops.write(u, 6, (const uint8_t[]){ 0x99, 0x77 }, 2);
	ck_assert_uint_eq(rd(SCR), 0x77);
	ck_assert_uint_eq(rd(MSR), 0xb0);
	/* A write that runs past register 7 stops there. */
	uart_ops.write(u, 7, (const uint8_t[]){ 1, 2, 3, 4, 5, 6, 7, 8 }, 8);
	ck_assert_uint_eq(rd(SCR), 1);
	ck_assert_uint_eq(nsent, 0);
}
END_TEST

/* Every offset 0..7 and beyond, every width, read and write: no crash, and
 * offsets at or past 8 change nothing. */
START_TEST(hostile_accesses)
{
	static const uint64_t far[] = { 8, 9, 0x100, UINT32_MAX,
					UINT64_MAX - 7, UINT64_MAX - 1,
					UINT64_MAX };
	static const uint32_t widths[] = { 1, 2, 4, 8 };
	uint8_t d[8];

	for (uint64_t off = 0; off < 8; off++)
		for (size_t w = 0; w < 4; w++) {
			memset(d, (int)(off * 16 + w), sizeof(d));
			uart_ops.write(u, off, d, widths[w]);
			uart_ops.read(u, off, d, widths[w]);
		}
	uart_ops.write(u, LCR, (const uint8_t[]){ 0x03 }, 1);
	uart_ops.write(u, MCR, (const uint8_t[]){ 0 }, 1);
	uart_ops.write(u, SCR, (const uint8_t[]){ 0x3c }, 1);
	nsent = 0;
	irq_calls = 0;
	for (size_t i = 0; i < sizeof(far) / sizeof(far[0]); i++)
		for (size_t w = 0; w < 4; w++) {
			memset(d, 0x41, sizeof(d));
			uart_ops.write(u, far[i], d, widths[w]);
			uart_ops.read(u, far[i], d, widths[w]);
		}
	ck_assert_uint_eq(nsent, 0);
	ck_assert_uint_eq(rd(SCR), 0x3c);
	ck_assert_uint_eq(rd(LCR), 0x03);
	ck_assert_int_eq(irq_calls, 0);
}
END_TEST

START_TEST(through_the_bus)
{
	struct bus bus;
	uint8_t d[4] = { 'B', 0, 0, 0 };

	bus_init(&bus, "pio", 0x10000);
	ck_assert_int_eq(bus_register(&bus, 0x3f8, UART_NR_PORTS, &uart_ops, u,
				      "uart"), 0);
	ck_assert(bus_access(&bus, 0x3f8, d, 1, true));
	ck_assert_uint_eq(nsent, 1);
	ck_assert_uint_eq(sent[0], 'B');
	d[0] = 0x42;
	ck_assert(bus_access(&bus, 0x3ff, d, 4, true));	/* truncated to SCR */
	ck_assert(bus_access(&bus, 0x3fd, d, 4, false));
	ck_assert_mem_eq(d, "\x60\xb0\x42\x00", 4);
	bus_destroy(&bus);
}
END_TEST

START_TEST(no_sink_no_irq)
{
	struct uart *bare = uart_create((struct irq_line){ 0 },
					(struct uart_sink){ 0 });
	uint8_t v = 'q';

	ck_assert_ptr_nonnull(bare);
	uart_ops.write(bare, MCR, (const uint8_t[]){ MCR_OUT2 }, 1);
	uart_ops.write(bare, IER, (const uint8_t[]){ 0x03 }, 1);
	uart_ops.write(bare, THR, &v, 1);
	uart_receive(bare, &v, 1);
	uart_ops.read(bare, IIR, &v, 1);
	ck_assert_uint_eq(v, 0x04);
	uart_destroy(bare);
	uart_destroy(NULL);
}
END_TEST

static Suite *uart_suite(void)
{
	Suite *s = suite_create("uart16550");
	TCase *tc = tcase_create("registers");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, transmit);
	tcase_add_test(tc, reset_state);
	tcase_add_test(tc, divisor_latch);
	tcase_add_test(tc, ier_bits);
	tcase_add_test(tc, fcr);
	tcase_add_test(tc, loopback);
	tcase_add_test(tc, loopback_fifo_full);
	tcase_add_test(tc, scratch_and_readonly);
	tcase_add_test(tc, wide_accesses);
	tcase_add_test(tc, hostile_accesses);
	tcase_add_test(tc, through_the_bus);
	tcase_add_test(tc, no_sink_no_irq);
	suite_add_tcase(s, tc);

	tc = tcase_create("interrupts");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, thre_interrupt);
	tcase_add_test(tc, out2_gates_irq);
	tcase_add_test(tc, receive_and_rda);
	tcase_add_test(tc, rda_before_thre);
	tcase_add_test(tc, rx_fifo);
	tcase_add_test(tc, loopback_rda_interrupt);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(uart_suite());
}
