/* SPDX-License-Identifier: MIT */
/*
 * The GDB remote serial protocol's framing: a byte-stream parser that
 * turns what the client sends into events ($packet#xx checked, the
 * interrupt byte 0x03, acks), and the encoder for replies (escaping,
 * checksum).  No sockets, no VM: the stub (server.c) feeds it bytes, the
 * fuzz target and the unit test feed it anything.
 */
#ifndef MINIVMM_GDB_PACKET_H
#define MINIVMM_GDB_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest packet payload accepted (announced as PacketSize). */
#define GDB_PACKET_MAX	16384

enum gdb_rx_event {
	GDB_RX_NONE,		/* byte consumed, nothing complete yet */
	GDB_RX_PACKET,		/* a packet with a good checksum: rx->buf */
	GDB_RX_BAD_CHECKSUM,	/* a packet whose checksum did not match */
	GDB_RX_TOO_LONG,	/* a packet past GDB_PACKET_MAX, dropped */
	GDB_RX_INTERRUPT,	/* 0x03 outside a packet */
	GDB_RX_ACK,		/* '+' */
	GDB_RX_NACK,		/* '-' */
};

struct gdb_rx {
	enum { RX_IDLE, RX_DATA, RX_ESC, RX_SUM1, RX_SUM2 } state;
	uint8_t sum, want;
	bool overflow;
	size_t len;
	char buf[GDB_PACKET_MAX + 1];	/* payload, unescaped, NUL-ended */
};

void gdb_rx_init(struct gdb_rx *rx);
/* Feeds one byte; returns what it completed. */
enum gdb_rx_event gdb_rx_byte(struct gdb_rx *rx, uint8_t c);

/* A reply being built: payload bytes, then gdb_tx_frame. */
struct gdb_tx {
	size_t len;
	bool overflow;
	char buf[2 * GDB_PACKET_MAX + 8];
};

void gdb_tx_reset(struct gdb_tx *tx);
/* Appends payload text, escaping $ # } * as the protocol wants. */
void gdb_tx_str(struct gdb_tx *tx, const char *s);
void gdb_tx_fmt(struct gdb_tx *tx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Appends n bytes as hex, two digits each, in memory order. */
void gdb_tx_hex(struct gdb_tx *tx, const void *p, size_t n);
/* Frames the payload: fills out with "$payload#xx" and returns its
 * length (out holds sizeof(tx->buf) + 4 bytes); an overflowed payload
 * becomes the error "E.reply too long". */
size_t gdb_tx_frame(struct gdb_tx *tx, char *out, size_t cap);

/* Hex helpers for the command parsers.  Each returns false on a bad or
 * overlong number and advances *p past what it read. */
bool gdb_hex_u64(const char **p, uint64_t *v);
/* Decodes 2*n hex digits at s into out; false if any is not hex. */
bool gdb_hex_bytes(const char *s, size_t n, uint8_t *out);

#endif
