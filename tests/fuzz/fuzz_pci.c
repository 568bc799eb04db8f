// SPDX-License-Identifier: MIT
/*
 * PCI config space as a hostile guest reaches it.  The machine is the
 * VMM's own (mirroring vm.c's add_devices, without KVM): a struct vm with
 * the real port/MMIO buses, guest memory with
 * no KVM behind it (vm_fd -1: memslot calls are bookkeeping only), the
 * legacy devices vm.c registers, and vmm/machine/pci_vm.c's PCI set-up (host
 * bridge, Xen platform device, CF8/CFC, ECAM ro/trap/off, BAR moves into
 * the buses and memslots).  The input picks the options, then a sequence
 * of operations, each dispatched with bus_access() exactly as the vCPU
 * loop does for an I/O or MMIO exit.
 *
 * Checked after every operation (a violation traps, so it is a crash):
 *   - pci_vm_check(): every mapped BAR sits where config space decodes it;
 *   - mapped memslots never overlap, and no MMIO range hides under one
 *     (except the ECAM write trap, which sits under the read-only window
 *     on purpose);
 *   - the Xen BAR1 memslot is mapped exactly when BAR1 is, and there;
 *   - a read through the read-only ECAM window (what a guest read sees
 *     without an exit) equals a trapped read of the same bytes;
 *   - CF8 reads back what was written, under the documented mask
 *     (bits 30:28 dropped; 1:0 kept, as QEMU keeps them).
 */
#include "devices/acpi_pm.h"
#include "devices/i8042_reset.h"
#include "devices/pci/bus.h"
#include "devices/test/test_exit.h"
#include "devices/uart16550.h"
#include "devices/xen_platform.h"
#include "tests/fuzz/fuzz_util.h"
#include "vmm/layout.h"
#include "vmm/machine/pci_vm.h"
#include "vmm/vm.h"

#include <sys/mman.h>

#define MAX_OPS		512
#define ROM_SIZE	(64 * 1024)
#define XEN_BDF		PCI_BDF(0, 3, 0)
#define CF8		PCI_CONF1_ADDR_PORT

static uint8_t *rom;		/* stands in for the firmware ROM */
static FILE *devnull;

static const uint64_t ram_sizes[] = {
	16 * MiB, 256 * MiB, 3 * GiB, 4 * GiB + 512 * MiB,
};

static void port_cb(void *ctx, uint32_t value, uint32_t width)
{
	(void)ctx;
	(void)value;
	(void)width;
}

static void poweroff_cb(void *ctx)
{
	(void)ctx;
}

static void reset_cb(void *ctx)
{
	(void)ctx;
}

/* Stand-ins for the ranges KVM's in-kernel IOAPIC and LAPIC occupy. */
static const struct bus_ops in_kernel_ops;
static struct i8042_reset reset_port = { reset_cb, NULL };

static uint64_t fake_now(void)
{
	return 0;
}

/* One struct vm, zeroed for each input as calloc would: its exit counts
 * and console make it 150 KiB, and fresh pages for it on every input cost
 * more than the input's operations. */
static struct vm the_vm;

/* vm_create()'s order, without KVM: buses, memory, ROM, legacy devices,
 * then PCI.  Returns NULL if the host ran out of something. */
static struct vm *make_vm(struct vmm_config *cfg)
{
	struct vm *vm = &the_vm;

