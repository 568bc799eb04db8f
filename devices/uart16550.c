// SPDX-License-Identifier: MIT
/* 16550A UART.  Register numbers and bits per the National PC16550D data
 * sheet.  Only what a guest driver can observe is modelled: no baud timing,
 * transmit completes immediately. */
#include "devices/uart16550.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

enum {
	REG_RBR_THR_DLL = 0, REG_IER_DLM = 1, REG_IIR_FCR = 2, REG_LCR = 3,
	REG_MCR = 4, REG_LSR = 5, REG_MSR = 6, REG_SCR = 7,
};

#define IER_RDA		0x01
#define IER_THRE	0x02
#define IER_RLS		0x04
#define IER_MS		0x08
#define IIR_NONE	0x01
#define IIR_THRE	0x02
#define IIR_RDA		0x04
#define IIR_FIFO	0xc0
#define FCR_ENABLE	0x01
#define FCR_CLEAR_RX	0x02
#define LCR_DLAB	0x80
#define MCR_OUT2	0x08
#define MCR_LOOP	0x10
#define LSR_DR		0x01
#define LSR_THRE	0x20
#define LSR_TEMT	0x40
#define MSR_LOOP_BITS	0xf0	/* CTS, DSR, RI, DCD as seen in loopback */
#define MSR_DEFAULT	0xb0	/* CTS, DSR, DCD asserted */

struct uart {
	pthread_mutex_t lock;
	struct irq_line irq;
	struct uart_sink out;
	uint8_t ier, lcr, mcr, scr, fcr, dll, dlm;
	bool thre_pending;
	int irq_level;
	uint8_t rx[UART_RX_FIFO];
	unsigned int rx_head, rx_count;
};

static uint8_t pending_iir(const struct uart *u)
{
	if ((u->ier & IER_RDA) && u->rx_count)
		return IIR_RDA;
	if ((u->ier & IER_THRE) && u->thre_pending)
		return IIR_THRE;
	return IIR_NONE;
}

/* Called with the lock held after any state change.  OUT2 gates the IRQ
 * on PCs, and Linux's 8250 driver relies on that. */
static void update_irq(struct uart *u)
{
	int level = pending_iir(u) != IIR_NONE && (u->mcr & MCR_OUT2);

	if (level != u->irq_level) {
		u->irq_level = level;
		irq_set(&u->irq, level);
	}
}

static uint8_t rx_pop(struct uart *u)
{
	uint8_t c;

	if (!u->rx_count)
		return 0;
	c = u->rx[u->rx_head];
	u->rx_head = (u->rx_head + 1) % UART_RX_FIFO;
	u->rx_count--;
	return c;
}

static void rx_push(struct uart *u, uint8_t c)
{
	if (u->rx_count == UART_RX_FIFO)
		return;
	u->rx[(u->rx_head + u->rx_count) % UART_RX_FIFO] = c;
	u->rx_count++;
}

static void transmit(struct uart *u, uint8_t c)
{
	if (u->mcr & MCR_LOOP)
		rx_push(u, c);
	else if (u->out.write)
		u->out.write(u->out.ctx, &c, 1);
	u->thre_pending = true;
}

static uint8_t reg_read(struct uart *u, unsigned int reg)
{
	uint8_t v;

	switch (reg) {
	case REG_RBR_THR_DLL:
		return (u->lcr & LCR_DLAB) ? u->dll : rx_pop(u);
	case REG_IER_DLM:
		return (u->lcr & LCR_DLAB) ? u->dlm : u->ier;
	case REG_IIR_FCR:
		v = pending_iir(u);
		if (v == IIR_THRE)	/* reading IIR acknowledges THRE */
			u->thre_pending = false;
		return v | ((u->fcr & FCR_ENABLE) ? IIR_FIFO : 0);
	case REG_LCR:
		return u->lcr;
	case REG_MCR:
		return u->mcr;
	case REG_LSR:
		return LSR_THRE | LSR_TEMT | (u->rx_count ? LSR_DR : 0);
	case REG_MSR:
		if (u->mcr & MCR_LOOP)	/* DTR→DSR, RTS→CTS, OUT1→RI, OUT2→DCD */
			return (uint8_t)(((u->mcr & 0x01) << 5) |
					 ((u->mcr & 0x02) << 3) |
					 ((u->mcr & 0x04) << 4) |
					 ((u->mcr & 0x08) << 4)) & MSR_LOOP_BITS;
		return MSR_DEFAULT;
	default:
		return u->scr;
	}
}

