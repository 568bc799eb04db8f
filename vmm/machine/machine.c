// SPDX-License-Identifier: MIT
/* Machine assembly.  vm_create() reads as the machine's parts list, in
 * order. */
#include "vmm/machine/machine.h"
#include "devices/acpi_pm.h"
#include "devices/uart16550.h"
#include "vmm/boot/boot_pt.h"
#include "vmm/boot/fdt.h"
#include "vmm/boot/linux.h"
#include "vmm/gdb/gdb.h"
#include "vmm/qmp/qmp.h"
#include "vmm/x86/cpuid.h"
#include "vmm/run/exit_status.h"
#include "vmm/host/host.h"
#include "vmm/layout.h"
#include "vmm/msr/vm.h"
#include "vmm/machine/pci_vm.h"
#include "vmm/machine/platform.h"
#include "vmm/machine/suspend.h"
#include "vmm/snapshot/snapshot.h"
#include "vmm/vcpu.h"
#include "vmm/machine/virtio_vm.h"
#include "vmm/vm.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <unistd.h>

/* --- devices ------------------------------------------------------- */

static void on_test_exit(void *ctx, uint32_t value, uint32_t width)
{
	struct vm *vm = ctx;

	uint32_t reason;
	int status = vm->cfg->exit_qemu ?
		     exit_status_qemu_style(value, &reason) :
		     exit_status_from_test_exit(value, &reason);

	(void)width;
	if (status == EXIT_FIRMWARE)
		vm_stop(vm, status, "firmware reported failure %u", reason);
	else if (vm->cfg->cmd)
		vm_stop(vm, status, NULL);	/* the command's status */
	else
		vm_stop(vm, status, "guest test-exit 0x%x (status %d)", value,
			status);
}

static void on_progress(void *ctx, uint32_t value, uint32_t width)
{
	struct vm *vm = ctx;

	(void)width;
	timing_milestone(&vm->timing, (uint8_t)value);
}

static void on_poweroff(void *ctx)
{
	vm_stop(ctx, EXIT_POWEROFF, "guest powered off (ACPI S5)");
}

/* The in-kernel IOAPIC and LAPIC never exit, but a BAR placed over them
 * would hide them behind a memslot or an MMIO range: claim their ranges on
 * the MMIO bus so BAR placement sees them as taken. */
static const struct bus_ops in_kernel_ops;

static int reserve_in_kernel(struct vm *vm)
{
	if (bus_register(&vm->mmio, ABI_IOAPIC_BASE, LAYOUT_APIC_SIZE,
			 &in_kernel_ops, vm, "ioapic (kvm)") < 0 ||
	    bus_register(&vm->mmio, ABI_LAPIC_BASE, LAYOUT_APIC_SIZE,
			 &in_kernel_ops, vm, "lapic (kvm)") < 0)
		return -1;
	return 0;
}

static void on_reset(void *ctx)
{
	vm_event(ctx, "RESET",
		 "{\"guest\": true, \"reason\": \"guest-reset\"}");
	vm_stop(ctx, EXIT_GUEST_RESET, "guest reset the machine (8042 "
		"command 0xfe)");
}

static size_t uart_in_space(void *ctx)
{
	return uart_rx_space(ctx);
}

static size_t uart_in(void *ctx, const uint8_t *buf, size_t n)
{
	return uart_receive(ctx, buf, n);
}

/* The FADT's PM ports are the device's registers. */
_Static_assert(ABI_ACPI_PM1A_EVT_PORT - ABI_ACPI_PM_PORT == ACPI_PM_REG_STS &&
	       ABI_ACPI_PM1A_CNT_PORT - ABI_ACPI_PM_PORT == ACPI_PM_REG_CNT &&
	       ABI_ACPI_PM_TMR_PORT - ABI_ACPI_PM_PORT == ACPI_PM_REG_TMR &&
	       ABI_ACPI_PM_PORTS_LEN == ACPI_PM_REGS_LEN,
	       "ACPI PM ports and registers disagree");

