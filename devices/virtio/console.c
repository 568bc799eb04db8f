// SPDX-License-Identifier: MIT
/*
 * virtio-console, port 0 only: the transmit queue is drained into the
 * sink in the device thread; host input is buffered here and handed to
 * the driver's receive buffers by the same thread, which the input side
 * wakes with virtio_pci_poke().  Receive buffers are taken only while
 * input is waiting, so a driver's posted buffers stay in the ring until
 * there is something to put in them.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "devices/virtio/console.h"

struct virtio_console {
	struct virtio_pci *vp;
	struct vconsole_sink out;
	pthread_mutex_t in_lock;	/* the input ring */
	uint8_t in[VCONSOLE_IN_BUF];
	size_t in_head, in_len;		/* ring: oldest byte, bytes held */
	struct vq_chain chain;
};

/* --- host input ------------------------------------------------------------ */

size_t virtio_console_rx_space(void *dev)
{
	struct virtio_console *c = dev;
	size_t space;

	pthread_mutex_lock(&c->in_lock);
	space = VCONSOLE_IN_BUF - c->in_len;
	pthread_mutex_unlock(&c->in_lock);
	return space;
}

size_t virtio_console_receive(void *dev, const uint8_t *buf, size_t n)
{
	struct virtio_console *c = dev;
	size_t done = 0;

	pthread_mutex_lock(&c->in_lock);
	while (done < n && c->in_len < VCONSOLE_IN_BUF) {
		c->in[(c->in_head + c->in_len) % VCONSOLE_IN_BUF] = buf[done++];
		c->in_len++;
	}
	pthread_mutex_unlock(&c->in_lock);
	if (done)
		virtio_pci_poke(c->vp);
	return done;
}

static bool have_input(void *dev)
{
	struct virtio_console *c = dev;
	bool any;

	pthread_mutex_lock(&c->in_lock);
	any = c->in_len > 0;
	pthread_mutex_unlock(&c->in_lock);
	return any;
}

/* One receive buffer chain: as much waiting input as fits. */
static uint32_t rx_handle(void *dev, struct vq_chain *ch)
{
	struct virtio_console *c = dev;
	uint64_t room = ch->in_len, done = 0;

	pthread_mutex_lock(&c->in_lock);
	while (done < room && c->in_len) {
		size_t run = VCONSOLE_IN_BUF - c->in_head;

		if (run > c->in_len)
			run = c->in_len;
		if (run > room - done)
			run = (size_t)(room - done);
		vq_copy_to(ch, done, c->in + c->in_head, run);
		done += run;
		c->in_head = (c->in_head + run) % VCONSOLE_IN_BUF;
		c->in_len -= run;
	}
	pthread_mutex_unlock(&c->in_lock);
	atomic_fetch_add(&c->vp->stats.bytes_read, done);
	return (uint32_t)done;
}

/* --- guest output ------------------------------------------------------------ */

/* Each readable buffer straight from guest RAM to the sink; writable
 * buffers in a transmit chain are ignored (nothing is written back). */
static uint32_t tx_handle(void *dev, struct vq_chain *ch)
{
	struct virtio_console *c = dev;

	for (unsigned int i = 0; i < ch->n_out; i++)
		if (ch->iov[i].iov_len)
			c->out.write(c->out.ctx, ch->iov[i].iov_base,
				     ch->iov[i].iov_len);
	atomic_fetch_add(&c->vp->stats.bytes_written, ch->out_len);
	return 0;
}

static void process(void *dev, struct virtio_pci *vp, unsigned int q)
{
	struct virtio_console *c = dev;

	if (q == VIRTIO_CONSOLE_RXQ)
		virtio_serve_while(vp, q, &c->chain, rx_handle, c, have_input);
	else
		virtio_serve(vp, q, &c->chain, tx_handle, c);
}

/* --- configuration ----------------------------------------------------------- */

static void cfg_read(void *dev, unsigned int off, uint8_t *data,
		     unsigned int len)
{
	/* cols, rows 0 (no VIRTIO_CONSOLE_F_SIZE); max_nr_ports 1 (read
	 * only with MULTIPORT, which is not offered); emerg_wr reads 0. */
	uint8_t cfg[VIRTIO_CONSOLE_CFG_SIZEOF] = { 0 };

	(void)dev;
	cfg[VIRTIO_CONSOLE_CFG_MAX_NR_PORTS] = 1;
	memcpy(data, cfg + off, len);
}

/* Any write that covers emerg_wr's low byte sends that byte (5.3.6.3);
 * the driver may use it before the queues are set up. */
static void cfg_write(void *dev, unsigned int off, const uint8_t *data,
		      unsigned int len)
{
	struct virtio_console *c = dev;

	if (off > VIRTIO_CONSOLE_CFG_EMERG_WR ||
	    off + len <= VIRTIO_CONSOLE_CFG_EMERG_WR)
		return;
	c->out.write(c->out.ctx, data + (VIRTIO_CONSOLE_CFG_EMERG_WR - off),
		     1);
	atomic_fetch_add(&c->vp->stats.bytes_written, 1);
}

static void release(void *dev)
{
	struct virtio_console *c = dev;

	pthread_mutex_destroy(&c->in_lock);
	free(c);
}

static const struct virtio_device_ops console_ops = {
	.name = "virtio-console",
	.type = VIRTIO_ID_CONSOLE,
	.class_code = 0x078000,		/* simple communication, other */
	.nqueues = 2,
	.queue_max = VCONSOLE_QUEUE_MAX,
	.features = 1ull << VIRTIO_CONSOLE_F_EMERG_WRITE,
	.cfg_size = VIRTIO_CONSOLE_CFG_SIZEOF,
	.cfg_read = cfg_read,
	.cfg_write = cfg_write,
	.process = process,
	.release = release,
};

struct virtio_console *virtio_console_create(struct pci_bus *bus,
					     uint32_t bdf,
					     struct vconsole_sink out,
					     const struct virtio_host *host,
					     const char *name)
{
	struct virtio_console *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->out = out;
	pthread_mutex_init(&c->in_lock, NULL);
	c->vp = virtio_pci_create(bus, bdf, &console_ops, c, host, name);
	if (!c->vp) {
		pthread_mutex_destroy(&c->in_lock);
		free(c);
		return NULL;
	}
	return c;
}

struct virtio_pci *virtio_console_pci(struct virtio_console *c)
{
	return c->vp;
}

/* --- snapshots ------------------------------------------------------------------ */

void virtio_console_get_state(struct virtio_console *c,
			      struct vconsole_state *s)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_lock(&c->in_lock);
	s->len = (uint32_t)c->in_len;
	for (size_t i = 0; i < c->in_len; i++)
		s->buf[i] = c->in[(c->in_head + i) % VCONSOLE_IN_BUF];
	pthread_mutex_unlock(&c->in_lock);
}

int virtio_console_set_state(struct virtio_console *c,
			     const struct vconsole_state *s)
{
	if (s->len > VCONSOLE_IN_BUF)
		return -1;
	pthread_mutex_lock(&c->in_lock);
	memcpy(c->in, s->buf, s->len);
	c->in_head = 0;
	c->in_len = s->len;
	pthread_mutex_unlock(&c->in_lock);
	if (s->len)
		virtio_pci_poke(c->vp);
	return 0;
}
