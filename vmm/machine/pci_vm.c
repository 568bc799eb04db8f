// SPDX-License-Identifier: MIT
/* PCI in the VM (pci_vm.h). */
#include "vmm/machine/pci_vm.h"
#include "devices/pci/bus.h"
#include "devices/test/pci_testdev.h"
#include "devices/xen_platform.h"
#include "vmm/layout.h"
#include "vmm/machine/pci_ecam.h"
#include "vmm/machine/virtio_vm.h"
#include "vmm/vm.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define XEN_BDF		PCI_BDF(0, 3, 0)
#define TESTDEV_BDF	PCI_BDF(0, 4, 0)

struct pci_vm {
	struct vm *vm;
	struct pci_bus *bus;	/* serialises config accesses itself */
	struct pci_ecam *ecam;	/* config pages and the ECAM window */
	struct xen_platform *xen;
	struct pci_testdev *testdev;
	uint8_t *xen_ram;		/* BAR1 backing */
	int xen_ram_region;
	uint64_t bar_failures;		/* moves refused (overlaps) */
};

/* --- BAR moves -------------------------------------------------------- */

static bool is_io(const struct pci_bar *b)
{
	return b->desc.kind == PCI_BAR_IO;
}

static void unmap_bar(struct pci_vm *p, const struct pci_bar *b,
		      uint64_t addr)
{
	struct vm *vm = p->vm;

	if (b->desc.ram) {
		gmem_place_region(&vm->mem, p->xen_ram_region, addr, false);
		return;
	}
	bus_unregister(is_io(b) ? &vm->pio : &vm->mmio, addr, b->desc.opaque);
}

/* A memory BAR may not cover guest memory or another MMIO range, and a
 * RAM-backed one may not cover MMIO ranges either (a memslot would hide
 * them from exits). */
static int map_bar(struct pci_vm *p, const struct pci_bar *b, uint64_t addr)
{
	struct vm *vm = p->vm;
	uint64_t size = b->desc.size;

	if (b->desc.ram) {
		if (bus_overlaps(&vm->mmio, addr, size))
			return -1;
		return gmem_place_region(&vm->mem, p->xen_ram_region, addr,
					 true);
	}
	if (is_io(b))
		return bus_register(&vm->pio, addr, size, b->desc.ops,
				    b->desc.opaque, b->desc.name);
	if (gmem_overlaps(&vm->mem, addr, size))
		return -1;
	return bus_register(&vm->mmio, addr, size, b->desc.ops,
			    b->desc.opaque, b->desc.name);
}

static int on_bar_changed(struct pci_fn *fn, int idx, uint64_t old_addr,
			  uint64_t new_addr, bool enabled)
{
	struct pci_vm *p = fn->bar_ctx;
	const struct pci_bar *b = &fn->bars[idx];

	if (old_addr != PCI_BAR_UNMAPPED)
		unmap_bar(p, b, old_addr);
	if (enabled && map_bar(p, b, new_addr) < 0) {
		p->bar_failures++;
		return -1;
	}
	return 0;
}

/* --- devices ---------------------------------------------------------- */

static void xen_log(void *ctx, const char *line)
{
	struct vm *vm = ctx;

	console_flush(&vm->console);
	fprintf(stderr, "minivmm: %s\n", line);
}

static int add_xen_platform(struct pci_vm *p)
{
	struct xen_platform_config conf = { xen_log, p->vm };
	struct vm *vm = p->vm;

	p->xen = xen_platform_create(p->bus, XEN_BDF, &conf);
	if (!p->xen)
		return -1;
	p->xen_ram = mmap(NULL, XEN_PLATFORM_BAR1_SIZE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p->xen_ram == MAP_FAILED) {
		p->xen_ram = NULL;
		return -1;
	}
	/* Unmapped: the BAR decodes nowhere until the guest says. */
	p->xen_ram_region = gmem_add_unmapped(&vm->mem, XEN_PLATFORM_BAR1_SIZE,
					      p->xen_ram, "xen-platform-bar1");
	if (p->xen_ram_region < 0)
		return -1;
	return bus_register(&vm->pio, XEN_PLATFORM_LEGACY_PORT,
			    XEN_PLATFORM_LEGACY_LEN, &xen_platform_legacy_ops,
			    p->xen, "xen-legacy");
}

/* pci-testdev's eventfd tests: KVM swallows the writes (ioeventfd). */
static int testdev_ioeventfd(void *ctx, const struct pci_testdev_ioeventfd *e,
			     bool assign)
{
	struct pci_vm *p = ctx;
	struct kvm_ioeventfd io = {
		.datamatch = e->data, .addr = e->addr, .len = e->len,
		.fd = e->fd,
		.flags = (e->datamatch ? KVM_IOEVENTFD_FLAG_DATAMATCH : 0) |
			 (e->pio ? KVM_IOEVENTFD_FLAG_PIO : 0) |
			 (assign ? 0 : KVM_IOEVENTFD_FLAG_DEASSIGN),
	};

	return ioctl(p->vm->kvm.vm_fd, KVM_IOEVENTFD, &io) < 0 ? -1 : 0;
}

