// SPDX-License-Identifier: MIT
#include "vmm/console/console.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#define CTRL_A	0x01

/* Saved terminal state: file-static because signal handlers and atexit
 * need it and there is only one controlling terminal. */
static struct termios saved_termios;
static volatile int termios_saved;

void console_restore_terminal(void)
{
	if (termios_saved)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_termios);
}

int console_open(struct console *c, enum console_mode mode, const char *file)
{
	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	c->in_fd = -1;
	c->out_fd = -1;
	switch (mode) {
	case CONSOLE_NONE:
		return 0;
	case CONSOLE_STDIO:
		c->out_fd = STDOUT_FILENO;
		c->out_is_tty = isatty(STDOUT_FILENO);
		if (isatty(STDIN_FILENO))
			c->in_fd = STDIN_FILENO;
		return 0;
	case CONSOLE_FILE:
		c->out_fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
				 0644);
		if (c->out_fd < 0) {
			fprintf(stderr, "minivmm: error: --console '%s': %s\n",
				file, strerror(errno));
			return -1;
		}
		c->owns_out = true;
		return 0;
	}
	return -1;
}

void console_enable_input(struct console *c)
{
	struct termios raw;

	if (c->in_fd < 0 || tcgetattr(c->in_fd, &saved_termios) < 0)
		return;
	termios_saved = 1;
	atexit(console_restore_terminal);
	raw = saved_termios;
	cfmakeraw(&raw);
	raw.c_oflag |= OPOST | ONLCR;	/* keep our own messages readable */
	tcsetattr(c->in_fd, TCSANOW, &raw);
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;	/* output gone: nothing better to do */
		p += w;
		n -= (size_t)w;
	}
}

static void flush_src(struct console *c, unsigned int i)
{
	if (c->src[i].len && c->out_fd >= 0)
		write_all(c->out_fd, c->src[i].buf, c->src[i].len);
	c->src[i].len = 0;
}

void console_flush(struct console *c)
{
	pthread_mutex_lock(&c->lock);
	for (unsigned int i = 0; i < CONSOLE_NSRC; i++)
		flush_src(c, i);
	pthread_mutex_unlock(&c->lock);
}

/* A device with a host end of its own: seen like the others (snapshot
 * marker, --timing, progress), written there. */
static void write_own(struct console *c, unsigned int i, const uint8_t *buf,
		      size_t n)
{
	pthread_mutex_lock(&c->lock);
	c->written += n;
	if (c->watch)
		c->watch(c->watch_ctx, buf, n);
	if (c->marks)
		console_marks_feed(c->marks, buf, n);
	chardev_write(c->own[i], buf, n);
	pthread_mutex_unlock(&c->lock);
}

/* Line-buffered to a file or pipe; to a terminal, whatever one call
 * brought (the UART's byte, virtio-console's buffer) at once, where a
 * shell prompt without a newline must appear. */
static void write_from(struct console *c, unsigned int i, const uint8_t *buf,
		       size_t n)
{
	if (c->own[i]) {
		write_own(c, i, buf, n);
		return;
	}
	pthread_mutex_lock(&c->lock);
	c->written += n;
	if (c->watch)
		c->watch(c->watch_ctx, buf, n);
	if (c->marks)
		console_marks_feed(c->marks, buf, n);
	for (size_t k = 0; k < n && c->out_fd >= 0; k++) {
		if (c->src[i].len == CONSOLE_BUF)
			flush_src(c, i);
		c->src[i].buf[c->src[i].len++] = (char)buf[k];
		if (buf[k] == '\n' && !c->out_is_tty)
			flush_src(c, i);
	}
	if (c->out_is_tty)
		flush_src(c, i);
	pthread_mutex_unlock(&c->lock);
}


void console_write(void *ctx, const uint8_t *buf, size_t n)
{
	write_from(ctx, CONSOLE_SRC_UART, buf, n);
}

void console_write_virtio(void *ctx, const uint8_t *buf, size_t n)
{
	write_from(ctx, CONSOLE_SRC_VIRTIO, buf, n);
}

void console_write_com2(void *ctx, const uint8_t *buf, size_t n)
{
	write_from(ctx, CONSOLE_SRC_COM2, buf, n);
}

void console_set_input(struct console *c, enum console_src src,
		       struct chardev_target in)
{
	c->input[src] = in;
	if (c->own[src])
		c->own[src]->in = in;
}

