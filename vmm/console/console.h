/* SPDX-License-Identifier: MIT */
/*
 * The host side of the guest console: where guest console output goes
 * (stdout, a file, or nowhere), terminal raw mode while stdin feeds the
 * guest's console device (the UART, or virtio-console with
 * --console-device virtio), and the Ctrl-A escape (Ctrl-A x quits,
 * Ctrl-A s asks for a snapshot, Ctrl-A Ctrl-A sends Ctrl-A).  Output comes
 * from two sources, the UART and virtio-console, each line-buffered on
 * its own so that lines of one never break into lines of the other in a
 * file or pipe.  The terminal is restored on every exit path, including
 * fatal signals.
 */
#ifndef MINIVMM_CONSOLE_H
#define MINIVMM_CONSOLE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/cli/cli.h"
#include "vmm/console/console_marks.h"

#define CONSOLE_BUF	4096

/* Output sources, each with its own line buffer. */
enum console_src { CONSOLE_SRC_UART, CONSOLE_SRC_VIRTIO, CONSOLE_NSRC };

/* The guest device stdin feeds: free space in its receive buffer, and
 * taking bytes (returns how many it took). */
struct console_target {
	size_t (*space)(void *ctx);
	size_t (*receive)(void *ctx, const uint8_t *buf, size_t n);
	void *ctx;
};

struct console {
	int out_fd;		/* -1: output discarded */
	bool out_is_tty;
	bool owns_out;
	int in_fd;		/* -1: no input */
	bool escape;		/* saw Ctrl-A */
	bool snapshot_key;	/* saw Ctrl-A s (cleared by the reader) */
	/* Sees every byte of guest output from either source, in the
	 * order they were written, even with --console none (the snapshot
	 * console marker); NULL: none.  Called under lock. */
	void (*watch)(void *ctx, const uint8_t *buf, size_t n);
	void *watch_ctx;
	struct console_marks *marks;	/* --timing's console milestones */
	struct console_target input;	/* .space NULL: none */
	pthread_mutex_t lock;		/* the buffers, watch calls */
	uint64_t written;		/* guest output bytes (under lock;
					 * --stall-timeout reads it racily) */
	struct {
		char buf[CONSOLE_BUF];
		size_t len;
	} src[CONSOLE_NSRC];
};

/* Opens the output (a FILE is created/truncated).  -1 with a message. */
int console_open(struct console *c, enum console_mode mode, const char *file);
/* Puts the terminal in raw mode if stdin is a terminal and used for input. */
void console_enable_input(struct console *c);
void console_close(struct console *c);
/* Sinks for UART and virtio-console output (ctx = the console; they
 * match struct uart_sink and struct vconsole_sink). */
void console_write(void *ctx, const uint8_t *buf, size_t n);
void console_write_virtio(void *ctx, const uint8_t *buf, size_t n);
/* Input goes to in from now on (set-up time: the UART, then virtio). */
void console_set_input(struct console *c, struct console_target in);
void console_flush(struct console *c);

enum console_input { CONSOLE_INPUT_OK, CONSOLE_INPUT_QUIT, CONSOLE_INPUT_EOF };
/* Filters raw input bytes through the escape logic into out (at most n
 * bytes); *out_n receives how many to deliver to the guest. */
enum console_input console_filter(struct console *c, const uint8_t *in,
				  size_t n, uint8_t *out, size_t *out_n);

/* Restores the terminal; async-signal-safe. */
void console_restore_terminal(void);

#endif
