/* SPDX-License-Identifier: MIT */
/*
 * The host side of the guest consoles.  Three devices write output: COM1,
 * virtio-console and COM2.  Each goes either to the shared console
 * (stdout, --console's file, or nowhere), line-buffered on its own so
 * that lines of one never break into lines of another in a file or pipe,
 * or to a host end of its own (--serial, --virtio-console: a pty, a unix
 * socket, a file; chardev.h), whose input feeds that device.  Stdin, when
 * it is a terminal, feeds one device on the shared console (the UART, or
 * virtio-console with --console-device virtio) in raw mode, through the
 * Ctrl-A escape (Ctrl-A x quits, Ctrl-A s asks for a snapshot, Ctrl-A
 * Ctrl-A sends Ctrl-A): only there, never on a socket or pty.  The
 * terminal is restored on every exit path, including fatal signals.
 */
#ifndef MINIVMM_CONSOLE_H
#define MINIVMM_CONSOLE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/cli/cli.h"
#include "vmm/console/chardev.h"
#include "vmm/console/console_marks.h"

#define CONSOLE_BUF	4096

/* Output sources (devices), each with its own line buffer. */
enum console_src {
	CONSOLE_SRC_UART, CONSOLE_SRC_VIRTIO, CONSOLE_SRC_COM2, CONSOLE_NSRC
};

/* Room for the pollfds console_poll_add fills. */
#define CONSOLE_POLL_FDS	CONSOLE_NSRC

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
	struct chardev_target input[CONSOLE_NSRC];	/* .space NULL: none */
	enum console_src stdin_src;	/* the device stdin feeds */
	struct chardev *own[CONSOLE_NSRC];	/* NULL: the shared output */
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
/* Gives each device cfg names its host end (--serial, --virtio-console)
 * and picks the device stdin feeds.  -1 with a message. */
int console_attach(struct console *c, const struct vmm_config *cfg);
/* Puts the terminal in raw mode if stdin is a terminal and used for input. */
void console_enable_input(struct console *c);
void console_close(struct console *c);
/* Sinks for UART and virtio-console output (ctx = the console; they
 * match struct uart_sink and struct vconsole_sink). */
void console_write(void *ctx, const uint8_t *buf, size_t n);
void console_write_virtio(void *ctx, const uint8_t *buf, size_t n);
void console_write_com2(void *ctx, const uint8_t *buf, size_t n);
/* Device src takes input through in (set-up time). */
void console_set_input(struct console *c, enum console_src src,
		       struct chardev_target in);
/* What stdin feeds (NULL: nothing). */
struct chardev_target *console_stdin_target(struct console *c);
/* The host ends' sockets and terminals in the main loop (chardev.h);
 * fds has room for CONSOLE_POLL_FDS. */
void console_poll_add(struct console *c, struct pollfd *fds, int *tmo);
void console_poll_service(struct console *c, const struct pollfd *fds);
void console_flush(struct console *c);

enum console_input { CONSOLE_INPUT_OK, CONSOLE_INPUT_QUIT, CONSOLE_INPUT_EOF };
/* Filters raw input bytes through the escape logic into out (at most n
 * bytes); *out_n receives how many to deliver to the guest. */
enum console_input console_filter(struct console *c, const uint8_t *in,
				  size_t n, uint8_t *out, size_t *out_n);

/* Restores the terminal; async-signal-safe. */
void console_restore_terminal(void);

#endif
