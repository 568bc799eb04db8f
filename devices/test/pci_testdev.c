// SPDX-License-Identifier: MIT
#include "devices/test/pci_testdev.h"
#include "firmware/lib/le.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define HDR_TEST	0
#define HDR_WIDTH	1
#define HDR_OFFSET	4
#define HDR_DATA	8
#define HDR_COUNT	12
#define HDR_NAME	16
#define NAME_MAX_LEN	32
#define NTESTS		(2 * PCI_TESTDEV_TESTS)

static const char *const kinds[PCI_TESTDEV_TESTS] = {
	"no-eventfd", "wildcard-eventfd", "datamatch-eventfd",
};

struct test {
	uint8_t hdr[HDR_NAME + NAME_MAX_LEN];
	unsigned int size;		/* header and name with its NUL */
	bool match_data;
	int fd;				/* eventfd tests; else -1 */
	bool assigned;
	uint64_t at;			/* where it was assigned */
};

struct pci_testdev {
	struct pci_fn fn;
	pthread_mutex_t lock;
	struct pci_testdev_ops ops;
	struct test t[NTESTS];		/* memory BAR's, then I/O BAR's */
	int current;			/* -1: none (one for both BARs) */
	bool mapped[2];
	uint64_t base[2];
};

/* Assigning uses the BAR's present address; deassigning the one the
 * assignment used. */
static void arm(struct pci_testdev *d, int t, bool on)
{
	struct test *x = &d->t[t];
	int bar = t / PCI_TESTDEV_TESTS;
	struct pci_testdev_ioeventfd e = {
		.pio = bar == 1, .len = x->hdr[HDR_WIDTH],
		.datamatch = x->match_data, .data = le32_get(x->hdr + HDR_DATA),
		.fd = x->fd,
	};

	if (x->fd < 0 || !d->ops.ioeventfd || x->assigned == on ||
	    (on && !d->mapped[bar]))
		return;
	e.addr = on ? d->base[bar] + le32_get(x->hdr + HDR_OFFSET) : x->at;
	if (d->ops.ioeventfd(d->ops.ctx, &e, on) == 0 || !on) {
		x->assigned = on;
		x->at = e.addr;
	}
}

static void select_test(struct pci_testdev *d, int bar, uint8_t n)
{
	if (d->current >= 0)
		arm(d, d->current, false);
	d->current = -1;
	if (n >= PCI_TESTDEV_TESTS)
		return;
	d->current = bar * PCI_TESTDEV_TESTS + n;
	arm(d, d->current, true);
}

static void count_write(struct pci_testdev *d, uint64_t off,
			const uint8_t *data, uint32_t len)
{
	struct test *x = &d->t[d->current];
	uint32_t v = (uint32_t)le_get(data, len < 4 ? len : 4);

	if (off != le32_get(x->hdr + HDR_OFFSET))
		return;
	if (x->match_data && (len != x->hdr[HDR_WIDTH] ||
			      v != le32_get(x->hdr + HDR_DATA)))
		return;
	le32_put(x->hdr + HDR_COUNT, le32_get(x->hdr + HDR_COUNT) + 1);
}

static void bar_write(struct pci_testdev *d, int bar, uint64_t off,
		      const uint8_t *data, uint32_t len)
{
	pthread_mutex_lock(&d->lock);
	if (off == HDR_TEST)
		select_test(d, bar, data[0]);
	else if (d->current >= 0)
		count_write(d, off, data, len);
	pthread_mutex_unlock(&d->lock);
}

static void bar_read(struct pci_testdev *d, uint64_t off, uint8_t *data,
		     uint32_t len)
{
	struct test *x;
	uint64_t drained;

	memset(data, 0, len);
	pthread_mutex_lock(&d->lock);
	x = d->current >= 0 ? &d->t[d->current] : NULL;
	if (x && off + len < x->size) {
		if (x->fd >= 0 && read(x->fd, &drained, 8) < 0)
			drained = 0;	/* nothing pending: fine */
		memcpy(data, x->hdr + off, len);
	}
	pthread_mutex_unlock(&d->lock);
}

static void mem_read(void *o, uint64_t off, uint8_t *data, uint32_t len)
{
	bar_read(o, off, data, len);
}

static void mem_write(void *o, uint64_t off, const uint8_t *data, uint32_t len)
{
	bar_write(o, 0, off, data, len);
}

static void io_read(void *o, uint64_t off, uint8_t *data, uint32_t len)
{
	bar_read(o, off, data, len);
}

static void io_write(void *o, uint64_t off, const uint8_t *data, uint32_t len)
{
	bar_write(o, 1, off, data, len);
}

static const struct bus_ops mem_ops = { mem_read, mem_write };
static const struct bus_ops io_ops = { io_read, io_write };