	memset(vm, 0, sizeof(*vm));
	vm->cfg = cfg;
	vm->kvm.sys_fd = vm->kvm.vm_fd = -1;
	vm->stop_fd = -1;
	stats_init(&vm->stats);
	bus_init(&vm->pio, "pio", 0x10000);
	bus_init(&vm->mmio, "mmio", UINT64_MAX);
	vm->pio.whole_access = true;	/* as vm.c: port I/O is not clipped */
	console_open(&vm->console, CONSOLE_NONE, NULL);
	if (gmem_init(&vm->mem, -1, cfg->mem_size) < 0)
		goto fail;
	if (gmem_add_region(&vm->mem, 4 * GiB - ROM_SIZE, ROM_SIZE, rom, true,
			    "firmware-rom") < 0)
		goto fail;
	if (bus_register(&vm->mmio, ABI_IOAPIC_BASE, 0x1000, &in_kernel_ops,
			 vm, "ioapic (kvm)") < 0 ||
	    bus_register(&vm->mmio, ABI_LAPIC_BASE, 0x1000, &in_kernel_ops,
			 vm, "lapic (kvm)") < 0)
		goto fail;
	vm->uart = uart_create((struct irq_line){ 0 }, (struct uart_sink){ 0 });
	vm->exit_port = (struct debug_port){ port_cb, vm };
	vm->progress_port = (struct debug_port){ port_cb, vm };
	acpi_pm_init(&vm->acpi_pm, fake_now, poweroff_cb, vm);
	if (!vm->uart ||
	    bus_register(&vm->pio, ABI_UART_PORT, UART_NR_PORTS, &uart_ops,
			 vm->uart, "uart-com1") < 0 ||
	    bus_register(&vm->pio, ABI_TEST_EXIT_PORT, 1, &debug_port_ops,
			 &vm->exit_port, "test-exit") < 0 ||
	    bus_register(&vm->pio, ABI_PROGRESS_PORT, 1, &debug_port_ops,
			 &vm->progress_port, "boot-progress") < 0 ||
	    bus_register(&vm->pio, ABI_ACPI_PM_PORT, ACPI_PM_REGS_LEN,
			 &acpi_pm_ops, &vm->acpi_pm, "acpi-pm") < 0 ||
	    bus_register(&vm->pio, LAYOUT_I8042_CMD_PORT, 1, &i8042_reset_ops,
			 &reset_port, "i8042-reset") < 0)
		goto fail;
	if (pci_vm_setup(vm) < 0)
		goto fail;
	return vm;
fail:
	pci_vm_destroy(vm);
	snap_registry_free(&vm->snap_reg);
	uart_destroy(vm->uart);
	gmem_destroy(&vm->mem);
	bus_destroy(&vm->pio);
	bus_destroy(&vm->mmio);
	console_close(&vm->console);
	return NULL;
}

static void free_vm(struct vm *vm)
{
	pci_vm_destroy(vm);
	snap_registry_free(&vm->snap_reg);
	uart_destroy(vm->uart);
	gmem_destroy(&vm->mem);
	bus_destroy(&vm->pio);
	bus_destroy(&vm->mmio);
	console_close(&vm->console);
}

/* --- invariants ------------------------------------------------------- */

static void check_bars(struct vm *vm)
{
	if (pci_vm_check(vm, devnull)) {
		FILE *out = fdopen(dup(fz_msg_fd), "w");

		pci_vm_check(vm, out);
		fclose(out);
		FZ_CHECK(0, "BAR mapping disagrees with config space");
	}
}

struct mmio_scan {
	struct gmem *mem;
};

static void range_not_under_slot(const struct bus_range *r, void *ctx)
{
	struct mmio_scan *s = ctx;

	if (!strcmp(r->name, "ecam-ro-writes"))
		return;
	FZ_CHECK(!gmem_overlaps(s->mem, r->base, r->len),
		 "MMIO range %s at 0x%llx+0x%llx is hidden by a memslot",
		 r->name, (unsigned long long)r->base,
		 (unsigned long long)r->len);
}

static void check_memslots(struct vm *vm, struct pci_fn *xen)
{
	struct gmem *mem = &vm->mem;
	struct mmio_scan scan = { mem };
	const struct gmem_region *bar1 = NULL;

	for (int i = 0; i < mem->n; i++) {
		const struct gmem_region *a = &mem->regions[i];

		if (a->name && !strcmp(a->name, "xen-platform-mmio"))
			bar1 = a;
		for (int j = i + 1; a->mapped && j < mem->n; j++) {
			const struct gmem_region *b = &mem->regions[j];

			FZ_CHECK(!b->mapped || a->gpa >= b->gpa + b->size ||
				 b->gpa >= a->gpa + a->size,
				 "memslots %s and %s overlap", a->name,
				 b->name);
		}
	}
	bus_for_each(&vm->mmio, range_not_under_slot, &scan);
	if (!xen)
		return;
	FZ_CHECK(bar1, "no memslot for the Xen BAR1");
	FZ_CHECK(bar1->mapped == xen->bars[1].mapped,
		 "BAR1 mapped %d but its memslot %d", xen->bars[1].mapped,
		 bar1->mapped);
	FZ_CHECK(!bar1->mapped || bar1->gpa == xen->bars[1].map_addr,
		 "BAR1 at 0x%llx but its memslot at 0x%llx",
		 (unsigned long long)xen->bars[1].map_addr,
		 (unsigned long long)bar1->gpa);
}

