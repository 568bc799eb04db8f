// SPDX-License-Identifier: MIT
/*
 * The Xen platform device's guest-facing registers: the fixed legacy ports
 * 0x10-0x1F and BAR0, registered on a real port bus set up as vm.c does
 * (port accesses are whole, not clipped at the range end), plus its config
 * space.  The
 * input is a sequence of port accesses of 1, 2 or 4 bytes.
 *
 * Checked after every access against a small model of the protocol
 * (Xen docs/misc/hvm-emulated-unplug.pandoc and xen_platform.h):
 *   - the magic word, the protocol byte and the flags read as documented;
 *   - the statistics (flags, unplug mask and count, product, build, log
 *     bytes and lines) match what the accesses should have done;
 *   - every log line handed to the VMM starts with the prefix, holds only
 *     printable ASCII and is at most XEN_PLATFORM_LOG_MAX guest bytes.
 */
#include "devices/pci/bus.h"
#include "devices/xen_platform.h"
#include "tests/fuzz/fuzz_util.h"
#include "vmm/layout.h"

#define MAX_OPS		1024
#define BAR0_PORT	0xc000
#define XEN_BDF		PCI_BDF(0, 3, 0)
#define PREFIX_LEN	(sizeof(XEN_PLATFORM_LOG_PREFIX) - 1)

struct model {
	uint8_t flags;
	uint16_t unplug_mask;
	uint64_t unplug_writes;
	bool product_set, build_set;
	uint16_t product;
	uint32_t build;
	uint64_t log_bytes, log_lines;
	unsigned int log_len;
	uint64_t lines_seen;
};

static void on_log(void *ctx, const char *line)
{
	struct model *m = ctx;
	size_t len = strlen(line);

	m->lines_seen++;
	FZ_CHECK(!strncmp(line, XEN_PLATFORM_LOG_PREFIX, PREFIX_LEN),
		 "log line lacks the prefix");
	FZ_CHECK(len <= PREFIX_LEN + XEN_PLATFORM_LOG_MAX,
		 "log line of %zu bytes", len);
	for (size_t i = 0; i < len; i++)
		FZ_CHECK(line[i] >= 0x20 && line[i] < 0x7f,
			 "unprintable byte 0x%02x in a log line",
			 (uint8_t)line[i]);
}

static void model_log(struct model *m, uint8_t c)
{
	m->log_bytes++;
	if (c == '\r')
		return;
	if (c != '\n' && ++m->log_len < XEN_PLATFORM_LOG_MAX)
		return;
	m->log_len = 0;
	m->log_lines++;
}

static void model_unplug(struct model *m, uint16_t mask)
{
	m->unplug_mask = mask;
	m->unplug_writes++;
}

static void model_legacy_write(struct model *m, uint64_t off, uint32_t len,
			       uint32_t v)
{
	if (off == 0 && len == 2) {
		model_unplug(m, (uint16_t)v);
	} else if (off == 0 && len == 1) {
		m->flags = v & XEN_PFFLAG_ROM_LOCK;
	} else if (off == 0 && len == 4) {
		m->build = v;
		m->build_set = true;
	} else if (off == 2 && len == 2) {
		m->product = (uint16_t)v;
		m->product_set = true;
	} else if (off == 2 && len == 1) {
		model_log(m, (uint8_t)v);
	}
}

static void model_bar0_write(struct model *m, uint64_t off, uint32_t len,
			     uint32_t v)
{
	for (uint32_t i = 0; i < len; i++) {
		uint8_t b = (uint8_t)(v >> (8 * i));

		if (off + i == 0)
			m->flags = b & XEN_PFFLAG_ROM_LOCK;
		else if (off + i == 4 && b == 1)
			model_unplug(m, XEN_UNPLUG_ALL_IDE_DISKS |
					XEN_UNPLUG_ALL_NICS);
		else if (off + i == 8 && b == 1)
			model_unplug(m, XEN_UNPLUG_ALL_IDE_DISKS);
		else if (off + i == 8 && b == 2)
			model_unplug(m, XEN_UNPLUG_ALL_NICS);
	}
}

static void check_read(const struct model *m, bool legacy, uint64_t off,
		       uint32_t len, uint32_t got)
{
	if (legacy && off == 0 && len == 2)
		FZ_CHECK(got == XEN_PLATFORM_MAGIC, "magic read 0x%x", got);
	else if (legacy && off == 0 && len == 1)
		FZ_CHECK(got == m->flags, "flags read 0x%x", got);
	else if (legacy && off == 2 && len == 1)
		FZ_CHECK(got == XEN_PLATFORM_PROTOCOL, "protocol read %u", got);
	else if (!legacy && off == 0)
		FZ_CHECK((got & 0xff) == m->flags, "BAR0 flags read 0x%x",
			 got);
}

