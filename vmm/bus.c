// SPDX-License-Identifier: MIT
/* Port-I/O and MMIO range tables.  Small sorted arrays: a machine has a few
 * dozen ranges, and a linear scan under one mutex is cheaper than the exit
 * that brought us here. */
#include "vmm/bus.h"

#include <string.h>

void bus_init(struct bus *bus, const char *name, uint64_t limit)
{
	memset(bus, 0, sizeof(*bus));
	bus->name = name;
	bus->limit = limit;
	pthread_mutex_init(&bus->lock, NULL);
}

void bus_destroy(struct bus *bus)
{
	pthread_mutex_destroy(&bus->lock);
}

static bool range_valid(const struct bus *bus, uint64_t base, uint64_t len)
{
	if (!len || base + len < base)
		return false;
	return base + len <= bus->limit;
}

/* Index of the first range whose end is above addr: a binary search,
 * as the ranges are sorted and disjoint (every exit looks one up). */
static int lower_bound(const struct bus *bus, uint64_t addr)
{
	int lo = 0, hi = bus->n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (bus->ranges[mid].base + bus->ranges[mid].len > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static bool overlaps(const struct bus *bus, uint64_t base, uint64_t len,
		     int skip)
{
	for (int i = 0; i < bus->n; i++) {
		const struct bus_range *r = &bus->ranges[i];

		if (i == skip)
			continue;
		if (base < r->base + r->len && r->base < base + len)
			return true;
	}
	return false;
}

static void insert_sorted(struct bus *bus, const struct bus_range *nr)
{
	int i = lower_bound(bus, nr->base);

	memmove(&bus->ranges[i + 1], &bus->ranges[i],
		(size_t)(bus->n - i) * sizeof(bus->ranges[0]));
	bus->ranges[i] = *nr;
	bus->n++;
}

static void remove_at(struct bus *bus, int i)
{
	memmove(&bus->ranges[i], &bus->ranges[i + 1],
		(size_t)(bus->n - i - 1) * sizeof(bus->ranges[0]));
	bus->n--;
}

bool bus_overlaps(struct bus *bus, uint64_t base, uint64_t len)
{
	bool ret;

	pthread_mutex_lock(&bus->lock);
	ret = len && overlaps(bus, base, len, -1);
	pthread_mutex_unlock(&bus->lock);
	return ret;
}

int bus_register(struct bus *bus, uint64_t base, uint64_t len,
		 const struct bus_ops *ops, void *opaque, const char *name)
{
	struct bus_range nr = {
		.base = base, .len = len, .ops = ops, .opaque = opaque,
		.name = name,
	};
	int ret = -1;

	pthread_mutex_lock(&bus->lock);
	if (range_valid(bus, base, len) && bus->n < BUS_MAX_RANGES &&
	    !overlaps(bus, base, len, -1)) {
		insert_sorted(bus, &nr);
		ret = 0;
	}
	pthread_mutex_unlock(&bus->lock);
	return ret;
}

static int find(const struct bus *bus, uint64_t base, void *opaque)
{
	for (int i = 0; i < bus->n; i++)
		if (bus->ranges[i].base == base &&
		    bus->ranges[i].opaque == opaque)
			return i;
	return -1;
}

int bus_unregister(struct bus *bus, uint64_t base, void *opaque)
{
	int i;

	pthread_mutex_lock(&bus->lock);
	i = find(bus, base, opaque);
	if (i >= 0)
		remove_at(bus, i);
	pthread_mutex_unlock(&bus->lock);
	return i >= 0 ? 0 : -1;
}

int bus_move(struct bus *bus, uint64_t old_base, uint64_t new_base,
	     void *opaque)
{
	struct bus_range r;
	int i, ret = -1;

	pthread_mutex_lock(&bus->lock);
	i = find(bus, old_base, opaque);
	if (i >= 0) {
		r = bus->ranges[i];
		if (range_valid(bus, new_base, r.len) &&
		    !overlaps(bus, new_base, r.len, i)) {
			remove_at(bus, i);
			r.base = new_base;
			insert_sorted(bus, &r);
			ret = 0;
		}
	}
	pthread_mutex_unlock(&bus->lock);
	return ret;
}

static bool access(struct bus *bus, uint64_t addr, uint8_t *data,
		   uint32_t len, bool is_write, bool queued)
{
	struct bus_range r;
	uint64_t off;
	int i;

	if (!is_write)
		memset(data, 0, len);
	pthread_mutex_lock(&bus->lock);
	i = lower_bound(bus, addr);
	if (i == bus->n || bus->ranges[i].base > addr) {
		if (is_write) {
			bus->unclaimed_writes++;
		} else {
			bus->unclaimed_reads++;
			memset(data, 0xff, len);
		}
		pthread_mutex_unlock(&bus->lock);
		return false;
	}
	if (queued)
		bus->ranges[i].queued++;
	else if (is_write)
		bus->ranges[i].writes++;
	else
		bus->ranges[i].reads++;
	r = bus->ranges[i];
	pthread_mutex_unlock(&bus->lock);

	/* The handler runs without the bus lock: devices serialise
	 * themselves, and one (PCI) may re-register ranges on either bus
	 * while another vCPU is dispatching on it.  Devices live as long as
	 * the buses, so a range unregistered meanwhile is still safe. */
	off = addr - r.base;
	if (!bus->whole_access && len > r.len - off)
		len = (uint32_t)(r.len - off);
	if (is_write) {
		if (r.ops->write)
			r.ops->write(r.opaque, off, data, len);
	} else if (r.ops->read) {
		r.ops->read(r.opaque, off, data, len);
	}
	return true;
}

bool bus_access(struct bus *bus, uint64_t addr, uint8_t *data, uint32_t len,
		bool is_write)
{
	return access(bus, addr, data, len, is_write, false);
}

bool bus_access_queued(struct bus *bus, uint64_t addr, uint8_t *data,
		       uint32_t len)
{
	return access(bus, addr, data, len, true, true);
}

void bus_for_each(struct bus *bus,
		  void (*fn)(const struct bus_range *r, void *ctx), void *ctx)
{
	pthread_mutex_lock(&bus->lock);
	for (int i = 0; i < bus->n; i++)
		fn(&bus->ranges[i], ctx);
	pthread_mutex_unlock(&bus->lock);
}
