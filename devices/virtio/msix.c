// SPDX-License-Identifier: MIT
/* MSI-X table, pending bits and delivery; see msix.h. */
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "devices/virtio/msix.h"
#include "firmware/lib/le.h"

int msix_init(struct msix *m, unsigned int nvec, msix_route_fn route,
	      void *ctx)
{
	memset(m, 0, sizeof(*m));
	for (unsigned int v = 0; v < MSIX_MAX_VECTORS; v++)
		m->fd[v] = -1;
	if (nvec == 0 || nvec > MSIX_MAX_VECTORS)
		return -1;
	m->s.nvec = (uint16_t)nvec;
	m->route = route;
	m->ctx = ctx;
	for (unsigned int v = 0; v < nvec; v++) {
		m->s.table[v].ctrl = MSIX_CTRL_MASKBIT;
		m->fd[v] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (m->fd[v] < 0)
			return -1;
	}
	return 0;
}

void msix_destroy(struct msix *m)
{
	for (unsigned int v = 0; v < MSIX_MAX_VECTORS; v++) {
		if (m->fd[v] >= 0)
			close(m->fd[v]);
		m->fd[v] = -1;
	}
}

uint64_t msix_table_bytes(const struct msix *m)
{
	return (uint64_t)m->s.nvec * MSIX_ENTRY_SIZE;
}

static bool access_ok(uint64_t off, uint32_t len, uint64_t size)
{
	if (len != 4 && len != 8)
		return false;
	return !(off & (len - 1)) && off < size && len <= size - off;
}

static uint32_t entry_dword(const struct msix_entry *e, unsigned int i)
{
	switch (i) {
	case 0: return e->addr_lo;
	case 1: return e->addr_hi;
	case 2: return e->data;
	default: return e->ctrl;
	}
}

void msix_table_read(struct msix *m, uint64_t off, uint8_t *data,
		     uint32_t len)
{
	if (!access_ok(off, len, msix_table_bytes(m))) {
		memset(data, 0xff, len);
		return;
	}
	for (uint32_t i = 0; i < len; i += 4) {
		uint64_t o = off + i;

		le32_put(data + i, entry_dword(&m->s.table[o / MSIX_ENTRY_SIZE],
					    (o % MSIX_ENTRY_SIZE) / 4));
	}
}

static bool can_fire(const struct msix *m, unsigned int v)
{
	return m->s.enabled && !m->s.func_masked &&
	       !(m->s.table[v].ctrl & MSIX_CTRL_MASKBIT);
}

/* The route of v matches its entry. */
static void route(struct msix *m, unsigned int v)
{
	const struct msix_entry *e = &m->s.table[v];
	uint64_t addr = (uint64_t)e->addr_hi << 32 | e->addr_lo;

	if (!(m->route_valid >> v & 1) || m->routed_addr[v] != addr ||
	    m->routed_data[v] != e->data) {
		if (m->route)
			m->route(m->ctx, v, addr, e->data);
		m->routed_addr[v] = addr;
		m->routed_data[v] = e->data;
		m->route_valid |= 1ull << v;
	}
}

static void fire(struct msix *m, unsigned int v)
{
	uint64_t one = 1;
	ssize_t r;

	route(m, v);
	/* A full counter (never, at 2^64 - 2) only loses a coalesced
	 * message; the guest sees the interrupt anyway. */
	r = write(m->fd[v], &one, sizeof(one));
	(void)r;
	m->fired++;
}

/* Send what became deliverable. */
static void flush_pending(struct msix *m)
{
	for (unsigned int v = 0; v < m->s.nvec; v++) {
		if (!(m->s.pba >> v & 1) || !can_fire(m, v))
			continue;
		m->s.pba &= ~(1ull << v);
		fire(m, v);
	}
}

static void write_dword(struct msix *m, uint64_t o, uint32_t val)
{
	struct msix_entry *e = &m->s.table[o / MSIX_ENTRY_SIZE];

	switch ((o % MSIX_ENTRY_SIZE) / 4) {
	case 0:
		e->addr_lo = val & ~3u;	/* dword-aligned message address */
		break;
	case 1:
		e->addr_hi = val;
		break;
	case 2:
		e->data = val;
		break;
	default:
		e->ctrl = val & MSIX_CTRL_MASKBIT;
		break;
	}
}

void msix_table_write(struct msix *m, uint64_t off, const uint8_t *data,
		      uint32_t len)
{
	if (!access_ok(off, len, msix_table_bytes(m)))
		return;
	for (uint32_t i = 0; i < len; i += 4)
		write_dword(m, off + i, le32_get(data + i));
	for (unsigned int v = 0; v < m->s.nvec; v++)
		if (m->direct >> v & 1)
			route(m, v);
	flush_pending(m);
}

void msix_pba_read(struct msix *m, uint64_t off, uint8_t *data,
		   uint32_t len)
{
	uint64_t bytes = ((uint64_t)m->s.nvec + 63) / 64 * 8;

	if (!access_ok(off, len, bytes)) {
		memset(data, 0xff, len);
		return;
	}
	/* At most 64 vectors: one qword, offset 0 or 4. */
	for (uint32_t i = 0; i < len; i += 4)
		le32_put(data + i, (uint32_t)(m->s.pba >> (8 * (off + i))));
}

bool msix_direct(struct msix *m, unsigned int vec)
{
	if (vec >= m->s.nvec || !can_fire(m, vec))
		return false;
	route(m, vec);
	m->direct |= 1ull << vec;
	return true;
}

void msix_direct_clear(struct msix *m)
{
	m->direct = 0;
}

void msix_control(struct msix *m, bool enabled, bool func_masked)
{
	m->s.enabled = enabled;
	m->s.func_masked = func_masked;
	flush_pending(m);
}

bool msix_notify(struct msix *m, unsigned int vec)
{
	if (vec >= m->s.nvec)
		return false;
	if (!can_fire(m, vec)) {
		m->s.pba |= 1ull << vec;
		return false;
	}
	fire(m, vec);
	return true;
}
