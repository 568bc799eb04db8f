// SPDX-License-Identifier: MIT
#include "vmm/coalesced.h"
#include "vmm/bus.h"

#include <linux/kvm.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Entries the ring holds: as KVM_COALESCED_MMIO_MAX, with the host's page
 * size rather than the header's PAGE_SIZE (which user space lacks). */
static uint32_t ring_max(void)
{
	return (uint32_t)(((size_t)sysconf(_SC_PAGESIZE) -
			   sizeof(struct kvm_coalesced_mmio_ring)) /
			  sizeof(struct kvm_coalesced_mmio));
}

void coalesced_init(struct coalesced *c, struct bus *pio)
{
	memset(c, 0, sizeof(*c));
	c->pio = pio;
	pthread_mutex_init(&c->lock, NULL);
}

void coalesced_destroy(struct coalesced *c)
{
	pthread_mutex_destroy(&c->lock);
	c->ring = NULL;
}

int coalesced_add_pio(struct coalesced *c, int vm_fd, uint16_t port,
		      uint32_t len)
{
	struct kvm_coalesced_mmio_zone z = { .addr = port, .size = len,
					     .pio = 1 };

	c->asked = true;
	c->offered = ioctl(vm_fd, KVM_CHECK_EXTENSION,
			   KVM_CAP_COALESCED_PIO) > 0;
	if (!c->offered)
		return 1;
	if (ioctl(vm_fd, KVM_REGISTER_COALESCED_MMIO, &z) < 0)
		return -1;
	c->zones++;
	return 0;
}

int coalesced_attach(struct coalesced *c, void *run, size_t run_size)
{
	size_t off = (size_t)KVM_COALESCED_MMIO_PAGE_OFFSET *
		     (size_t)sysconf(_SC_PAGESIZE);

	if (!c->zones)
		return 0;
	if (run_size < off + (size_t)sysconf(_SC_PAGESIZE))
		return -1;
	c->max = ring_max();
	c->ring = (struct kvm_coalesced_mmio_ring *)((uint8_t *)run + off);
	return 0;
}

/* One entry: a port write as if it had exited (MMIO is never queued). */
static void apply(struct coalesced *c, const struct kvm_coalesced_mmio *m)
{
	uint8_t data[8];
	uint32_t len = m->len <= sizeof(data) ? m->len : sizeof(data);

	if (!m->pio)
		return;
	memcpy(data, m->data, len);
	bus_access_queued(c->pio, m->phys_addr, data, len);
}

void coalesced_drain(struct coalesced *c)
{
	struct kvm_coalesced_mmio_ring *r = c->ring;
	uint32_t max = c->max, first, n = 0;

	/* KVM publishes an entry before moving last (its smp_wmb); first
	 * moves only after the entry is applied, so first == last here
	 * means every write queued before this exit has been applied. */
	if (!r || __atomic_load_n(&r->first, __ATOMIC_ACQUIRE) ==
		  __atomic_load_n(&r->last, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&c->lock);
	first = r->first;
	for (;;) {
		uint32_t last = __atomic_load_n(&r->last, __ATOMIC_ACQUIRE);

		/* KVM keeps both below max; a torn page must not loop. */
		if (first == last || first >= max || last >= max)
			break;
		apply(c, &r->coalesced_mmio[first]);
		first = (first + 1) % max;
		__atomic_store_n(&r->first, first, __ATOMIC_RELEASE);
		n++;
	}
	pthread_mutex_unlock(&c->lock);
	if (n) {
		atomic_fetch_add(&c->applied, n);
		atomic_fetch_add(&c->drains, 1);
	}
}