static void reg_write(struct uart *u, unsigned int reg, uint8_t v)
{
	switch (reg) {
	case REG_RBR_THR_DLL:
		if (u->lcr & LCR_DLAB)
			u->dll = v;
		else
			transmit(u, v);
		break;
	case REG_IER_DLM:
		if (u->lcr & LCR_DLAB) {
			u->dlm = v;
			break;
		}
		/* Enabling THRE interrupts with THR empty raises one. */
		if ((v & IER_THRE) && !(u->ier & IER_THRE))
			u->thre_pending = true;
		u->ier = v & (IER_RDA | IER_THRE | IER_RLS | IER_MS);
		break;
	case REG_IIR_FCR:
		u->fcr = v & FCR_ENABLE ? v : 0;
		if (v & FCR_CLEAR_RX)
			u->rx_count = 0;
		break;
	case REG_LCR:
		u->lcr = v;
		break;
	case REG_MCR:
		u->mcr = v & 0x1f;
		break;
	case REG_SCR:
		u->scr = v;
		break;
	default:		/* LSR, MSR: read-only */
		break;
	}
}

static void uart_read(void *opaque, uint64_t off, uint8_t *data, uint32_t len)
{
	struct uart *u = opaque;

	pthread_mutex_lock(&u->lock);
	/* Wider accesses touch consecutive registers, as on an ISA bus. */
	for (uint32_t i = 0; i < len && off + i < UART_NR_PORTS; i++)
		data[i] = reg_read(u, (unsigned int)(off + i));
	update_irq(u);
	pthread_mutex_unlock(&u->lock);
}

static void uart_write(void *opaque, uint64_t off, const uint8_t *data,
		       uint32_t len)
{
	struct uart *u = opaque;

	pthread_mutex_lock(&u->lock);
	for (uint32_t i = 0; i < len && off + i < UART_NR_PORTS; i++)
		reg_write(u, (unsigned int)(off + i), data[i]);
	update_irq(u);
	pthread_mutex_unlock(&u->lock);
}

const struct bus_ops uart_ops = { .read = uart_read, .write = uart_write };

struct uart *uart_create(struct irq_line irq, struct uart_sink out)
{
	struct uart *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	pthread_mutex_init(&u->lock, NULL);
	u->irq = irq;
	u->out = out;
	u->dll = 12;		/* 9600 baud, as after a PC BIOS */
	u->lcr = 0x03;		/* 8N1 */
	return u;
}

void uart_destroy(struct uart *u)
{
	if (!u)
		return;
	pthread_mutex_destroy(&u->lock);
	free(u);
}

size_t uart_rx_space(struct uart *u)
{
	size_t n;

	pthread_mutex_lock(&u->lock);
	n = UART_RX_FIFO - u->rx_count;
	pthread_mutex_unlock(&u->lock);
	return n;
}

size_t uart_receive(struct uart *u, const uint8_t *buf, size_t n)
{
	size_t i;

	pthread_mutex_lock(&u->lock);
	for (i = 0; i < n && u->rx_count < UART_RX_FIFO; i++)
		rx_push(u, buf[i]);
	update_irq(u);
	pthread_mutex_unlock(&u->lock);
	return i;
}

void uart_get_state(struct uart *u, struct uart_state *s)
{
	pthread_mutex_lock(&u->lock);
	*s = (struct uart_state){
		.ier = u->ier, .lcr = u->lcr, .mcr = u->mcr, .scr = u->scr,
		.fcr = u->fcr, .dll = u->dll, .dlm = u->dlm,
		.thre_pending = u->thre_pending,
		.irq_level = (uint8_t)u->irq_level,
		.rx_head = (uint8_t)u->rx_head, .rx_count = (uint8_t)u->rx_count,
	};
	for (unsigned int i = 0; i < UART_RX_FIFO; i++)
		s->rx[i] = u->rx[i];
	pthread_mutex_unlock(&u->lock);
}

int uart_set_state(struct uart *u, const struct uart_state *s)
{
	if (s->rx_head >= UART_RX_FIFO || s->rx_count > UART_RX_FIFO ||
	    s->thre_pending > 1 || s->irq_level > 1 || s->reserved ||
	    (s->ier & ~(IER_RDA | IER_THRE | IER_RLS | IER_MS)) ||
	    (s->mcr & ~0x1f))
		return -1;
	pthread_mutex_lock(&u->lock);
	u->ier = s->ier;
	u->lcr = s->lcr;
	u->mcr = s->mcr;
	u->scr = s->scr;
	u->fcr = s->fcr;
	u->dll = s->dll;
	u->dlm = s->dlm;
	u->thre_pending = s->thre_pending;
	u->rx_head = s->rx_head;
	u->rx_count = s->rx_count;
	for (unsigned int i = 0; i < UART_RX_FIFO; i++)
		u->rx[i] = s->rx[i];
	u->irq_level = s->irq_level;
	if (u->irq_level)
		irq_set(&u->irq, 1);
	pthread_mutex_unlock(&u->lock);
	return 0;
}
