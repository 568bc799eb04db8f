// SPDX-License-Identifier: MIT
/*
 * The snapshot parser: the input is a whole snapshot file.  It goes
 * through snap_parse (the container), then through the file reader as
 * restore uses it (snap_file_open on a memfd: header, table, every state
 * section read and its checksum verified), and every state section the
 * parser accepts is handed to its decoder: META, CONFIG, the UART, the
 * ACPI PM block, the Xen platform device, the PCI bus and a PCI function
 * (which maps its BARs through a callback here), the RTC, fw_cfg and the
 * QEMU test devices.
 *
 * Checked: accepted tables describe sections inside the input, memory
 * sections page-aligned, no two sections overlapping; the file reader
 * agrees with the parser; decoders never read out of bounds (ASan) and
 * a PCI function loaded from any bytes maps only what it decodes.
 */
#include "devices/acpi_pm.h"
#include "devices/fw_cfg.h"
#include "devices/test/pc_testdev.h"
#include "devices/pci/bus.h"
#include "devices/test/pci_testdev.h"
#include "devices/rtc.h"
#include "devices/uart16550.h"
#include "devices/xen_platform.h"
#include "tests/fuzz/fuzz_util.h"
#include "vmm/snapshot/config.h"
#include "vmm/snapshot/file.h"
#include "vmm/snapshot/meta.h"

#include <sys/mman.h>

#define ERR	200

static uint64_t zero_ns(void)
{
	return 0;
}

static void no_irq(void *ctx, uint32_t irq, int level)
{
	(void)ctx, (void)irq, (void)level;
}

static int on_bar(struct pci_fn *fn, int bar, uint64_t old, uint64_t addr,
		  bool enabled)
{
	uint64_t dec;

	FZ_CHECK(old == PCI_BAR_UNMAPPED && enabled, "bad BAR report");
	FZ_CHECK(pci_fn_bar_decoded(fn, bar, &dec) && dec == addr,
		 "BAR %d mapped at %#llx where it does not decode", bar,
		 (unsigned long long)addr);
	return 0;
}

/* The platform devices (vmm/snapshot/sections/platform_snap.c) and pci-testdev. */
static void platform_state(uint32_t type, uint32_t inst, const uint8_t *p,
			   size_t len)
{
	static struct pc_testdev pc;
	static struct pc_testdev_state pcs;

	if (type == SNAP_SEC_RTC && len == sizeof(struct rtc_state)) {
		struct rtc r;
		struct rtc_state s;
		uint8_t reg = 0x0c, v;

		rtc_init(&r, zero_ns, NULL, NULL, NULL);
		memcpy(&s, p, len);
		if (rtc_set_state(&r, &s) == 0) {
			rtc_next_event_ns(&r);
			rtc_ops.write(&r, 0, &reg, 1);
			rtc_ops.read(&r, 1, &v, 1);
		}
		rtc_destroy(&r);
	} else if (type == SNAP_SEC_FW_CFG &&
		   len == sizeof(struct fw_cfg_state)) {
		struct fw_cfg f;
		struct fw_cfg_state s;
		uint8_t v[FW_CFG_ITEM_MAX + 2];

		fw_cfg_init(&f, 1 << 28, 1);
		memcpy(&s, p, len);
		if (fw_cfg_set_state(&f, &s) == 0)
			fw_cfg_ops.read(&f, 1, v, sizeof(v));
		fw_cfg_destroy(&f);
	} else if (type == SNAP_SEC_TESTDEV && inst == SNAP_TESTDEV_PC &&
		   len == sizeof(pcs)) {
		pc_testdev_init(&pc, no_irq, NULL, NULL);
		memcpy(&pcs, p, len);
		pc_testdev_set_state(&pc, &pcs);
		pc_testdev_destroy(&pc);
	} else if (type == SNAP_SEC_TESTDEV && inst == SNAP_TESTDEV_PCI &&
		   len == sizeof(struct pci_testdev_state)) {
		struct pci_bus_config conf = { .nbuses = 1 };
		struct pci_bus *bus = pci_bus_create(&conf);
		struct pci_testdev *d = pci_testdev_create(bus, 0x20, NULL);
		struct pci_testdev_state s;

		memcpy(&s, p, len);
		if (d)
			pci_testdev_set_state(d, &s);
		pci_bus_destroy(bus);
	}
}

