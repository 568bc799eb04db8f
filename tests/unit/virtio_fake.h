/* SPDX-License-Identifier: MIT */
/*
 * A fake VMM for the virtio device tests: guest RAM as a static buffer,
 * the host callbacks recording what the device asked for (notify
 * bindings, MSI-X routes, INTx levels), config-space and BAR 0 accessors,
 * and a tiny driver that sets up queue 0 in the fake RAM and submits
 * chains.  Header-only: each check_*.c is its own program.
 */
#ifndef MINIVMM_TESTS_VIRTIO_FAKE_H
#define MINIVMM_TESTS_VIRTIO_FAKE_H

#include <check.h>
#include <errno.h>
#include <time.h>

#include "devices/pci/bus.h"
#include "devices/virtio/pci.h"
#include "devices/virtio/spec.h"
#include "firmware/lib/le.h"

#define FAKE_RAM_BASE	0x100000ull
#define FAKE_RAM_SIZE	0x100000ull
#define FAKE_DESC	(FAKE_RAM_BASE + 0x0000)
#define FAKE_AVAIL	(FAKE_RAM_BASE + 0x1000)
#define FAKE_USED	(FAKE_RAM_BASE + 0x2000)
#define FAKE_BUF	(FAKE_RAM_BASE + 0x10000)
#define FAKE_QSIZE	16
#define FAKE_BDF	PCI_BDF(0, 4, 0)

static uint8_t fake_ram[FAKE_RAM_SIZE] __attribute__((aligned(4096)));

static struct fake_host {
	int bind_result;		/* what notify_bind answers */
	unsigned int binds, unbinds;
	uint64_t bound_at;		/* last bound address */
	unsigned int routes;
	unsigned int route_vec;
	uint64_t route_addr;
	uint32_t route_data;
	int intx_level;
	unsigned int intx_raises;
} fh;

static inline void *fake_ptr(void *ctx, uint64_t gpa, uint64_t len)
{
	(void)ctx;
	if (!len || gpa < FAKE_RAM_BASE || gpa - FAKE_RAM_BASE >= FAKE_RAM_SIZE ||
	    len > FAKE_RAM_SIZE - (gpa - FAKE_RAM_BASE))
		return NULL;
	return fake_ram + (gpa - FAKE_RAM_BASE);
}

static inline int fake_bind(void *ctx, int fd, uint64_t gpa, bool bind)
{
	(void)ctx;
	(void)fd;
	if (!bind) {
		fh.unbinds++;
		return 0;
	}
	fh.binds++;
	fh.bound_at = gpa;
	return fh.bind_result;
}

static inline void fake_route(void *ctx, unsigned int vec, uint64_t addr,
		       uint32_t data)
{
	(void)ctx;
	fh.routes++;
	fh.route_vec = vec;
	fh.route_addr = addr;
	fh.route_data = data;
}

static inline void fake_intx(void *ctx, uint32_t irq, int level)
{
	(void)ctx;
	(void)irq;
	if (level && !fh.intx_level)
		fh.intx_raises++;
	fh.intx_level = level;
}

static inline struct virtio_host fake_host(void)
{
	memset(&fh, 0, sizeof(fh));
	fh.bind_result = -1;
	memset(fake_ram, 0, sizeof(fake_ram));
	return (struct virtio_host){
		.mem = { fake_ptr, NULL },
		.notify_bind = fake_bind,
		.msix_route = fake_route,
		.intx = { fake_intx, NULL, 16 },
	};
}

static inline uint8_t *fake_at(uint64_t gpa)
{
	return fake_ram + (gpa - FAKE_RAM_BASE);
}

static inline uint16_t fake_get16(uint64_t gpa)
{
	uint16_t v;

	memcpy(&v, fake_at(gpa), 2);
	return v;
}

static inline uint32_t fake_get32(uint64_t gpa)
{
	uint32_t v;

	memcpy(&v, fake_at(gpa), 4);
	return v;
}

/* --- register access ---------------------------------------------------- */

static struct pci_bus *fake_bus;
static struct virtio_pci *fake_vp;

