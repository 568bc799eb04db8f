// SPDX-License-Identifier: MIT
/* PCI in the VM: the bus and its functions, wired to their backings
 * (pci_vm.h). */
#include "vmm/machine/pci_vm.h"
#include "devices/pci/bus.h"
#include "devices/pvpanic.h"
#include "devices/test/pci_testdev.h"
#include "devices/xen_platform.h"
#include "vmm/machine/pci_bars.h"
#include "vmm/machine/pci_ecam.h"
#include "vmm/machine/virtio_vm.h"
#include "vmm/machine/xen_vm.h"
#include "vmm/run/exit_status.h"
#include "vmm/vm.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#define PVPANIC_BDF	PCI_BDF(0, 2, 0)
#define XEN_BDF		PCI_BDF(0, 3, 0)
#define TESTDEV_BDF	PCI_BDF(0, 4, 0)
#define XEN_BAR_RAM	1	/* the Xen device's RAM-backed BAR */

struct pci_vm {
	struct vm *vm;
	struct pci_bus *bus;	/* serialises config accesses itself */
	struct pci_ecam *ecam;	/* config pages and the ECAM window */
	struct pci_bars bars;	/* where the BARs decode */
	struct xen_platform *xen;
	struct pci_testdev *testdev;
};

/* --- pci-testdev -------------------------------------------------------- */

/* Its eventfd tests: KVM swallows the writes (ioeventfd). */
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

/* --- pvpanic ------------------------------------------------------------ */

/* The guest (kernel, firmware or payload) panicked: waiting for it helps
 * nobody. */
static void on_panic(void *ctx, uint8_t events)
{
	/* QMP's names; the run ends, so QEMU's word for that: poweroff. */
	if (events & PVPANIC_PANICKED)
		vm_event(ctx, "GUEST_PANICKED", "{\"action\": \"poweroff\"}");
	if (events & PVPANIC_CRASH_LOADED)
		vm_event(ctx, "GUEST_CRASHLOADED",
			 "{\"action\": \"poweroff\"}");
	vm_stop(ctx, EXIT_GUEST_PANIC, "guest panicked (pvpanic event%s%s)",
		events & PVPANIC_PANICKED ? " panicked" : "",
		events & PVPANIC_CRASH_LOADED ? " crash-loaded" : "");
}

/* --- stats ------------------------------------------------------------- */

static void print_stats(void *ctx, FILE *out)
{
	struct pci_vm *p = ctx;

	fprintf(out, "pci: %llu BAR placements refused (overlap)\n",
		(unsigned long long)p->bars.refused);
	if (p->xen)
		xen_vm_print_stats(p->xen, out);
}

static void json_stats(void *ctx, cJSON *root)
{
	struct pci_vm *p = ctx;

	cJSON_AddNumberToObject(root, "pci_bar_refusals",
				(double)p->bars.refused);
	if (p->xen)
		xen_vm_json_stats(p->xen, root);
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

/* Loading maps the BARs it had (pci_bars_changed), memslots included. */
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

/* CF8, every present function's config space and BAR placement, then the
 * devices' own state (loaded after their functions'). */
static int register_snapshot(struct pci_vm *p)
{
	struct snap_registry *r = &p->vm->snap_reg;
	struct snap_state_ops o = { SNAP_SEC_PCI_BUS, 0, SNAP_PHASE_DEVICES,
				    cf8_save, cf8_load, p->bus };

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
	return xen_vm_snap_register(p->vm, p->xen, pci_bars_ram(&p->bars,
				    xen_platform_fn(p->xen), XEN_BAR_RAM));
}

/* --- set-up ------------------------------------------------------------ */

static int create_bus(struct pci_vm *p)
{
	struct pci_bus_config conf = {
		.nbuses = p->vm->cfg->pci_buses,
		.alloc_page = pci_ecam_alloc_page,
		.bar_changed = pci_bars_changed,
		.bar_ctx = &p->bars,
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

/* CF8 is one latch per machine with no effect until CFC (or CF8) is
 * read, which exits: its writes may wait in KVM's ring (coalesced.h), so
 * a config access costs one exit.  The bus has no byte register there
 * (cf8_other: 0xCF9's reset would need an exit). */
static int queue_cf8(struct pci_vm *p)
{
	struct vm *vm = p->vm;

	if (!vm->cfg->coalesced_pio || p->bus->conf.cf8_other)
		return 0;
	return coalesced_add_pio(&vm->coalesced, vm->kvm.vm_fd,
				 PCI_CONF1_ADDR_PORT, 4) < 0 ? -1 : 0;
}

/* The functions, then what backs them: RAM BARs' memory, the ECAM window
 * (built from the functions present), the config ports. */
static int wire(struct pci_vm *p)
{
	struct vm *vm = p->vm;
	const struct vmm_config *cfg = vm->cfg;

	if (create_bus(p) < 0)
		return -1;
	if (cfg->xen_platform) {
		p->xen = xen_vm_add(vm, p->bus, XEN_BDF);
		if (!p->xen)
			return -1;
	}
	if (cfg->pvpanic &&
	    pvpanic_create(p->bus, PVPANIC_BDF, on_panic, vm) < 0)
		return -1;
	if ((cfg->pci_testdev && add_pci_testdev(p) < 0) ||
	    virtio_vm_setup(vm, p->bus) < 0)
		return -1;
	if (pci_bars_back_ram(&p->bars, p->bus, cfg->pci_buses) < 0 ||
	    pci_ecam_map(p->ecam, p->bus, cfg->pci_buses, cfg->ecam, &vm->mem,
			 &vm->mmio) < 0)
		return -1;
	if (cfg->pci_pio &&
	    bus_register(&vm->pio, PCI_CONF1_ADDR_PORT, PCI_BUS_PIO_LEN,
			 &pci_bus_pio_ops, p->bus, "pci-cf8-cfc") < 0)
		return -1;
	if (cfg->pci_pio && queue_cf8(p) < 0)
		return -1;
	return register_snapshot(p);
}

int pci_vm_setup(struct vm *vm)
{
	struct pci_vm *p = calloc(1, sizeof(*p));

	if (!p)
		return -1;
	vm->pci = p;
	p->vm = vm;
	pci_bars_init(&p->bars, &vm->mem, &vm->pio, &vm->mmio);
	if (wire(p) < 0) {
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
	pci_bars_destroy(&p->bars);
	free(p);
	vm->pci = NULL;
}

int pci_vm_check(struct vm *vm, FILE *out)
{
	struct pci_vm *p = vm->pci;

	if (!p)
		return 0;
	/* Called after the vCPUs stopped: nothing changes under us. */
	return pci_ecam_check(p->ecam, out) +
	       pci_bars_check(p->bus, vm->cfg->pci_buses, out);
}
