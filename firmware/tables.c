// SPDX-License-Identifier: MIT
/*
 * ACPI, SMBIOS and the memory map (see tables.h).  Pure computation on the
 * machine description and the PCI scan; runs in ring 3.
 */
#include "firmware/io.h"
#include "firmware/lib/abi.h"
#include "firmware/lib/acpi_build.h"
#include "firmware/lib/smbios_build.h"
#include "firmware/print.h"
#include "firmware/tables.h"

#define MIB		0x100000ull

_Static_assert(ABI_TABLES_BASE < TABLES_SMBIOS &&
	       TABLES_SMBIOS < TABLES_BIOS_STUBS &&
	       TABLES_BIOS_STUBS < ABI_TABLES_END, "SMBIOS outside the tables");

static uint64_t build_acpi(const struct machine *m, const struct pci_state *p)
{
	const struct machine_pci *pci = &m->pci;
	struct acpi_config c = {
		.ncpus = m->n_cpus,
		.lapic_base = ABI_LAPIC_BASE,
		.ioapic_base = ABI_IOAPIC_BASE,
		.ecam_base = pci->ecam.start,
		.ecam_buses = pci->bus_last + 1,
		.no_ecam = !pci->has_ecam,
		.pci_io_base = (uint32_t)pci->io.start,
		.pci_io_size = (uint32_t)pci->io.size,
		.pci32_base = pci->mem32.start,
		.pci32_size = pci->mem32.size,
		.pci64_base = pci->mem64.start,
		.pci64_size = pci->mem64.size,
		.prt_slots = p->prt_slots,
		.sci_irq = ABI_ACPI_SCI_IRQ,
		.pm1a_evt_port = ABI_ACPI_PM1A_EVT_PORT,
		.pm1a_cnt_port = ABI_ACPI_PM1A_CNT_PORT,
		.pm_tmr_port = ABI_ACPI_PM_TMR_PORT,
		/* The UARTs and the RTC are ISA devices; no VGA, no 8042. */
		.iapc_boot_arch = ACPI_BOOT_LEGACY_DEVICES | ACPI_BOOT_NO_VGA,
		.rtc = true,
		.snapctl_base = m->snapctl.start,
		.snapctl_size = m->snapctl.size,
	};
	uint64_t rsdp;
	size_t used;
	int err;

	for (unsigned int i = 0; i < m->n_uart && i < ACPI_MAX_UARTS; i++)
		c.uart[i] = (struct acpi_uart){ m->uart[i].port,
						m->uart[i].irq };
	err = acpi_build(&c, phys_ptr(ABI_TABLES_BASE),
			 TABLES_SMBIOS - ABI_TABLES_BASE, ABI_TABLES_BASE,
			 &rsdp, &used);
	if (err)
		fw_fail(err == ACPI_ERR_CPUS ? ABI_FW_FAIL_CPUS :
			ABI_FW_FAIL_INTERNAL, "ACPI: %s",
			acpi_build_strerror(err));
	return rsdp;
}

static void build_smbios(void)
{
	struct smbios_config c = { .bios_version = MINIVMM_VERSION };
	size_t used;
	int err;

	err = smbios_build(&c, phys_ptr(TABLES_SMBIOS),
			   TABLES_BIOS_STUBS - TABLES_SMBIOS, TABLES_SMBIOS,
			   &used);
	if (err)
		fw_fail(ABI_FW_FAIL_INTERNAL, "SMBIOS: %s",
			smbios_build_strerror(err));
}

uint64_t tables_build(const struct machine *m, const struct pci_state *p)
{
	uint64_t rsdp = build_acpi(m, p);

	build_smbios();
	return rsdp;
}

/* Insert e (not RAM, so it overlaps no entry) in address order. */
static unsigned int insert(struct e820_entry *map, unsigned int n,
			   size_t cap, const struct e820_entry *e)
{
	unsigned int i = n;

	if (n == cap)
		fw_fail(ABI_FW_FAIL_INTERNAL, "memory map: more than %zu "
			"entries", cap);
	for (; i > 0 && map[i - 1].addr > e->addr; i--)
		map[i] = map[i - 1];
	map[i] = *e;
	return n + 1;
}

unsigned int tables_e820(const struct machine *m, struct e820_entry *out,
			 size_t cap)
{
	const struct e820_entry carve[] = {
		/* Firmware RAM (abi.h): the parked APs halt in its AP page
		 * until the OS sends them INIT/SIPI. */
		{ .addr = ABI_FW_RAM_BASE,
		  .size = ABI_FW_RAM_END - ABI_FW_RAM_BASE,
		  .type = E820_RESERVED },
		/* The boot page tables: a bzImage kernel runs on them until
		 * it loads its own CR3. */
		{ .addr = ABI_BOOT_PT_BASE,
		  .size = ABI_BOOT_PT_END - ABI_BOOT_PT_BASE,
		  .type = E820_RESERVED },
		{ .addr = ABI_LOW_MEM_END,
		  .size = ABI_TABLES_BASE - ABI_LOW_MEM_END,
		  .type = E820_OMIT },			/* VGA, option ROMs */
		{ .addr = ABI_TABLES_BASE,
		  .size = ABI_TABLES_END - ABI_TABLES_BASE,
		  .type = E820_RESERVED },		/* ACPI, SMBIOS */
	};
	int n = e820_build(m->ram, m->n_ram, carve,
			   sizeof(carve) / sizeof(carve[0]), out, cap);

	if (n < 0)
		fw_fail(ABI_FW_FAIL_INTERNAL, "memory map: error %d", n);
	if (m->pci.has_ecam) {
		const struct e820_entry ecam = {
			.addr = m->pci.ecam.start, .size = m->pci.ecam.size,
			.type = E820_RESERVED,
		};

		n = (int)insert(out, (unsigned int)n, cap, &ecam);
	}
	if (m->snapctl.size) {
		const struct e820_entry snapctl = {
			.addr = m->snapctl.start, .size = m->snapctl.size,
			.type = E820_RESERVED,
		};

		n = (int)insert(out, (unsigned int)n, cap, &snapctl);
	}
	return (unsigned int)n;
}