/* --- operations ------------------------------------------------------- */

static uint32_t pick_width(uint8_t b)
{
	static const uint32_t w[] = { 1, 2, 4, 4 };

	return w[b & 3];
}

static uint32_t pick_bdf(struct fz *in)
{
	uint8_t sel = fz_u8(in);

	switch (sel & 3) {
	case 0: return PCI_BDF(0, 0, 0);
	case 1: return XEN_BDF;
	default: return fz_u16(in);
	}
}

static void pio(struct vm *vm, uint16_t port, uint32_t len, uint32_t val,
		bool wr, uint8_t *out)
{
	uint8_t data[8] = { 0 };

	memcpy(data, &val, 4);
	bus_access(&vm->pio, port, data, len, wr);
	if (out)
		memcpy(out, data, len);
}

/* A guest's CF8/CFC access: address, then data (AMD ECS bits for 4 KiB). */
static void op_conf1(struct vm *vm, struct fz *in)
{
	uint32_t bdf = pick_bdf(in);
	uint16_t reg = fz_u16(in) & 0xfff;
	uint8_t flags = fz_u8(in);
	uint32_t val = fz_u32(in), width = pick_width(flags);
	uint32_t cf8 = PCI_CONF1_ENABLE | (bdf & 0xffff) << 8 | (reg & 0xfc) |
		       (uint32_t)(reg >> 8) << PCI_CONF1_EXT_REG_SHIFT;

	pio(vm, CF8, 4, cf8, true, NULL);
	pio(vm, CF8 + 4 + (reg & 3), width, val, flags & 4, NULL);
}

/* Anything at 0xCF8-0xCFF: partial address writes, reads back. */
static void op_cf8_raw(struct vm *vm, struct fz *in)
{
	uint8_t flags = fz_u8(in);
	uint32_t val = fz_u32(in), got = 0;
	uint16_t port = CF8 + ((flags >> 3) & 7);

	pio(vm, port, pick_width(flags), val, flags & 4, NULL);
	if (port == CF8 && pick_width(flags) == 4 &&
	    (flags & 4) && vm->cfg->pci_pio) {
		pio(vm, port, 4, 0, false, (uint8_t *)&got);
		FZ_CHECK(got == (val & (PCI_CONF1_ENABLE | 0x00ffffffu |
					PCI_CONF1_EXT_REG_MASK)),
			 "CF8 wrote 0x%x read 0x%x", val, got);
	}
}

static uint64_t ecam_off(struct fz *in)
{
	uint32_t bdf = pick_bdf(in);

	return (uint64_t)bdf << 12 | (fz_u16(in) & 0xfff);
}

/* A trapped ECAM access of 1..8 bytes (KVM hands MMIO of up to 8). */
static void op_ecam(struct vm *vm, struct fz *in)
{
	uint64_t off = ecam_off(in);
	uint8_t flags = fz_u8(in);
	uint64_t val = fz_u64(in);
	uint32_t len = (flags & 7) + 1;
	uint8_t data[8];

	memcpy(data, &val, 8);
	bus_access(&vm->mmio, LAYOUT_ECAM_BASE + off, data, len, flags & 8);
}

/* A read through the read-only window equals a trapped read. */
static void op_ecam_ro_read(struct vm *vm, struct fz *in)
{
	uint64_t off = ecam_off(in);
	uint32_t len = pick_width(fz_u8(in));
	uint8_t trapped[4];
	const uint8_t *ro;

	off &= ~(uint64_t)(len - 1);
	/* Past the window (1 MiB per bus) the ECAM area is free MMIO space
	 * where a BAR may sit: a memslot there is not the window. */
	if (off >= (uint64_t)vm->cfg->pci_buses << PCI_ECAM_BUS_SHIFT)
		return;
	ro = gmem_any_ptr(&vm->mem, LAYOUT_ECAM_BASE + off, len);
	if (vm->cfg->ecam != ECAM_RO || !ro)
		return;
	bus_access(&vm->mmio, LAYOUT_ECAM_BASE + off, trapped, len, false);
	FZ_CHECK(!memcmp(ro, trapped, len),
		 "ECAM 0x%llx: window reads %02x.. but a trap reads %02x..",
		 (unsigned long long)off, ro[0], trapped[0]);
}