/* COM2 (a second --serial), for KGDB or a log: the firmware's DSDT
 * lists it, from the FDT. */
static int add_com2(struct vm *vm)
{
	struct irq_line irq = gsi_line(&vm->gsi, ABI_UART2_IRQ);
	struct uart_sink sink = { console_write_com2, &vm->console };

	if (!vm->cfg->com2)
		return 0;
	vm->uart2 = uart_create(irq, sink);
	if (!vm->uart2)
		return -1;
	console_set_input(&vm->console, CONSOLE_SRC_COM2,
			  (struct chardev_target){ uart_in_space, uart_in,
						   vm->uart2 });
	return bus_register(&vm->pio, ABI_UART2_PORT, UART_NR_PORTS,
			    &uart_ops, vm->uart2, "uart-com2");
}

static int add_devices(struct vm *vm)
{
	struct irq_line uart_irq = gsi_line(&vm->gsi, ABI_UART_IRQ);
	struct uart_sink sink = { console_write, &vm->console };

	if (reserve_in_kernel(vm) < 0)
		return -1;
	vm->uart = uart_create(uart_irq, sink);
	console_set_input(&vm->console, CONSOLE_SRC_UART,
			  (struct chardev_target){ uart_in_space, uart_in,
						   vm->uart });
	vm->exit_port = (struct debug_port){ on_test_exit, vm };
	vm->progress_port = (struct debug_port){ on_progress, vm };
	acpi_pm_init(&vm->acpi_pm, timing_now_ns, on_poweroff, vm);
	vm->acpi_pm.suspend = suspend_to_ram;
	acpi_pm_set_sci(&vm->acpi_pm, gsi_line(&vm->gsi, ABI_ACPI_SCI_IRQ));
	vm->reset_port = (struct i8042_reset){ on_reset, vm };
	if (!vm->uart ||
	    bus_register(&vm->pio, ABI_UART_PORT, UART_NR_PORTS, &uart_ops,
			 vm->uart, "uart-com1") < 0 ||
	    bus_register(&vm->pio, ABI_TEST_EXIT_PORT, 1, &debug_port_ops,
			 &vm->exit_port, "test-exit") < 0 ||
	    bus_register(&vm->mmio, ABI_TEST_EXIT_MMIO, 4, &debug_port_ops,
			 &vm->exit_port, "test-exit-mmio") < 0 ||
	    bus_register(&vm->pio, ABI_PROGRESS_PORT, 1, &debug_port_ops,
			 &vm->progress_port, "boot-progress") < 0 ||
	    bus_register(&vm->pio, ABI_ACPI_PM_PORT, ACPI_PM_REGS_LEN,
			 &acpi_pm_ops, &vm->acpi_pm, "acpi-pm") < 0 ||
	    bus_register(&vm->pio, LAYOUT_I8042_CMD_PORT, 1, &i8042_reset_ops,
			 &vm->reset_port, "i8042-reset") < 0 ||
	    add_com2(vm) < 0) {
		fprintf(stderr, "minivmm: error: registering devices\n");
		return -1;
	}
	return platform_add(vm);
}

/* --- stats reporters ---------------------------------------------- */

static void print_range(const struct bus_range *r, void *ctx)
{
	FILE *out = ctx;

	fprintf(out, "  %-16s 0x%08llx+0x%-6llx reads %10llu  writes %10llu\n",
		r->name, (unsigned long long)r->base,
		(unsigned long long)r->len, (unsigned long long)r->reads,
		(unsigned long long)r->writes);
	if (r->queued)	/* writes KVM queued (coalesced), no exits */
		fprintf(out, "  %-16s %20s queued %9llu (no exits)\n", "",
			"", (unsigned long long)r->queued);
}

