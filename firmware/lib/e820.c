// SPDX-License-Identifier: MIT
/* Memory-map construction; see e820.h. */
#include "firmware/lib/e820.h"

static bool range_ok(const struct e820_entry *e)
{
	return e->size != 0 && e->size - 1 <= UINT64_MAX - e->addr;
}

/* Last byte, so that a range ending at 2^64 needs no special case. */
static uint64_t last(const struct e820_entry *e)
{
	return e->addr + (e->size - 1);
}

int e820_ram_sort(struct e820_entry *ram, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!range_ok(&ram[i]))
			return -E820_EINVAL;
	/* Insertion sort: a handful of ranges. */
	for (size_t i = 1; i < n; i++) {
		struct e820_entry e = ram[i];
		size_t j = i;

		for (; j > 0 && ram[j - 1].addr > e.addr; j--)
			ram[j] = ram[j - 1];
		ram[j] = e;
	}
	for (size_t i = 1; i < n; i++)
		if (ram[i].addr <= last(&ram[i - 1]))
			return -E820_EOVERLAP;
	return 0;
}

bool e820_ram_contains(const struct e820_entry *ram, size_t n,
		       uint64_t addr, uint64_t size)
{
	struct e820_entry r = { .addr = addr, .size = size };

	if (!range_ok(&r))
		return false;
	for (size_t i = 0; i < n; i++)
		if (range_ok(&ram[i]) && addr >= ram[i].addr &&
		    last(&r) <= last(&ram[i]))
			return true;
	return false;
}

static int check_sorted(const struct e820_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!range_ok(&e[i]))
			return -E820_EINVAL;
		if (i > 0 && e[i].addr <= e[i - 1].addr)
			return -E820_EORDER;
		if (i > 0 && e[i].addr <= last(&e[i - 1]))
			return -E820_EOVERLAP;
	}
	return 0;
}

struct map {
	struct e820_entry *out;
	size_t cap;
	size_t n;
	bool full;
};

/* Append [first, lst] (inclusive) with type; entries arrive in address
 * order, so merging only looks at the previous one. */
static void emit(struct map *m, uint64_t first, uint64_t lst, uint32_t type)
{
	struct e820_entry *prev = m->n ? &m->out[m->n - 1] : NULL;

	if (type == E820_OMIT)
		return;
	if (prev && prev->type == type && last(prev) + 1 == first) {
		prev->size += lst - first + 1;
		return;
	}
	if (m->n == m->cap) {
		m->full = true;
		return;
	}
	m->out[m->n++] = (struct e820_entry){
		.addr = first, .size = lst - first + 1, .type = type,
	};
}

static void carve_range(struct map *m, const struct e820_entry *r,
			const struct e820_entry *carve, size_t n_carve)
{
	uint64_t cur = r->addr, end = last(r);
	bool done = false;

	for (size_t i = 0; i < n_carve && !done; i++) {
		const struct e820_entry *c = &carve[i];
		uint64_t c_end = last(c);

		if (c_end < cur || c->addr > end)
			continue;
		if (c->addr > cur)
			emit(m, cur, c->addr - 1, E820_RAM);
		if (c_end >= end) {
			emit(m, cur > c->addr ? cur : c->addr, end, c->type);
			done = true;
		} else {
			emit(m, cur > c->addr ? cur : c->addr, c_end, c->type);
			cur = c_end + 1;
		}
	}
	if (!done)
		emit(m, cur, end, E820_RAM);
}

int e820_build(const struct e820_entry *ram, size_t n_ram,
	       const struct e820_entry *carve, size_t n_carve,
	       struct e820_entry *out, size_t cap)
{
	struct map m = { .out = out, .cap = cap };
	int err;

	err = check_sorted(ram, n_ram);
	if (err)
		return err;
	err = check_sorted(carve, n_carve);
	if (err)
		return err;
	for (size_t i = 0; i < n_ram; i++)
		carve_range(&m, &ram[i], carve, n_carve);
	return m.full ? -E820_ENOSPC : (int)m.n;
}