static void op_pio_any(struct vm *vm, struct fz *in)
{
	uint16_t port = fz_u16(in);
	uint8_t flags = fz_u8(in);
	uint32_t val = fz_u32(in);

	/* Mostly near where the I/O BAR lives and the Xen legacy ports. */
	if (flags & 0x80)
		port = (flags & 0x40 ? LAYOUT_PCI_IO_BASE :
			LAYOUT_XEN_LEGACY_PORT) + (port & 0x1ff);
	pio(vm, port, pick_width(flags), val, flags & 4, NULL);
}

static void op_mmio_any(struct vm *vm, struct fz *in)
{
	uint64_t addr = fz_u64(in);
	uint8_t flags = fz_u8(in), data[8];
	uint64_t val = fz_u64(in);

	if (flags & 0x80)
		addr = LAYOUT_PCI32_BASE + (addr & 0x3ffffff);
	memcpy(data, &val, 8);
	bus_access(&vm->mmio, addr, data, (flags & 7) + 1, flags & 8);
}

/* What a firmware does to place a BAR: write it, then COMMAND. */
static void op_place_bar(struct vm *vm, struct fz *in)
{
	uint32_t bdf = fz_u8(in) & 1 ? XEN_BDF : fz_u16(in);
	uint8_t bar = fz_u8(in) % PCI_NUM_BARS;
	uint32_t addr = fz_u32(in);
	uint16_t cmd = fz_u16(in);
	uint32_t reg = PCI_BASE_ADDRESS_0 + 4u * bar;

	if (fz_u8(in) & 1)
		addr = (uint32_t)LAYOUT_PCI32_BASE + (addr & 0x1fffffff);
	pio(vm, CF8, 4, PCI_CONF1_ENABLE | bdf << 8 | reg, true,
	    NULL);
	pio(vm, CF8 + 4, 4, addr, true, NULL);
	pio(vm, CF8, 4, PCI_CONF1_ENABLE | bdf << 8 | PCI_COMMAND,
	    true, NULL);
	pio(vm, CF8 + 4, 2, cmd, true, NULL);
}

static void find_xen(const struct bus_range *r, void *ctx)
{
	if (!strcmp(r->name, "xen-legacy"))
		*(struct pci_fn **)ctx = xen_platform_fn(r->opaque);
}

/* The Xen function, found the way the VMM wired it: the legacy ports'
 * range carries the device. */
static struct pci_fn *xen_fn(struct vm *vm)
{
	struct pci_fn *fn = NULL;

	bus_for_each(&vm->pio, find_xen, &fn);
	return fn;
}

static void config_from(struct vmm_config *cfg, struct fz *in)
{
	uint8_t a = fz_u8(in), b = fz_u8(in);

	cli_defaults(cfg);
	cfg->mem_size = ram_sizes[a & 3];
	cfg->ecam = (enum ecam_mode)((a >> 2) % 3);
	cfg->pci_pio = !(a & 0x20);
	cfg->xen_platform = !(a & 0x40);
	if (!cfg->pci_pio && cfg->ecam == ECAM_OFF)
		cfg->pci_pio = true;	/* the CLI refuses this pair */
	/* A read-only window maps one page per function, and the BAR check
	 * visits every function: mostly one bus, sometimes many. */
	cfg->pci_buses = 1 + ((b & 7) == 7);
	if (cfg->ecam != ECAM_RO && b >= 0xf0)
		cfg->pci_buses = b == 0xff ? 256 : 1 + (b & 0xf);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	devnull = fopen("/dev/null", "w");
	rom = mmap(NULL, ROM_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		   0);
	if (!devnull || rom == MAP_FAILED)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static void (*const ops[])(struct vm *, struct fz *) = {
		op_conf1, op_cf8_raw, op_ecam, op_ecam_ro_read, op_pio_any,
		op_mmio_any, op_place_bar, op_conf1,
	};
	struct fz in = { data, size };
	struct vmm_config cfg;
	struct pci_fn *xen;
	struct vm *vm;

	config_from(&cfg, &in);
	vm = make_vm(&cfg);
	FZ_CHECK(vm, "the machine could not be built");
	xen = xen_fn(vm);
	FZ_CHECK(!xen == !cfg.xen_platform, "Xen device present %d", !!xen);
	for (int i = 0; i < MAX_OPS && !fz_empty(&in); i++) {
		ops[fz_u8(&in) % 8](vm, &in);
		if (cfg.pci_buses <= 16)
			check_bars(vm);
		check_memslots(vm, xen);
	}
	check_bars(vm);
	free_vm(vm);
	return 0;
}
