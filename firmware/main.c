// SPDX-License-Identifier: MIT
/*
 * minivmm firmware: the table of contents.  entry.S brings the boot CPU
 * from reset to long mode and calls fw_main(); each phase below is a short
 * straight run that either succeeds or ends the VM with a reason
 * (fw_fail), and ends with its milestone.  Pure computation runs in ring 3
 * through user_call() (cpu.h says why); ring 0 keeps the I/O.
 *
 *   machine   ring 3: device tree -> struct machine, banner
 *   pci       ring 0: scan, size;  ring 3: BAR and MTRR plans;
 *             ring 0: BARs programmed, decoding on
 *   mtrr      ring 0: MTRRs on the boot CPU, then on every AP (smp.c)
 *   tables    ring 3: ACPI, SMBIOS, memory map, hvm_start_info,
 *             boot_params or the multiboot information (PVH, bzImage or
 *             multiboot payload)
 *   payload   ring 0: the jump
 */
#include "firmware/cpu.h"
#include "firmware/exit.h"
#include "firmware/io.h"
#include "firmware/lib/abi.h"
#include "firmware/linuxboot.h"
#include "firmware/dt.h"
#include "firmware/machine.h"
#include "firmware/mtrr.h"
#include "firmware/multiboot.h"
#include "firmware/pci.h"
#include "firmware/print.h"
#include "firmware/pvh.h"
#include "firmware/serial.h"
#include "firmware/smp.h"
#include "firmware/tables.h"

#ifndef MINIVMM_VERSION
#define MINIVMM_VERSION "unknown"
#endif

/* Shared between the ring-0 phases and their ring-3 halves.  Not zeroed
 * (.noinit): every field is written before it is read. */
struct boot {
	struct machine m;
	struct pci_state pci;
	struct mtrr_cpu cpu;
};

static struct boot boot __attribute__((section(".noinit")));

__attribute__((noreturn)) void fw_main(void);

static void read_machine(void *arg)
{
	struct boot *b = arg;

	fw_printf("minivmm firmware %s\n", MINIVMM_VERSION);
	machine_read(&b->m, phys_ptr(ABI_FDT_ADDR));
	fw_printf("machine: %llu MiB RAM, %u CPU(s)\n",
		  (unsigned long long)(b->m.ram_total >> 20), b->m.n_cpus);
}

static void plan(void *arg)
{
	struct boot *b = arg;

	pci_assign(&b->pci, &b->m);
	mtrr_plan(&b->m, &b->pci.sum, &b->cpu);
}

static void build_tables(void *arg)
{
	struct boot *b = arg;
	uint64_t rsdp = tables_build(&b->m, &b->pci);

	if (b->m.payload == PAYLOAD_PVH)
		pvh_prepare(&b->m, rsdp);
	else if (b->m.payload == PAYLOAD_BZIMAGE)
		linux_prepare(&b->m, rsdp);
	else if (b->m.payload == PAYLOAD_MULTIBOOT)
		multiboot_prepare(&b->m);
}

static void phase_end(uint8_t milestone)
{
	console_flush();
	progress(milestone);
}

void fw_main(void)
{
	struct boot *b = &boot;

	progress(ABI_MS_FW_LONG);
	cpu_init();
	user_call(read_machine, b);
	phase_end(ABI_MS_FW_FDT);

	pci_scan(&b->pci, &b->m);
	mtrr_cpu_read(&b->cpu);
	user_call(plan, b);
	pci_program(&b->pci);
	phase_end(ABI_MS_FW_PCI);

	mtrr_apply();
	smp_start_aps(&b->m);
	phase_end(ABI_MS_FW_MTRR);

	user_call(build_tables, b);
	phase_end(ABI_MS_FW_TABLES);

	if (b->m.payload == PAYLOAD_NONE)
		fw_exit(0);
	if (b->m.payload == PAYLOAD_BZIMAGE)
		linux_enter(&b->m);
	if (b->m.payload == PAYLOAD_MULTIBOOT)
		multiboot_enter(&b->m);
	pvh_enter(&b->m);
}