static inline uint32_t cfg_rd(unsigned int reg, unsigned int len)
{
	return pci_bus_cfg_read(fake_bus, FAKE_BDF, reg, len);
}

static inline void cfg_wr(unsigned int reg, uint32_t v, unsigned int len)
{
	pci_bus_cfg_write(fake_bus, FAKE_BDF, reg, v, len);
}

static inline uint64_t bar_rd(uint64_t off, unsigned int len)
{
	uint8_t d[8] = { 0 };

	virtio_pci_bar_ops.read(fake_vp, off, d, len);
	return le_get(d, len);
}

static inline void bar_wr(uint64_t off, uint64_t v, unsigned int len)
{
	uint8_t d[8];

	le_put(d, v, len);
	virtio_pci_bar_ops.write(fake_vp, off, d, len);
}

#define COMMON(r)	(VIRTIO_BAR_COMMON + (r))

/* --- a minimal driver ------------------------------------------------------ */

static inline bool fake_negotiate(uint64_t f)
{
	bar_wr(COMMON(VIRTIO_PCI_COMMON_STATUS), 0, 1);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_STATUS), VIRTIO_STATUS_ACKNOWLEDGE |
	       VIRTIO_STATUS_DRIVER, 1);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_GFSELECT), 0, 4);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_GF), (uint32_t)f, 4);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_GFSELECT), 1, 4);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_GF), f >> 32, 4);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_STATUS), VIRTIO_STATUS_ACKNOWLEDGE |
	       VIRTIO_STATUS_DRIVER | VIRTIO_STATUS_FEATURES_OK, 1);
	return bar_rd(COMMON(VIRTIO_PCI_COMMON_STATUS), 1) &
	       VIRTIO_STATUS_FEATURES_OK;
}

static inline int fake_queue(uint16_t vec)
{
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_SELECT), 0, 2);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_SIZE), FAKE_QSIZE, 2);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_MSIX), vec, 2);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_DESCLO), FAKE_DESC, 8);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_AVAILLO), FAKE_AVAIL, 8);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_USEDLO), FAKE_USED, 8);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_Q_ENABLE), 1, 2);
	return bar_rd(COMMON(VIRTIO_PCI_COMMON_Q_ENABLE), 2) == 1 ? 0 : -1;
}

static inline void fake_driver_ok(void)
{
	bar_wr(COMMON(VIRTIO_PCI_COMMON_STATUS),
	       bar_rd(COMMON(VIRTIO_PCI_COMMON_STATUS), 1) |
	       VIRTIO_STATUS_DRIVER_OK, 1);
}

static inline void fake_desc(unsigned int i, uint64_t addr, uint32_t len,
		      uint16_t flags, uint16_t next)
{
	uint8_t *p = fake_at(FAKE_DESC + 16ull * i);

	memcpy(p, &addr, 8);
	memcpy(p + 8, &len, 4);
	memcpy(p + 12, &flags, 2);
	memcpy(p + 14, &next, 2);
}

/* Offer head and kick through the notify register. */
static inline void fake_offer(uint16_t head)
{
	uint16_t idx = fake_get16(FAKE_AVAIL + 2);

	memcpy(fake_at(FAKE_AVAIL + 4 + 2 * (idx % FAKE_QSIZE)), &head, 2);
	idx++;
	__atomic_store_n((uint16_t *)fake_at(FAKE_AVAIL + 2), idx,
			 __ATOMIC_RELEASE);
	bar_wr(VIRTIO_BAR_NOTIFY, 0, 2);
}

/* Wait up to ms of host time until the used index reaches want. */
static inline bool fake_wait_used_ms(uint16_t want, int ms)
{
	for (int i = 0; i < ms; i++) {
		uint16_t *p = (uint16_t *)fake_at(FAKE_USED + 2);

		if (__atomic_load_n(p, __ATOMIC_ACQUIRE) == want)
			return true;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	return false;
}

/* Host-side patience only: a loaded host may take seconds. */
static inline bool fake_wait_used(uint16_t want)
{
	return fake_wait_used_ms(want, 10000);
}

#endif