static int add_pci_testdev(struct pci_vm *p)
{
	const struct pci_testdev_ops ops = { testdev_ioeventfd, p };

	p->testdev = pci_testdev_create(p->bus, TESTDEV_BDF, &ops);
	return p->testdev ? 0 : -1;
}

/* --- stats ------------------------------------------------------------- */

static void print_stats(void *ctx, FILE *out)
{
	struct pci_vm *p = ctx;
	struct xen_platform_stats st;

	fprintf(out, "pci: %llu BAR placements refused (overlap)\n",
		(unsigned long long)p->bar_failures);
	if (!p->xen)
		return;
	xen_platform_get_stats(p->xen, &st);
	fprintf(out, "xen-platform: unplug mask 0x%x (%llu requests), "
		"product %s%u, build %s%u, log lines %llu\n", st.unplug_mask,
		(unsigned long long)st.unplug_writes, st.product_set ? "" : "unset ",
		st.product, st.build_set ? "" : "unset ", st.build,
		(unsigned long long)st.log_lines);
}

static void json_stats(void *ctx, cJSON *root)
{
	struct pci_vm *p = ctx;
	struct xen_platform_stats st;
	cJSON *o;

	cJSON_AddNumberToObject(root, "pci_bar_refusals",
				(double)p->bar_failures);
	if (!p->xen)
		return;
	xen_platform_get_stats(p->xen, &st);
	o = cJSON_AddObjectToObject(root, "xen_platform");
	cJSON_AddNumberToObject(o, "unplug_mask", st.unplug_mask);
	cJSON_AddNumberToObject(o, "unplug_requests", (double)st.unplug_writes);
	if (st.product_set)
		cJSON_AddNumberToObject(o, "product", st.product);
	if (st.build_set)
		cJSON_AddNumberToObject(o, "build", st.build);
	cJSON_AddNumberToObject(o, "log_lines", (double)st.log_lines);
}

/* --- snapshots --------------------------------------------------------- */

static int bad_section(char *err, size_t len, const char *what)
{
	snprintf(err, len, "%s section is malformed or does not fit this "
		 "machine", what);
	return -1;
}

static int cf8_save(void *ctx, struct snap_buf *out)
{
	snap_put_u32(out, pci_bus_get_cf8(ctx));
	return 0;
}

static int cf8_load(void *ctx, const uint8_t *data, size_t len, char *err,
		    size_t errlen)
{
	uint32_t v;

	if (len != 4)
		return bad_section(err, errlen, "PCI bus");
	memcpy(&v, data, 4);
	return pci_bus_set_cf8(ctx, v) ? bad_section(err, errlen, "PCI bus")
				       : 0;
}

static int fn_save(void *ctx, struct snap_buf *out)
{
	static struct pci_fn_state st;	/* 4 KiB+; main thread only */

	pci_fn_get_state(ctx, &st);
	snap_put(out, &st, sizeof(st));
	return 0;
}

/* Loading maps the BARs it had (on_bar_changed), memslots included. */
static int fn_load(void *ctx, const uint8_t *data, size_t len, char *err,
		   size_t errlen)
{
	static struct pci_fn_state st;

	if (len != sizeof(st))
		return bad_section(err, errlen, "PCI function");
	memcpy(&st, data, sizeof(st));
	if (pci_fn_set_state(ctx, &st) < 0)
		return bad_section(err, errlen, "PCI function");
	return 0;
}

static int xen_save(void *ctx, struct snap_buf *out)
{
	struct xen_platform_state st;

	xen_platform_get_state(ctx, &st);
	snap_put(out, &st, sizeof(st));
	return 0;
}

static int xen_load(void *ctx, const uint8_t *data, size_t len, char *err,
		    size_t errlen)
{
	struct xen_platform_state st;

	if (len != sizeof(st))
		return bad_section(err, errlen, "Xen platform");
	memcpy(&st, data, sizeof(st));
	return xen_platform_set_state(ctx, &st) ?
	       bad_section(err, errlen, "Xen platform") : 0;
}

static int testdev_save(void *ctx, struct snap_buf *out)
{
	struct pci_testdev_state st;

	pci_testdev_get_state(ctx, &st);
	snap_put(out, &st, sizeof(st));
	return 0;
}

/* After the function's own section: its BARs decode again, so the
 * selected eventfd test is armed where they are. */
static int testdev_load(void *ctx, const uint8_t *data, size_t len,
			char *err, size_t errlen)
{
	struct pci_testdev_state st;

	if (len != sizeof(st))
		return bad_section(err, errlen, "pci-testdev");
	memcpy(&st, data, sizeof(st));
	return pci_testdev_set_state(ctx, &st) ?
	       bad_section(err, errlen, "pci-testdev") : 0;
}

/* CF8, every present function's config space and BAR placement, the Xen
 * device's protocol state and its BAR1 RAM. */
