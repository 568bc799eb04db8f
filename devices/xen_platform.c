// SPDX-License-Identifier: MIT
/*
 * Xen platform PCI device: config space, BAR0 bytes, the fixed legacy
 * ports (0x10-0x1F: Xen docs/misc/hvm-emulated-unplug.pandoc) and the
 * line-buffered driver log.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/xen_platform.h"
#include "firmware/lib/le.h"

struct xen_platform {
	struct pci_fn fn;
	struct xen_platform_config conf;
	pthread_mutex_t lock;		/* ports and BAR0, from any vCPU */
	struct xen_platform_stats stats;
	unsigned int log_len;
	char log_buf[XEN_PLATFORM_LOG_MAX];
};

static void log_emit(struct xen_platform *xp)
{
	const size_t plen = sizeof(XEN_PLATFORM_LOG_PREFIX) - 1;
	char line[sizeof(XEN_PLATFORM_LOG_PREFIX) + XEN_PLATFORM_LOG_MAX];

	memcpy(line, XEN_PLATFORM_LOG_PREFIX, plen);
	memcpy(line + plen, xp->log_buf, xp->log_len);
	line[plen + xp->log_len] = '\0';
	xp->log_len = 0;
	xp->stats.log_lines++;
	if (xp->conf.log)
		xp->conf.log(xp->conf.log_ctx, line);
	else
		fprintf(stderr, "%s\n", line);
}

/* The guest controls these bytes: keep terminal escapes and NULs out of
 * the host log, drop CR (CRLF line ends), flush on LF or a full buffer. */
static void log_byte(struct xen_platform *xp, uint8_t c)
{
	xp->stats.log_bytes++;
	if (c == '\n') {
		log_emit(xp);
		return;
	}
	if (c == '\r')
		return;
	xp->log_buf[xp->log_len++] = (c >= 0x20 && c < 0x7f) ? (char)c : '.';
	if (xp->log_len == XEN_PLATFORM_LOG_MAX)
		log_emit(xp);
}

static void unplug(struct xen_platform *xp, uint16_t mask)
{
	xp->stats.unplug_mask = mask;
	xp->stats.unplug_writes++;
}

static void legacy_read(void *opaque, uint64_t off, uint8_t *data,
			uint32_t len)
{
	struct xen_platform *xp = opaque;

	memset(data, 0xff, len);
	pthread_mutex_lock(&xp->lock);
	if (off == 0 && len == 2) {
		xp->stats.magic_reads++;
		data[0] = XEN_PLATFORM_MAGIC & 0xff;
		data[1] = XEN_PLATFORM_MAGIC >> 8;
	} else if (off == 0 && len == 1) {
		data[0] = xp->stats.flags;
	} else if (off == 2 && len == 1) {
		data[0] = XEN_PLATFORM_PROTOCOL;
	}
	pthread_mutex_unlock(&xp->lock);
}

static void legacy_write(void *opaque, uint64_t off, const uint8_t *data,
			 uint32_t len)
{
	struct xen_platform *xp = opaque;
	uint32_t v = le_get(data, len);

	pthread_mutex_lock(&xp->lock);
	if (off == 0 && len == 2) {
		unplug(xp, (uint16_t)v);
	} else if (off == 0 && len == 1) {
		xp->stats.flags = v & XEN_PFFLAG_ROM_LOCK;
	} else if (off == 0 && len == 4) {
		xp->stats.build = v;
		xp->stats.build_set = true;
	} else if (off == 2 && len == 2) {
		xp->stats.product = (uint16_t)v;
		xp->stats.product_set = true;
	} else if (off == 2 && len == 1) {
		log_byte(xp, (uint8_t)v);
	}
	pthread_mutex_unlock(&xp->lock);
}

const struct bus_ops xen_platform_legacy_ops = {
	.read = legacy_read,
	.write = legacy_write,
};

static void bar0_read(void *opaque, uint64_t off, uint8_t *data,
		      uint32_t len)
{
	struct xen_platform *xp = opaque;

	pthread_mutex_lock(&xp->lock);
	for (uint32_t i = 0; i < len; i++)
		data[i] = off + i == 0 ? xp->stats.flags : 0xff;
	pthread_mutex_unlock(&xp->lock);
}

static void bar0_write_byte(struct xen_platform *xp, uint64_t off, uint8_t v)
{
	if (off == 0)
		xp->stats.flags = v & XEN_PFFLAG_ROM_LOCK;
	else if (off == 4 && v == 1)
		unplug(xp, XEN_UNPLUG_ALL_IDE_DISKS | XEN_UNPLUG_ALL_NICS);
	else if (off == 8 && v == 1)
		unplug(xp, XEN_UNPLUG_ALL_IDE_DISKS);
	else if (off == 8 && v == 2)
		unplug(xp, XEN_UNPLUG_ALL_NICS);
}

