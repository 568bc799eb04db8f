// SPDX-License-Identifier: MIT
/* The remote protocol's framing (packet.h). */
#include "vmm/gdb/packet.h"
#include "firmware/lib/hex.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void gdb_rx_init(struct gdb_rx *rx)
{
	rx->state = RX_IDLE;
	rx->len = 0;
	rx->overflow = false;
	rx->buf[0] = 0;
}

static void put(struct gdb_rx *rx, uint8_t c)
{
	if (rx->len >= GDB_PACKET_MAX) {
		rx->overflow = true;
		return;
	}
	rx->buf[rx->len++] = (char)c;
}

static enum gdb_rx_event idle_byte(struct gdb_rx *rx, uint8_t c)
{
	switch (c) {
	case '$':
		rx->state = RX_DATA;
		rx->len = 0;
		rx->sum = 0;
		rx->overflow = false;
		return GDB_RX_NONE;
	case 0x03:
		return GDB_RX_INTERRUPT;
	case '+':
		return GDB_RX_ACK;
	case '-':
		return GDB_RX_NACK;
	default:
		return GDB_RX_NONE;	/* noise between packets */
	}
}

static enum gdb_rx_event finish(struct gdb_rx *rx)
{
	rx->state = RX_IDLE;
	rx->buf[rx->len] = 0;
	if (rx->overflow)
		return GDB_RX_TOO_LONG;
	if (rx->sum != rx->want)
		return GDB_RX_BAD_CHECKSUM;
	/* A NUL inside would cut the command short: refuse it whole. */
	if (memchr(rx->buf, 0, rx->len))
		return GDB_RX_BAD_CHECKSUM;
	return GDB_RX_PACKET;
}

enum gdb_rx_event gdb_rx_byte(struct gdb_rx *rx, uint8_t c)
{
	int h;

	switch (rx->state) {
	case RX_IDLE:
		return idle_byte(rx, c);
	case RX_DATA:
		if (c == '#') {
			rx->state = RX_SUM1;
			return GDB_RX_NONE;
		}
		if (c == '$') {		/* a new start: the last was cut */
			rx->len = 0;
			rx->sum = 0;
			rx->overflow = false;
			return GDB_RX_NONE;
		}
		rx->sum += c;
		if (c == '}')
			rx->state = RX_ESC;
		else
			put(rx, c);
		return GDB_RX_NONE;
	case RX_ESC:
		rx->sum += c;
		put(rx, c ^ 0x20);
		rx->state = RX_DATA;
		return GDB_RX_NONE;
	case RX_SUM1:
		h = hex_digit(c);
		rx->want = (uint8_t)((h < 0 ? 0 : h) << 4);
		rx->state = h < 0 ? RX_IDLE : RX_SUM2;
		return h < 0 ? GDB_RX_BAD_CHECKSUM : GDB_RX_NONE;
	case RX_SUM2:
		h = hex_digit(c);
		if (h < 0) {
			rx->state = RX_IDLE;
			return GDB_RX_BAD_CHECKSUM;
		}
		rx->want |= (uint8_t)h;
		return finish(rx);
	}
	rx->state = RX_IDLE;
	return GDB_RX_NONE;
}

void gdb_tx_reset(struct gdb_tx *tx)
{
	tx->len = 0;
	tx->overflow = false;
}

static void tx_byte(struct gdb_tx *tx, char c)
{
	bool esc = c == '$' || c == '#' || c == '}' || c == '*';

	if (tx->len + 2 > sizeof(tx->buf)) {
		tx->overflow = true;
		return;
	}
	if (esc) {
		tx->buf[tx->len++] = '}';
		c ^= 0x20;
	}
	tx->buf[tx->len++] = c;
}

void gdb_tx_str(struct gdb_tx *tx, const char *s)
{
	while (*s)
		tx_byte(tx, *s++);
}

void gdb_tx_fmt(struct gdb_tx *tx, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	gdb_tx_str(tx, tmp);
}

void gdb_tx_hex(struct gdb_tx *tx, const void *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++) {
		tx_byte(tx, digits[b[i] >> 4]);
		tx_byte(tx, digits[b[i] & 15]);
	}
}

size_t gdb_tx_frame(struct gdb_tx *tx, char *out, size_t cap)
{
	static const char too_long[] = "E.reply too long";
	const char *p = tx->buf;
	size_t n = tx->len;
	uint8_t sum = 0;

	if (tx->overflow) {
		p = too_long;
		n = sizeof(too_long) - 1;
	}
	if (n + 4 > cap)
		return 0;
	out[0] = '$';
	for (size_t i = 0; i < n; i++) {
		out[1 + i] = p[i];
		sum += (uint8_t)p[i];
	}
	snprintf(out + 1 + n, 4, "#%02x", sum);
	return n + 4;
}

bool gdb_hex_u64(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int n = 0, h;

	while ((h = hex_digit((unsigned char)*s)) >= 0) {
		if (++n > 16)
			return false;
		x = x << 4 | (uint64_t)h;
		s++;
	}
	if (!n)
		return false;
	*v = x;
	*p = s;
	return true;
}

bool gdb_hex_bytes(const char *s, size_t n, uint8_t *out)
{
	for (size_t i = 0; i < n; i++) {
		int hi = hex_digit((unsigned char)s[2 * i]);
		int lo = hi < 0 ? -1 : hex_digit((unsigned char)s[2 * i + 1]);

		if (lo < 0)
			return false;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}