static void check_stats(struct xen_platform *xp, const struct model *m)
{
	struct xen_platform_stats st;

	xen_platform_get_stats(xp, &st);
	FZ_CHECK(st.flags == m->flags, "flags %u, want %u", st.flags,
		 m->flags);
	FZ_CHECK(st.unplug_mask == m->unplug_mask &&
		 st.unplug_writes == m->unplug_writes,
		 "unplug 0x%x/%llu, want 0x%x/%llu", st.unplug_mask,
		 (unsigned long long)st.unplug_writes, m->unplug_mask,
		 (unsigned long long)m->unplug_writes);
	FZ_CHECK(st.product_set == m->product_set &&
		 (!st.product_set || st.product == m->product),
		 "product %u", st.product);
	FZ_CHECK(st.build_set == m->build_set &&
		 (!st.build_set || st.build == m->build), "build %u",
		 st.build);
	FZ_CHECK(st.log_bytes == m->log_bytes && st.log_lines == m->log_lines &&
		 m->lines_seen == m->log_lines,
		 "log %llu bytes %llu lines (%llu seen), want %llu, %llu",
		 (unsigned long long)st.log_bytes,
		 (unsigned long long)st.log_lines,
		 (unsigned long long)m->lines_seen,
		 (unsigned long long)m->log_bytes,
		 (unsigned long long)m->log_lines);
}

static void one_access(struct bus *pio, struct model *m, struct fz *in)
{
	static const uint32_t widths[] = { 1, 2, 4, 1 };
	uint8_t sel = fz_u8(in);
	uint32_t len = widths[sel & 3], val = fz_u32(in), got = 0;
	bool legacy = !(sel & 0x80), wr = sel & 4;
	uint64_t base = legacy ? LAYOUT_XEN_LEGACY_PORT : BAR0_PORT;
	uint64_t off = (sel >> 3) & 0xf;
	uint8_t data[4];

	if (!legacy && (sel & 0x40))
		off = fz_u8(in);	/* anywhere in the 256 ports */
	if (legacy && (sel & 0x40))
		val = (val & ~0xffu) | (val & 1 ? '\n' : 'A' + (val >> 1) % 26);
	memcpy(data, &val, 4);
	bus_access(pio, base + off, data, len, wr);
	if (wr && legacy)
		model_legacy_write(m, off, len, val);
	else if (wr)
		model_bar0_write(m, off, len, val);
	if (!wr) {
		memcpy(&got, data, len);
		check_read(m, legacy, off, len, got);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pci_bus_config bc = { .nbuses = 1 };
	struct fz in = { data, size };
	struct model m = { 0 };
	struct xen_platform_config xc = { on_log, &m };
	struct xen_platform *xp;
	struct pci_bus *bus;
	struct bus pio;

	bus = pci_bus_create(&bc);
	FZ_CHECK(bus, "pci_bus_create");
	xp = xen_platform_create(bus, XEN_BDF, &xc);
	FZ_CHECK(xp, "xen_platform_create");
	bus_init(&pio, "pio", 0x10000);
	pio.whole_access = true;	/* as vm.c */
	FZ_CHECK(bus_register(&pio, LAYOUT_XEN_LEGACY_PORT,
			      XEN_PLATFORM_LEGACY_LEN, &xen_platform_legacy_ops,
			      xp, "xen-legacy") == 0, "legacy ports");
	FZ_CHECK(bus_register(&pio, BAR0_PORT, XEN_PLATFORM_BAR0_SIZE,
			      &xen_platform_bar0_ops, xp, "xen-bar0") == 0,
		 "BAR0 ports");
	for (int i = 0; i < MAX_OPS && !fz_empty(&in); i++) {
		if (fz_u8(&in) == 0xff) {	/* now and then, config space */
			uint16_t reg = fz_u16(&in) & 0xfff;

			pci_bus_cfg_write(bus, XEN_BDF, reg & ~3u, fz_u32(&in),
					  4);
			continue;
		}
		one_access(&pio, &m, &in);
		check_stats(xp, &m);
	}
	/* Destroying the bus flushes a partial line. */
	if (m.log_len)
		m.log_lines++;
	pci_bus_destroy(bus);
	FZ_CHECK(m.lines_seen == m.log_lines, "%llu lines after destroy",
		 (unsigned long long)m.lines_seen);
	bus_destroy(&pio);
	return 0;
}