static void print_bus(struct bus *b, FILE *out)
{
	fprintf(out, "%s exits by range:\n", b->name);
	bus_for_each(b, print_range, out);
	if (b->unclaimed_reads || b->unclaimed_writes)
		fprintf(out, "  %-16s %20s reads %10llu  writes %10llu\n",
			"(unclaimed)", "", (unsigned long long)b->unclaimed_reads,
			(unsigned long long)b->unclaimed_writes);
}

static void print_coalesced(struct coalesced *c, FILE *out)
{
	if (!c->asked)
		return;
	if (!c->offered) {
		fprintf(out, "  coalesced PIO: off, KVM lacks "
			"KVM_CAP_COALESCED_PIO (every CF8 write exits)\n");
		return;
	}
	fprintf(out, "  coalesced PIO: %llu queued writes applied at %llu "
		"exits\n", (unsigned long long)atomic_load(&c->applied),
		(unsigned long long)atomic_load(&c->drains));
}

static void print_buses(void *ctx, FILE *out)
{
	struct vm *vm = ctx;

	print_bus(&vm->pio, out);
	print_coalesced(&vm->coalesced, out);
	print_bus(&vm->mmio, out);
}

static void json_range(const struct bus_range *r, void *ctx)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", r->name);
	cJSON_AddNumberToObject(o, "base", (double)r->base);
	cJSON_AddNumberToObject(o, "len", (double)r->len);
	cJSON_AddNumberToObject(o, "reads", (double)r->reads);
	cJSON_AddNumberToObject(o, "writes", (double)r->writes);
	cJSON_AddNumberToObject(o, "queued", (double)r->queued);
	cJSON_AddItemToArray(ctx, o);
}

static void json_buses(void *ctx, cJSON *root)
{
	struct vm *vm = ctx;
	struct bus *buses[] = { &vm->pio, &vm->mmio };

	for (int i = 0; i < 2; i++) {
		cJSON *a = cJSON_AddArrayToObject(root, buses[i]->name);

		bus_for_each(buses[i], json_range, a);
	}
	if (vm->coalesced.asked) {
		cJSON *o = cJSON_AddObjectToObject(root, "coalesced_pio");

		cJSON_AddBoolToObject(o, "offered", vm->coalesced.offered);
		cJSON_AddNumberToObject(o, "applied",
			(double)atomic_load(&vm->coalesced.applied));
		cJSON_AddNumberToObject(o, "drains",
			(double)atomic_load(&vm->coalesced.drains));
	}
}

/* --- assembly ------------------------------------------------------ */

static int check_limits(struct vm *vm, const struct vmm_config *cfg)
{
	struct sysinfo si;

	if (cfg->cpus > vm->kvm.max_vcpus) {
		fprintf(stderr, "minivmm: error: --cpus %u: KVM allows at most "
			"%u here\n", cfg->cpus, vm->kvm.max_vcpus);
		return -1;
	}
	if (sysinfo(&si) == 0 &&
	    cfg->mem_size > (uint64_t)si.totalram * si.mem_unit) {
		fprintf(stderr, "minivmm: error: --memory %llu MiB is more than "
			"this host has (%llu MiB)\n",
			(unsigned long long)(cfg->mem_size >> 20),
			(unsigned long long)(((uint64_t)si.totalram *
					      si.mem_unit) >> 20));
		return -1;
	}
	return 0;
}

static const char *default_firmware(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 32);
	char *slash;

	if (n <= 0)
		return "firmware.bin";
	buf[n] = 0;
	slash = strrchr(buf, '/');
	strcpy(slash ? slash + 1 : buf, "firmware.bin");
	return buf;
}

static int load_images(struct vm *vm, const struct vmm_config *cfg)
{
	char path[4096];
	const char *fw = cfg->firmware;

	if (!fw)
		fw = default_firmware(path, sizeof(path));
	if (rom_load(&vm->mem, fw, &vm->rom) < 0)
		return -1;
	return payload_load(&vm->mem, cfg, vm->host, &vm->payload);
}