static void bar0_write(void *opaque, uint64_t off, const uint8_t *data,
		       uint32_t len)
{
	struct xen_platform *xp = opaque;

	pthread_mutex_lock(&xp->lock);
	for (uint32_t i = 0; i < len; i++)
		bar0_write_byte(xp, off + i, data[i]);
	pthread_mutex_unlock(&xp->lock);
}

const struct bus_ops xen_platform_bar0_ops = {
	.read = bar0_read,
	.write = bar0_write,
};

static void xen_platform_release(struct pci_fn *fn)
{
	struct xen_platform *xp = fn->opaque;

	if (xp->log_len)
		log_emit(xp);
	pthread_mutex_destroy(&xp->lock);
	free(xp);
}

static int add_bars(struct xen_platform *xp)
{
	const struct pci_bar_desc io = {
		.kind = PCI_BAR_IO,
		.size = XEN_PLATFORM_BAR0_SIZE,
		.ops = &xen_platform_bar0_ops,
		.opaque = xp,
		.name = "xen-platform-io",
	};
	const struct pci_bar_desc mem = {
		.kind = PCI_BAR_MEM32,
		.size = XEN_PLATFORM_BAR1_SIZE,
		.prefetch = true,
		.ram = true,
		.name = "xen-platform-mmio",
	};

	if (pci_fn_add_bar(&xp->fn, 0, &io))
		return -1;
	return pci_fn_add_bar(&xp->fn, 1, &mem);
}

struct xen_platform *
xen_platform_create(struct pci_bus *bus, uint32_t bdf,
		    const struct xen_platform_config *conf)
{
	const struct pci_fn_id id = {
		.vendor = XEN_PLATFORM_VENDOR,
		.device = XEN_PLATFORM_DEVICE,
		.subsys_vendor = XEN_PLATFORM_VENDOR,
		.subsys_id = XEN_PLATFORM_DEVICE,
		.class_code = XEN_PLATFORM_CLASS,
		.revision = XEN_PLATFORM_REVISION,
		.irq_pin = 1,
	};
	struct xen_platform *xp = calloc(1, sizeof(*xp));
	uint8_t *page = pci_bus_alloc_page(bus);

	if (!xp || !page)
		goto fail;
	if (pci_fn_init(&xp->fn, page, &id, "xen-platform") || add_bars(xp))
		goto fail;
	if (conf)
		xp->conf = *conf;
	xp->fn.opaque = xp;
	xp->fn.release = xen_platform_release;
	pthread_mutex_init(&xp->lock, NULL);
	if (pci_bus_add_function(bus, bdf, &xp->fn)) {
		pthread_mutex_destroy(&xp->lock);
		goto fail;
	}
	return xp;
fail:
	pci_bus_free_page(bus, page);
	free(xp);
	return NULL;
}

struct pci_fn *xen_platform_fn(struct xen_platform *xp)
{
	return &xp->fn;
}

void xen_platform_get_stats(struct xen_platform *xp,
			    struct xen_platform_stats *out)
{
	pthread_mutex_lock(&xp->lock);
	*out = xp->stats;
	pthread_mutex_unlock(&xp->lock);
}

void xen_platform_get_state(struct xen_platform *xp,
			    struct xen_platform_state *s)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_lock(&xp->lock);
	s->flags = xp->stats.flags;
	s->product_set = xp->stats.product_set;
	s->build_set = xp->stats.build_set;
	s->unplug_mask = xp->stats.unplug_mask;
	s->product = xp->stats.product;
	s->build = xp->stats.build;
	s->log_len = xp->log_len;
	s->unplug_writes = xp->stats.unplug_writes;
	s->magic_reads = xp->stats.magic_reads;
	s->log_lines = xp->stats.log_lines;
	s->log_bytes = xp->stats.log_bytes;
	memcpy(s->log_buf, xp->log_buf, xp->log_len);
	pthread_mutex_unlock(&xp->lock);
}

int xen_platform_set_state(struct xen_platform *xp,
			   const struct xen_platform_state *s)
{
	if ((s->flags & ~XEN_PFFLAG_ROM_LOCK) || s->product_set > 1 ||
	    s->build_set > 1 || s->reserved ||
	    s->log_len >= XEN_PLATFORM_LOG_MAX)
		return -1;
	pthread_mutex_lock(&xp->lock);
	xp->stats.flags = s->flags;
	xp->stats.product_set = s->product_set;
	xp->stats.build_set = s->build_set;
	xp->stats.unplug_mask = s->unplug_mask;
	xp->stats.product = s->product;
	xp->stats.build = s->build;
	xp->stats.unplug_writes = s->unplug_writes;
	xp->stats.magic_reads = s->magic_reads;
	xp->stats.log_lines = s->log_lines;
	xp->stats.log_bytes = s->log_bytes;
	xp->log_len = s->log_len;
	memcpy(xp->log_buf, s->log_buf, s->log_len);
	pthread_mutex_unlock(&xp->lock);
	return 0;
}
