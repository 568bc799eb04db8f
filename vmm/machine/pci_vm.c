// SPDX-License-Identifier: MIT
/* PCI in the VM.  Config pages live in one memfd so the same bytes can be
 * mapped twice: read-write for the model, read-only into the guest's ECAM
 * window.  Page 0 of the memfd is all-ones and backs every absent function,
 * so the window costs one memfd page per present function. */
#include "vmm/machine/pci_vm.h"
#include "devices/pci/bus.h"
#include "devices/test/pci_testdev.h"
#include "devices/xen_platform.h"
#include "vmm/layout.h"
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

#define PAGE		4096u
#define ONES_PAGES	256u		/* all-ones: one whole bus */
#define MAX_PAGES	(ONES_PAGES + 64)	/* + functions, with room */
#define XEN_BDF		PCI_BDF(0, 3, 0)
#define TESTDEV_BDF	PCI_BDF(0, 4, 0)

struct pci_vm {
	struct vm *vm;
	struct pci_bus *bus;	/* serialises config accesses itself */
	int memfd;
	unsigned int npages;		/* pages 0..255: all-ones */
	uint8_t *ones;			/* their mapping, ONES_PAGES long */
	uint8_t *pages[MAX_PAGES];	/* config pages, index = memfd page */
	uint8_t *ecam_map;
	uint64_t ecam_size;
	struct xen_platform *xen;
	struct pci_testdev *testdev;
	uint8_t *xen_ram;		/* BAR1 backing */
	int xen_ram_region;
	uint64_t bar_failures;		/* moves refused (overlaps) */
};

/* --- config pages ----------------------------------------------------- */

static void *grow_memfd(struct pci_vm *p)
{
	void *page;

	if (p->npages == MAX_PAGES ||
	    ftruncate(p->memfd, (off_t)(p->npages + 1) * PAGE) < 0)
		return NULL;
	page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, p->memfd,
		    (off_t)p->npages * PAGE);
	if (page == MAP_FAILED)
		return NULL;
	p->pages[p->npages++] = page;
	return page;
}

static void *alloc_page(void *ctx)
{
	return grow_memfd(ctx);	/* fresh memfd pages are zero */
}

/* The memfd page of a function's config page; -1 for absent functions. */
static long page_index(const struct pci_vm *p, const uint8_t *page)
{
	for (unsigned int i = ONES_PAGES; page && i < p->npages; i++)
		if (p->pages[i] == page)
			return (long)i;
	return -1;
}

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

/* --- ECAM -------------------------------------------------------------- */

static int map_pages(struct pci_vm *p, uint8_t *at, unsigned int n,
		     long first)
{
	return mmap(at, (size_t)n * PAGE, PROT_READ, MAP_SHARED | MAP_FIXED,
		    p->memfd, (off_t)first * PAGE) == MAP_FAILED ? -1 : 0;
}

/* Each run of absent functions maps the same-length prefix of the
 * all-ones pages in one call, so 256 empty buses cost 256 mappings, not
 * 65536 (more than the default VMA limit). */
static int map_bus(struct pci_vm *p, uint8_t *bus_win, unsigned int b)
{
	unsigned int devfn = 0;

	while (devfn < PCI_DEVFN_MAX) {
		long idx = page_index(p, pci_bus_ecam_page(p->bus, b, devfn));
		unsigned int run = 1;

		if (idx >= 0) {
			if (map_pages(p, bus_win + devfn * PAGE, 1, idx) < 0)
				return -1;
			devfn++;
			continue;
		}
		while (devfn + run < PCI_DEVFN_MAX &&
		       !pci_bus_ecam_page(p->bus, b, devfn + run))
			run++;
		if (map_pages(p, bus_win + devfn * PAGE, run, 0) < 0)
			return -1;
		devfn += run;
	}
	return 0;
}