static int write_fdt(struct vm *vm, const struct vmm_config *cfg)
{
	void *p = gmem_ptr(&vm->mem, ABI_FDT_ADDR, ABI_FDT_MAX);
	int err;

	if (!p)
		return -1;
	err = fdt_build(p, ABI_FDT_MAX, cfg, &vm->mem, &vm->payload);
	if (err < 0) {
		fprintf(stderr, "minivmm: error: machine description does not "
			"fit in %u bytes (command line too long?)\n",
			ABI_FDT_MAX);
		return -1;
	}
	return 0;
}

/* What the vCPU loops see of the machine; the MSR policy registers its
 * handler later (msr_vm_install). */
static void set_exits(struct vm *vm)
{
	vm->quirk_ctx = (struct quirk_ctx){ &vm->mem, &vm->stats,
					    &vm->host->log };
	vm->exits = (struct vcpu_exits){
		.pio = &vm->pio,
		.mmio = &vm->mmio,
		.stats = &vm->stats,
		.queued = &vm->coalesced,
		.stop = vm_stop_from_vcpu,
		.stop_ctx = vm,
		.stopping = &vm->stopping,
		.pausing = &vm->pause.pausing,
		.park = vm_pause_park,
		.park_ctx = &vm->pause,
	};
	host_internal_error_hook(vm->host, &vm->quirk_ctx,
				 &vm->exits.internal_error);
}

static int create_vcpus(struct vm *vm)
{
	vm->vcpus = calloc(vm->ncpus, sizeof(*vm->vcpus));
	if (!vm->vcpus)
		return -1;
	if (vm_pause_init(&vm->pause, vm->vcpus, vm->ncpus,
			  &vm->stopping) < 0)
		return -1;
	vm->pause_ready = true;
	set_exits(vm);
	for (unsigned int i = 0; i < vm->ncpus; i++) {
		struct vcpu *v = &vm->vcpus[i];

		v->fd = -1;
		if (vcpu_create(vm->kvm.vm_fd, (size_t)vm->kvm.vcpu_mmap_size,
				i, &vm->exits, v) < 0 ||
		    cpuid_setup(vm->host, vm->kvm.sys_fd, vm->ncpus,
				vm->cfg->cpuid, v) < 0)
			return -1;
	}
	/* The coalesced ring is the page after the first vCPU's kvm_run. */
	if (coalesced_attach(&vm->coalesced, vm->vcpus[0].run,
			     vm->vcpus[0].run_size) < 0) {
		fprintf(stderr, "minivmm: error: KVM's vCPU mapping lacks the "
			"coalesced I/O ring\n");
		return -1;
	}
	return 0;
}

/* --syscall-fix on where the host's quirks have no fix: said, and off. */
static void syscall_fix_note(const struct vm *vm)
{
	if (vm->cfg->syscall_fix == SYSCALL_FIX_ON &&
	    !host_quirk_on(vm->host, QUIRK_SYSCALL_FIX))
		fprintf(stderr, "minivmm: --syscall-fix on: this host's KVM "
			"runs guest ring 0 in hardware, SYSCALL needs no "
			"help: staying off\n");
}

