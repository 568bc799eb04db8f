/* SPDX-License-Identifier: MIT */
/*
 * The host side of the guest console: where UART output goes (stdout, a
 * file, or nowhere), terminal raw mode while stdin feeds the UART, and the
 * Ctrl-A escape (Ctrl-A x quits, Ctrl-A s asks for a snapshot, Ctrl-A
 * Ctrl-A sends Ctrl-A).  The terminal
 * is restored on every exit path, including fatal signals.
 */
#ifndef MINIVMM_CONSOLE_H
#define MINIVMM_CONSOLE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/cli.h"
#include "vmm/console_marks.h"

#define CONSOLE_BUF	4096

struct console {
	int out_fd;		/* -1: output discarded */
	bool out_is_tty;
	bool owns_out;
	int in_fd;		/* -1: no input */
	bool escape;		/* saw Ctrl-A */
	bool snapshot_key;	/* saw Ctrl-A s (cleared by the reader) */
	/* Sees every byte of guest output, even with --console none (the
	 * snapshot console marker); NULL: none.  Called under no lock. */
	void (*watch)(void *ctx, const uint8_t *buf, size_t n);
	void *watch_ctx;
	struct console_marks *marks;	/* --timing's console milestones */
	pthread_mutex_t lock;
	char buf[CONSOLE_BUF];
	size_t len;
};

/* Opens the output (a FILE is created/truncated).  -1 with a message. */
int console_open(struct console *c, enum console_mode mode, const char *file);
/* Puts the terminal in raw mode if stdin is a terminal and used for input. */
void console_enable_input(struct console *c);
void console_close(struct console *c);
/* Sink for UART output (matches struct uart_sink.write). */
void console_write(void *ctx, const uint8_t *buf, size_t n);
void console_flush(struct console *c);

enum console_input { CONSOLE_INPUT_OK, CONSOLE_INPUT_QUIT, CONSOLE_INPUT_EOF };
/* Filters raw input bytes through the escape logic into out (at most n
 * bytes); *out_n receives how many to deliver to the guest. */
enum console_input console_filter(struct console *c, const uint8_t *in,
				  size_t n, uint8_t *out, size_t *out_n);

/* Restores the terminal; async-signal-safe. */
void console_restore_terminal(void);

#endif
