/* SPDX-License-Identifier: MIT */
/*
 * A 16550A UART: the register state machine, a receive FIFO, and the
 * interrupt logic.  Transmitted bytes go to a sink callback at once (the
 * line is infinitely fast); received bytes come from uart_receive().
 */
#ifndef MINIVMM_UART16550_H
#define MINIVMM_UART16550_H

#include <stddef.h>
#include <stdint.h>

#include "devices/irq.h"
#include "vmm/bus.h"

#define UART_NR_PORTS	8
#define UART_RX_FIFO	16

struct uart_sink {
	void (*write)(void *ctx, const uint8_t *buf, size_t n);
	void *ctx;
};

struct uart;

struct uart *uart_create(struct irq_line irq, struct uart_sink out);
void uart_destroy(struct uart *u);
/* Queue received bytes; returns how many fit in the FIFO. */
size_t uart_receive(struct uart *u, const uint8_t *buf, size_t n);
/* Free space in the receive FIFO (the console stops reading when full). */
size_t uart_rx_space(struct uart *u);

/* The guest-visible registers and receive FIFO, for snapshots.  A fixed
 * layout of bytes: it is stored as it is. */
struct uart_state {
	uint8_t ier, lcr, mcr, scr, fcr, dll, dlm, thre_pending;
	uint8_t irq_level, rx_head, rx_count, reserved;
	uint8_t rx[UART_RX_FIFO];
};

void uart_get_state(struct uart *u, struct uart_state *s);
/* -1 (and nothing changes) if s is inconsistent.  Re-asserts the IRQ line
 * if it was high, so the interrupt controller's view of it is current. */
int uart_set_state(struct uart *u, const struct uart_state *s);

extern const struct bus_ops uart_ops;

#endif