struct chardev_target *console_stdin_target(struct console *c)
{
	if (c->in_fd < 0 || !c->input[c->stdin_src].space)
		return NULL;
	return &c->input[c->stdin_src];
}

enum console_input console_filter(struct console *c, const uint8_t *in,
				  size_t n, uint8_t *out, size_t *out_n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		uint8_t b = in[i];

		if (c->escape) {
			c->escape = false;
			if (b == 'x' || b == 'X') {
				*out_n = k;
				return CONSOLE_INPUT_QUIT;
			}
			if (b == 's' || b == 'S') {
				c->snapshot_key = true;
				continue;
			}
			if (b != CTRL_A)
				continue;	/* unknown escape: dropped */
		} else if (b == CTRL_A) {
			c->escape = true;
			continue;
		}
		out[k++] = b;
	}
	*out_n = k;
	return CONSOLE_INPUT_OK;
}

void console_close(struct console *c)
{
	console_flush(c);
	for (unsigned int i = 0; i < CONSOLE_NSRC; i++) {
		if (!c->own[i])
			continue;
		chardev_close(c->own[i]);
		free(c->own[i]);
		c->own[i] = NULL;
	}
	if (c->owns_out && c->out_fd >= 0) {
		fsync(c->out_fd);
		close(c->out_fd);
	}
	c->out_fd = -1;
	console_restore_terminal();
}

/* Stdin feeds the device --console-device names (the UART by default; a
 * virtio-console given only by --virtio-console does not take it), or,
 * if that one has a host end of its own, the first device still on the
 * shared console. */
static void pick_stdin(struct console *c, const struct vmm_config *cfg,
		       const bool shared[CONSOLE_NSRC])
{
	static const enum console_src order[] = {
		CONSOLE_SRC_UART, CONSOLE_SRC_VIRTIO, CONSOLE_SRC_COM2 };

	c->stdin_src = cfg->console_virtio &&
		       (cfg->stdin_virtio || !cfg->vconsole_given) ?
		       CONSOLE_SRC_VIRTIO : CONSOLE_SRC_UART;
	if (shared[c->stdin_src])
		return;
	for (unsigned int i = 0; i < CONSOLE_NSRC; i++)
		if (shared[order[i]]) {
			c->stdin_src = order[i];
			return;
		}
	c->in_fd = -1;		/* nobody reads stdin: leave the terminal */
}

int console_attach(struct console *c, const struct vmm_config *cfg)
{
	static const char *const what[CONSOLE_NSRC] = {
		[CONSOLE_SRC_UART] = "serial",
		[CONSOLE_SRC_VIRTIO] = "virtio-console",
		[CONSOLE_SRC_COM2] = "serial2",
	};
	const struct serial_opt *o[CONSOLE_NSRC] = {
		[CONSOLE_SRC_UART] = cfg->nserial ? &cfg->serial[0] : NULL,
		[CONSOLE_SRC_VIRTIO] = cfg->vconsole_given ? &cfg->vconsole
							   : NULL,
		[CONSOLE_SRC_COM2] = cfg->com2 ? &cfg->serial[1] : NULL,
	};
	bool shared[CONSOLE_NSRC] = {
		[CONSOLE_SRC_UART] = true,
		[CONSOLE_SRC_VIRTIO] = cfg->console_virtio,
		[CONSOLE_SRC_COM2] = cfg->com2,
	};

	for (unsigned int i = 0; i < CONSOLE_NSRC; i++) {
		if (!shared[i] || !o[i] || o[i]->kind == SERIAL_STDIO)
			continue;
		shared[i] = false;
		c->own[i] = calloc(1, sizeof(*c->own[i]));
		if (!c->own[i]) {
			fprintf(stderr, "minivmm: error: out of memory\n");
			return -1;
		}
		if (chardev_open(c->own[i], o[i], what[i]) < 0)
			return -1;
	}
	pick_stdin(c, cfg, shared);
	return 0;
}

void console_poll_add(struct console *c, struct pollfd *fds, int *tmo)
{
	for (unsigned int i = 0; i < CONSOLE_NSRC; i++) {
		fds[i] = (struct pollfd){ .fd = -1 };
		if (c->own[i])
			chardev_poll_add(c->own[i], &fds[i], tmo);
	}
}

void console_poll_service(struct console *c, const struct pollfd *fds)
{
	for (unsigned int i = 0; i < CONSOLE_NSRC; i++)
		if (c->own[i])
			chardev_poll_service(c->own[i], &fds[i]);
}