static int map_ecam_ro(struct pci_vm *p)
{
	const struct vmm_config *cfg = p->vm->cfg;
	uint8_t *win;

	win = mmap(NULL, p->ecam_size, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (win == MAP_FAILED)
		return -1;
	p->ecam_map = win;
	for (unsigned int b = 0; b < cfg->pci_buses; b++)
		if (map_bus(p, win + ((uint64_t)b << 20), b) < 0)
			return -1;
	return gmem_add_region(&p->vm->mem, LAYOUT_ECAM_BASE, p->ecam_size,
			       win, true, "ecam-ro") < 0 ? -1 : 0;
}

/* Writes to a read-only slot exit as MMIO, so the trapped ops are
 * registered in both modes; in ro mode they only ever see writes. */
static int setup_ecam(struct pci_vm *p)
{
	const struct vmm_config *cfg = p->vm->cfg;

	if (cfg->ecam == ECAM_OFF)
		return 0;
	p->ecam_size = pci_bus_ecam_size(p->bus);
	if (cfg->ecam == ECAM_RO && map_ecam_ro(p) < 0)
		return -1;
	return bus_register(&p->vm->mmio, LAYOUT_ECAM_BASE, p->ecam_size,
			    &pci_bus_ecam_ops, p->bus, cfg->ecam == ECAM_RO ?
			    "ecam-ro-writes" : "ecam-trap");
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
		.alloc_page = alloc_page,
		.page_ctx = p,
		.bar_changed = on_bar_changed,
		.bar_ctx = p,
	};
	p->memfd = memfd_create("minivmm-pci-config", MFD_CLOEXEC);
	if (p->memfd < 0)
		return -1;
	if (ftruncate(p->memfd, (off_t)ONES_PAGES * PAGE) < 0)
		return -1;
	p->ones = mmap(NULL, (size_t)ONES_PAGES * PAGE, PROT_READ | PROT_WRITE,
		       MAP_SHARED, p->memfd, 0);
	if (p->ones == MAP_FAILED) {
		p->ones = NULL;
		return -1;
	}
	memset(p->ones, 0xff, (size_t)ONES_PAGES * PAGE);
	p->npages = ONES_PAGES;
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
	p->memfd = -1;
	p->xen_ram_region = -1;
	if (create_bus(p) < 0 ||
	    (cfg->xen_platform && add_xen_platform(p) < 0) ||
	    (cfg->pci_testdev && add_pci_testdev(p) < 0) ||
	    virtio_vm_setup(vm, p->bus) < 0 || setup_ecam(p) < 0 ||
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
	if (p->ecam_map)
		munmap(p->ecam_map, p->ecam_size);
	for (unsigned int i = ONES_PAGES; i < p->npages; i++)
		munmap(p->pages[i], PAGE);
	if (p->ones)
		munmap(p->ones, (size_t)ONES_PAGES * PAGE);
	if (p->xen_ram)
		munmap(p->xen_ram, XEN_PLATFORM_BAR1_SIZE);
	if (p->memfd >= 0)
		close(p->memfd);
	free(p);
	vm->pci = NULL;
}

/* --- invariants -------------------------------------------------------- */

/* What the guest reads through the read-only window must be the model's
 * bytes (present functions) or all-ones (absent ones). */
static int check_ecam_window(struct pci_vm *p, FILE *out)
{
	static const uint8_t ones[PAGE] = { [0 ... PAGE - 1] = 0xff };
	int problems = 0;

	if (!p->ecam_map)
		return 0;
	for (unsigned int b = 0; b < p->vm->cfg->pci_buses; b++) {
		for (unsigned int devfn = 0; devfn < PCI_DEVFN_MAX; devfn++) {
			const uint8_t *pg = pci_bus_ecam_page(p->bus, b, devfn);
			const uint8_t *win = p->ecam_map + ((uint64_t)b << 20) +
					     ((uint64_t)devfn << 12);

			if (!memcmp(win, pg ? pg : ones, PAGE))
				continue;
			fprintf(out, "pci: ECAM window at %02x:%02x.%x differs "
				"from the model\n", b, devfn >> 3, devfn & 7);
			problems++;
		}
	}
	return problems;
}

int pci_vm_check(struct vm *vm, FILE *out)
{
	struct pci_vm *p = vm->pci;
	int problems = 0;

	if (!p)
		return 0;
	problems += check_ecam_window(p, out);
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