struct vm *vm_create(const struct vmm_config *cfg, struct host *h,
		     int *status)
{
	struct vm *vm = calloc(1, sizeof(*vm));
	int usage;

	*status = EXIT_VMM_ERROR;
	if (!vm)
		return NULL;
	vm->cfg = cfg;
	vm->host = h;
	vm->kvm.sys_fd = vm->kvm.vm_fd = -1;
	gsi_init(&vm->gsi, &vm->kvm);
	vm->stop_fd = eventfd(0, EFD_CLOEXEC);
	pthread_mutex_init(&vm->stop_lock, NULL);
	snap_registry_init(&vm->snap_reg);
	timing_init(&vm->timing);
	stats_init(&vm->stats);
	bus_init(&vm->pio, "pio", 0x10000);
	vm->pio.whole_access = true;
	bus_init(&vm->mmio, "mmio", UINT64_MAX);
	coalesced_init(&vm->coalesced, &vm->pio);
	stats_add_reporter(&vm->stats, (struct stats_reporter){
		print_buses, json_buses, vm });
	*status = EXIT_USAGE;
	host_vm_prepare(h, vm);	/* the syscall fix's MSRs: into the filter */
	if (console_open(&vm->console, cfg->console, cfg->console_file) < 0 ||
	    console_attach(&vm->console, cfg) < 0 || msr_vm_prepare(vm) < 0 ||
	    virtio_vm_prepare(vm) < 0)
		goto fail;
	if (cfg->timing) {
		console_marks_init(&vm->console_marks, &vm->timing);
		vm->console.marks = &vm->console_marks;
	}
	*status = EXIT_VMM_ERROR;
	if (kvm_open(&vm->kvm) < 0)
		goto fail;
	timing_event(&vm->timing, "KVM VM created");
	vm->ncpus = cfg->cpus;
	*status = EXIT_USAGE;
	if (check_limits(vm, cfg) < 0)
		goto fail;
	if (gmem_init(&vm->mem, vm->kvm.vm_fd, cfg->mem_size) < 0) {
		fprintf(stderr, "minivmm: error: --memory %llu MiB: cannot map "
			"guest RAM: %s\n",
			(unsigned long long)(cfg->mem_size >> 20),
			strerror(errno));
		goto fail;
	}
	/* vhost-user back ends map guest RAM themselves. */
	if (cfg->nfs && gmem_share(&vm->mem) < 0) {
		fprintf(stderr, "minivmm: error: cannot share guest RAM with "
			"the vhost-user back end (memfd): %s\n",
			strerror(errno));
		goto fail;
	}
	/* A restore maps the snapshot's ROM and RAM instead (restore.c). */
	if (!cfg->restore &&
	    (load_images(vm, cfg) < 0 || write_fdt(vm, cfg) < 0 ||
	     boot_pt_write(&vm->mem) < 0))
		goto fail;
	*status = EXIT_VMM_ERROR;
	if (add_devices(vm) < 0 || pci_vm_setup(vm) < 0 ||
	    create_vcpus(vm) < 0)
		goto fail;
	if (msr_vm_install(vm) < 0 || host_vm_install(h, vm) < 0)
		goto fail;
	syscall_fix_note(vm);
	stats_add_reporter(&vm->stats, host_stats_reporter(h));
	if (snapshot_setup(vm, &usage) < 0 || gdb_setup(vm, &usage) < 0 ||
	    qmp_setup(vm, &usage) < 0) {
		*status = usage ? EXIT_USAGE : EXIT_VMM_ERROR;
		goto fail;
	}
	timing_event(&vm->timing, "machine assembled");
	return vm;
fail:
	vm_destroy(vm);
	return NULL;
}

void vm_destroy(struct vm *vm)
{
	if (!vm)
		return;
	qmp_finish(vm);
	gdb_finish(vm);
	snapshot_destroy(vm);
	snap_registry_free(&vm->snap_reg);
	msr_vm_destroy(vm);
	host_vm_destroy(vm->host, vm);
	for (unsigned int i = 0; vm->vcpus && i < vm->ncpus; i++)
		vcpu_destroy(&vm->vcpus[i]);
	free(vm->vcpus);
	pci_vm_destroy(vm);	/* stops the virtio device threads */
	virtio_vm_destroy(vm);
	platform_destroy(vm);
	uart_destroy(vm->uart);
	uart_destroy(vm->uart2);
	gmem_destroy(&vm->mem);
	if (vm->rom.host)
		munmap(vm->rom.host, vm->rom.size);
	gsi_destroy(&vm->gsi);
	kvm_close(&vm->kvm);
	coalesced_destroy(&vm->coalesced);
	console_close(&vm->console);
	bus_destroy(&vm->pio);
	bus_destroy(&vm->mmio);
	if (vm->stop_fd >= 0)
		close(vm->stop_fd);
	if (vm->pause_ready)
		vm_pause_destroy(&vm->pause);
	free(vm);
}