static void init_tests(struct pci_testdev *d)
{
	for (int i = 0; i < NTESTS; i++) {
		struct test *x = &d->t[i];
		int k = i % PCI_TESTDEV_TESTS, bar = i / PCI_TESTDEV_TESTS;
		uint32_t half = bar ? PCI_TESTDEV_IO_SIZE / 2 :
			       PCI_TESTDEV_MEM_SIZE / 2;
		int n = snprintf((char *)x->hdr + HDR_NAME, NAME_MAX_LEN,
				 "%s-%s", bar ? "portio" : "mmio", kinds[k]);

		x->size = HDR_NAME + (unsigned int)n + 1;
		x->match_data = k != 1;		/* all but the wildcard */
		x->hdr[HDR_WIDTH] = 1;
		le32_put(x->hdr + HDR_OFFSET, half + (uint32_t)i);
		le32_put(x->hdr + HDR_DATA, x->match_data ? PCI_TESTDEV_DATA :
		      PCI_TESTDEV_NOMATCH);
		x->fd = k ? eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK) : -1;
	}
}

static void release(struct pci_fn *fn)
{
	struct pci_testdev *d = fn->opaque;

	for (int i = 0; i < NTESTS; i++)
		if (d->t[i].fd >= 0)
			close(d->t[i].fd);
	pthread_mutex_destroy(&d->lock);
	free(d);
}

static int add_bars(struct pci_testdev *d)
{
	const struct pci_bar_desc mem = {
		.kind = PCI_BAR_MEM32, .size = PCI_TESTDEV_MEM_SIZE,
		.ops = &mem_ops, .opaque = d, .name = "pci-testdev-mem",
	};
	const struct pci_bar_desc io = {
		.kind = PCI_BAR_IO, .size = PCI_TESTDEV_IO_SIZE,
		.ops = &io_ops, .opaque = d, .name = "pci-testdev-io",
	};

	return pci_fn_add_bar(&d->fn, 0, &mem) || pci_fn_add_bar(&d->fn, 1,
								 &io);
}

/* The function's own view of its BARs: no VMM has to relay it. */
static void bar_moved(struct pci_fn *fn, int bar, bool mapped, uint64_t addr)
{
	pci_testdev_bar_moved(fn->opaque, bar, mapped, addr);
}

struct pci_testdev *pci_testdev_create(struct pci_bus *bus, uint32_t bdf,
				       const struct pci_testdev_ops *ops)
{
	const struct pci_fn_id id = {
		.vendor = PCI_TESTDEV_VENDOR, .device = PCI_TESTDEV_DEVICE,
		.subsys_vendor = 0x1af4, .subsys_id = 0x1100,
		.class_code = PCI_TESTDEV_CLASS,
	};
	struct pci_testdev *d = calloc(1, sizeof(*d));
	uint8_t *page = pci_bus_alloc_page(bus);

	if (!d || !page || pci_fn_init(&d->fn, page, &id, "pci-testdev") ||
	    add_bars(d))
		goto fail;
	if (ops)
		d->ops = *ops;
	d->current = -1;
	init_tests(d);
	pthread_mutex_init(&d->lock, NULL);
	d->fn.opaque = d;
	d->fn.release = release;
	d->fn.bar_moved = bar_moved;
	if (pci_bus_add_function(bus, bdf, &d->fn) == 0)
		return d;
	release(&d->fn);
	pci_bus_free_page(bus, page);
	return NULL;
fail:
	pci_bus_free_page(bus, page);
	free(d);
	return NULL;
}

void pci_testdev_bar_moved(struct pci_testdev *d, int bar, bool mapped,
			   uint64_t addr)
{
	if (bar < 0 || bar > 1)
		return;
	pthread_mutex_lock(&d->lock);
	d->mapped[bar] = mapped;
	d->base[bar] = addr;
	if (d->current >= 0 && d->current / PCI_TESTDEV_TESTS == bar) {
		arm(d, d->current, false);
		arm(d, d->current, true);
	}
	pthread_mutex_unlock(&d->lock);
}

void pci_testdev_get_state(struct pci_testdev *d, struct pci_testdev_state *s)
{
	pthread_mutex_lock(&d->lock);
	s->current = d->current;
	for (int i = 0; i < NTESTS; i++)
		s->count[i] = le32_get(d->t[i].hdr + HDR_COUNT);
	pthread_mutex_unlock(&d->lock);
}

int pci_testdev_set_state(struct pci_testdev *d,
			  const struct pci_testdev_state *s)
{
	if (s->current < -1 || s->current >= NTESTS)
		return -1;
	pthread_mutex_lock(&d->lock);
	if (d->current >= 0)
		arm(d, d->current, false);
	for (int i = 0; i < NTESTS; i++)
		le32_put(d->t[i].hdr + HDR_COUNT, s->count[i]);
	d->current = s->current;
	if (d->current >= 0)
		arm(d, d->current, true);
	pthread_mutex_unlock(&d->lock);
	return 0;
}