static void device_state(uint32_t type, const uint8_t *p, size_t len)
{
	struct pci_bus_config conf = { .nbuses = 1, .bar_changed = on_bar };
	char err[ERR];

	if (type == SNAP_SEC_META) {
		struct snap_meta m;

		snap_meta_decode(p, len, &m, err, ERR);
	} else if (type == SNAP_SEC_CONFIG) {
		struct snap_config c;

		if (snap_config_decode(p, len, &c, err, ERR) == 0)
			snap_config_free(&c);
	} else if (type == SNAP_SEC_UART && len == sizeof(struct uart_state)) {
		struct uart *u = uart_create((struct irq_line){ no_irq },
					     (struct uart_sink){ 0 });
		struct uart_state s;

		memcpy(&s, p, len);
		uart_set_state(u, &s);
		uart_destroy(u);
	} else if (type == SNAP_SEC_ACPI_PM &&
		   len == sizeof(struct acpi_pm_state)) {
		struct acpi_pm pm;
		struct acpi_pm_state s;

		acpi_pm_init(&pm, zero_ns, NULL, NULL);
		memcpy(&s, p, len);
		acpi_pm_set_state(&pm, &s);
	} else if (type == SNAP_SEC_PCI_BUS ||
		   type == SNAP_SEC_XEN_PLATFORM || type == SNAP_SEC_PCI_FN) {
		struct pci_bus *bus = pci_bus_create(&conf);
		struct xen_platform *xp = xen_platform_create(bus, 0x18, NULL);
		static struct pci_fn_state fs;
		struct xen_platform_state xs;
		uint32_t cf8;

		if (type == SNAP_SEC_PCI_BUS && len == 4) {
			memcpy(&cf8, p, 4);
			pci_bus_set_cf8(bus, cf8);
		} else if (type == SNAP_SEC_XEN_PLATFORM && len == sizeof(xs)) {
			memcpy(&xs, p, len);
			xen_platform_set_state(xp, &xs);
		} else if (type == SNAP_SEC_PCI_FN && len == sizeof(fs)) {
			memcpy(&fs, p, len);
			pci_fn_set_state(xen_platform_fn(xp), &fs);
		}
		pci_bus_destroy(bus);
	}
}

static void through_file(const uint8_t *data, size_t size, bool parsed)
{
	int fd = memfd_create("fuzz-snapshot", MFD_CLOEXEC);
	char path[64], err[ERR];
	struct snap_file f;

	if (fd < 0)
		return;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (snap_file_open(path, &f, err, ERR) == 0) {
			FZ_CHECK(parsed, "file reader took what the parser "
				 "refused");
			snap_file_close(&f);
		}
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct snap_index idx;
	char err[ERR];
	bool parsed = snap_parse(data, size, size, &idx, err, ERR) == 0;

	for (uint32_t i = 0; parsed && i < idx.n; i++) {
		const struct snap_entry *e = &idx.e[i];

		FZ_CHECK(e->offset <= size && e->length <= size - e->offset,
			 "section outside the input");
		if (e->flags & SNAP_F_MEMORY) {
			FZ_CHECK(e->offset % SNAP_PAGE == 0, "unaligned");
			continue;
		}
		if (snap_crc(0, data + e->offset, e->length) != e->crc)
			continue;
		device_state(e->type, data + e->offset, e->length);
		platform_state(e->type, e->instance, data + e->offset,
			       e->length);
	}
	if (parsed)
		snap_index_free(&idx);
	through_file(data, size, parsed);
	return 0;
}
