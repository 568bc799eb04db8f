// SPDX-License-Identifier: MIT
#include "devices/test/pc_testdev.h"

#include <string.h>

#define OFF_FLUSH	4
#define OFF_BYTES	8

void pc_testdev_init(struct pc_testdev *d,
		     void (*irq_line)(void *ctx, uint32_t line, int level),
		     void (*flush_page)(void *ctx, uint64_t gpa), void *ctx)
{
	memset(d, 0, sizeof(*d));
	pthread_mutex_init(&d->lock, NULL);
	d->irq_line = irq_line;
	d->flush_page = flush_page;
	d->ctx = ctx;
}

void pc_testdev_destroy(struct pc_testdev *d)
{
	pthread_mutex_destroy(&d->lock);
}

void pc_testdev_get_state(struct pc_testdev *d, struct pc_testdev_state *s)
{
	pthread_mutex_lock(&d->lock);
	s->scratch = d->scratch;
	s->levels = d->levels;
	memcpy(s->iomem, d->iomem, sizeof(s->iomem));
	pthread_mutex_unlock(&d->lock);
}

int pc_testdev_set_state(struct pc_testdev *d,
			 const struct pc_testdev_state *s)
{
	if (s->levels >> PC_TESTDEV_IRQ_LINES)
		return -1;
	pthread_mutex_lock(&d->lock);
	d->scratch = s->scratch;
	d->levels = s->levels;
	memcpy(d->iomem, s->iomem, sizeof(d->iomem));
	for (uint32_t n = 0; n < PC_TESTDEV_IRQ_LINES && d->irq_line; n++)
		if (d->levels & 1u << n)
			d->irq_line(d->ctx, n, 1);
	pthread_mutex_unlock(&d->lock);
	return 0;
}

/* Byte i of the scratch register for port offset off (0xe0 and 0xe8
 * alias it); 4 or more for the flush port. */
static unsigned int scratch_byte(uint64_t off)
{
	return off < OFF_FLUSH ? (unsigned int)off :
	       off >= OFF_BYTES ? (unsigned int)(off - OFF_BYTES) : 4;
}

static void port_read(void *opaque, uint64_t off, uint8_t *data, uint32_t len)
{
	struct pc_testdev *d = opaque;

	pthread_mutex_lock(&d->lock);
	for (uint32_t i = 0; i < len; i++) {
		unsigned int b = scratch_byte(off + i);

		/* Bytes past the register read as an unclaimed port. */
		data[i] = off + i < PC_TESTDEV_PORTS_LEN && b < 4 ?
			  (uint8_t)(d->scratch >> 8 * b) : 0xff;
	}
	pthread_mutex_unlock(&d->lock);
}

static void port_write(void *opaque, uint64_t off, const uint8_t *data,
		       uint32_t len)
{
	struct pc_testdev *d = opaque;

	if (off == OFF_FLUSH) {
		uint32_t gpa = 0;

		if (len == 4 && d->flush_page) {
			memcpy(&gpa, data, 4);
			d->flush_page(d->ctx, gpa & ~0xfffull);
		}
		return;
	}
	pthread_mutex_lock(&d->lock);
	for (uint32_t i = 0; i < len; i++) {
		unsigned int b = scratch_byte(off + i);

		if (off + i >= PC_TESTDEV_PORTS_LEN || b >= 4)
			break;
		d->scratch &= ~(0xffu << 8 * b);
		d->scratch |= (uint32_t)data[i] << 8 * b;
	}
	pthread_mutex_unlock(&d->lock);
}

static void irq_read(void *opaque, uint64_t off, uint8_t *data, uint32_t len)
{
	(void)opaque;
	(void)off;
	memset(data, 0xff, len);
}

static void irq_write(void *opaque, uint64_t off, const uint8_t *data,
		      uint32_t len)
{
	struct pc_testdev *d = opaque;

	if (len != 1 || off >= PC_TESTDEV_IRQ_LINES || !d->irq_line)
		return;
	/* Under the lock, so that a snapshot's levels are the lines'. */
	pthread_mutex_lock(&d->lock);
	if (data[0])
		d->levels |= 1u << off;
	else
		d->levels &= ~(1u << off);
	d->irq_line(d->ctx, (uint32_t)off, data[0] != 0);
	pthread_mutex_unlock(&d->lock);
}

static void iomem_read(void *opaque, uint64_t off, uint8_t *data,
		       uint32_t len)
{
	struct pc_testdev *d = opaque;

	if (off >= PC_TESTDEV_IOMEM_LEN || len > PC_TESTDEV_IOMEM_LEN - off)
		return;		/* the bus clips: never here */
	pthread_mutex_lock(&d->lock);
	memcpy(data, d->iomem + off, len);
	pthread_mutex_unlock(&d->lock);
}

static void iomem_write(void *opaque, uint64_t off, const uint8_t *data,
			uint32_t len)
{
	struct pc_testdev *d = opaque;

	if (off >= PC_TESTDEV_IOMEM_LEN || len > PC_TESTDEV_IOMEM_LEN - off)
		return;
	pthread_mutex_lock(&d->lock);
	memcpy(d->iomem + off, data, len);
	pthread_mutex_unlock(&d->lock);
}

const struct bus_ops pc_testdev_port_ops = {
	.read = port_read, .write = port_write,
};
const struct bus_ops pc_testdev_irq_ops = {
	.read = irq_read, .write = irq_write,
};
const struct bus_ops pc_testdev_iomem_ops = {
	.read = iomem_read, .write = iomem_write,
};