static int register_snapshot(struct pci_vm *p)
{
	struct snap_registry *r = &p->vm->snap_reg;
	struct snap_state_ops o = { SNAP_SEC_PCI_BUS, 0, SNAP_PHASE_DEVICES,
				    cf8_save, cf8_load, p->bus };
	struct snap_memory m = { SNAP_SEC_XEN_BAR1, 0, p->xen_ram,
				 XEN_PLATFORM_BAR1_SIZE, false };

	if (snap_add_state(r, &o) < 0)
		return -1;
	for (uint32_t bdf = 0; bdf < p->vm->cfg->pci_buses * 256u; bdf++) {
		struct pci_fn *fn = pci_bus_get(p->bus, bdf);

		o = (struct snap_state_ops){ SNAP_SEC_PCI_FN, bdf,
			SNAP_PHASE_DEVICES, fn_save, fn_load, fn };
		if (fn && snap_add_state(r, &o) < 0)
			return -1;
	}
	o = (struct snap_state_ops){ SNAP_SEC_TESTDEV, SNAP_TESTDEV_PCI,
		SNAP_PHASE_DEVICES, testdev_save, testdev_load, p->testdev };
	if (p->testdev && snap_add_state(r, &o) < 0)
		return -1;
	if (!p->xen)
		return 0;
	o = (struct snap_state_ops){ SNAP_SEC_XEN_PLATFORM, 0,
		SNAP_PHASE_DEVICES, xen_save, xen_load, p->xen };
	if (snap_add_state(r, &o) < 0 || snap_add_memory(r, &m) < 0)
		return -1;
	return 0;
}

/* --- set-up ------------------------------------------------------------ */

static int create_bus(struct pci_vm *p)
{
	struct pci_bus_config conf = {
		.nbuses = p->vm->cfg->pci_buses,
		.alloc_page = pci_ecam_alloc_page,
		.bar_changed = on_bar_changed,
		.bar_ctx = p,
	};

	p->ecam = pci_ecam_create();
	if (!p->ecam)
		return -1;
	conf.page_ctx = p->ecam;
	p->bus = pci_bus_create(&conf);
	if (!p->bus || !pci_host_bridge_create(p->bus))
		return -1;
	return 0;
}

int pci_vm_setup(struct vm *vm)
{
	struct pci_vm *p = calloc(1, sizeof(*p));
	const struct vmm_config *cfg = vm->cfg;

	if (!p)
		return -1;
	vm->pci = p;
	p->vm = vm;
	p->xen_ram_region = -1;
	if (create_bus(p) < 0 ||
	    (cfg->xen_platform && add_xen_platform(p) < 0) ||
	    (cfg->pci_testdev && add_pci_testdev(p) < 0) ||
	    virtio_vm_setup(vm, p->bus) < 0 ||
	    pci_ecam_map(p->ecam, p->bus, cfg->pci_buses, cfg->ecam, &vm->mem,
			 &vm->mmio) < 0 ||
	    (cfg->pci_pio && bus_register(&vm->pio, PCI_BUS_PIO_BASE,
					  PCI_BUS_PIO_LEN, &pci_bus_pio_ops,
					  p->bus, "pci-cf8-cfc") < 0) ||
	    register_snapshot(p) < 0) {
		fprintf(stderr, "minivmm: error: setting up PCI: %s\n",
			errno ? strerror(errno) : "internal error");
		return -1;
	}
	stats_add_reporter(&vm->stats, (struct stats_reporter){
		print_stats, json_stats, p });
	return 0;
}

void pci_vm_destroy(struct vm *vm)
{
	struct pci_vm *p = vm->pci;

	if (!p)
		return;
	if (p->bus)
		pci_bus_destroy(p->bus);	/* flushes the Xen log */
	pci_ecam_destroy(p->ecam);
	if (p->xen_ram)
		munmap(p->xen_ram, XEN_PLATFORM_BAR1_SIZE);
	free(p);
	vm->pci = NULL;
}

/* --- invariants -------------------------------------------------------- */

int pci_vm_check(struct vm *vm, FILE *out)
{
	struct pci_vm *p = vm->pci;
	int problems = 0;

	if (!p)
		return 0;
	problems += pci_ecam_check(p->ecam, out);
	/* Called after the vCPUs stopped: nothing changes under us. */
	for (uint32_t bdf = 0; bdf < vm->cfg->pci_buses * 256u; bdf++) {
		struct pci_fn *fn = pci_bus_get(p->bus, bdf);

		for (int i = 0; fn && i < PCI_NUM_BARS; i++) {
			const struct pci_bar *b = &fn->bars[i];
			uint64_t addr;
			bool dec = pci_fn_bar_decoded(fn, i, &addr);

			if (b->desc.kind == PCI_BAR_NONE || !b->mapped)
				continue;
			if (!dec || b->map_addr != addr) {
				fprintf(out, "pci: %s BAR%d mapped at 0x%llx "
					"but decodes %s0x%llx\n", fn->name, i,
					(unsigned long long)b->map_addr,
					dec ? "at " : "nowhere, register ",
					(unsigned long long)addr);
				problems++;
			}
		}
	}
	return problems;
}
