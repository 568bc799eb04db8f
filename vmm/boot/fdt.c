// SPDX-License-Identifier: MIT
#include "vmm/boot/fdt.h"
#include "vmm/layout.h"

#include <libfdt.h>
#include <stdio.h>

#define TRY(x) do { int _e = (x); if (_e < 0) return _e; } while (0)

static int prop_u64s(void *fdt, const char *name, const uint64_t *v, int n)
{
	fdt64_t cells[4 * PAYLOAD_LOW_MAX];

	if (n > (int)(sizeof(cells) / sizeof(cells[0])))
		return -FDT_ERR_BADVALUE;
	for (int i = 0; i < n; i++)
		cells[i] = cpu_to_fdt64(v[i]);
	return fdt_property(fdt, name, cells, (int)(n * sizeof(cells[0])));
}

static int add_memory(void *fdt, const struct gmem *mem)
{
	uint64_t reg[4];
	int n = 0;

	reg[n++] = 0;
	reg[n++] = mem->low_ram_end;
	if (mem->high_ram_end > LAYOUT_HIGH_RAM_BASE) {
		reg[n++] = LAYOUT_HIGH_RAM_BASE;
		reg[n++] = mem->high_ram_end - LAYOUT_HIGH_RAM_BASE;
	}
	TRY(fdt_begin_node(fdt, "memory@0"));
	TRY(fdt_property_string(fdt, "device_type", "memory"));
	TRY(prop_u64s(fdt, "reg", reg, n));
	return fdt_end_node(fdt);
}

static int add_cpus(void *fdt, unsigned int n)
{
	char name[16];

	TRY(fdt_begin_node(fdt, "cpus"));
	TRY(fdt_property_u32(fdt, "#address-cells", 1));
	TRY(fdt_property_u32(fdt, "#size-cells", 0));
	for (unsigned int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "cpu@%u", i);
		TRY(fdt_begin_node(fdt, name));
		TRY(fdt_property_string(fdt, "device_type", "cpu"));
		TRY(fdt_property_u32(fdt, "reg", i));
		TRY(fdt_end_node(fdt));
	}
	return fdt_end_node(fdt);
}

static const char *kind_name(enum payload_kind k)
{
	return k == PAYLOAD_PVH ? "pvh" : k == PAYLOAD_BZIMAGE ? "bzimage" :
	       k == PAYLOAD_MULTIBOOT ? "multiboot" : "none";
}

static int add_low_segments(void *fdt, const struct payload *p)
{
	uint64_t v[4 * PAYLOAD_LOW_MAX];

	for (int i = 0; i < p->nlow && i < PAYLOAD_LOW_MAX; i++) {
		v[4 * i] = p->low[i].dst;
		v[4 * i + 1] = p->low[i].src;
		v[4 * i + 2] = p->low[i].filesz;
		v[4 * i + 3] = p->low[i].memsz;
	}
	return prop_u64s(fdt, ABI_PROP_LOW_SEGMENTS, v, 4 * p->nlow);
}

static int add_chosen(void *fdt, const struct vmm_config *cfg,
		      const struct payload *p)
{
	TRY(fdt_begin_node(fdt, "chosen"));
	TRY(fdt_property_string(fdt, "bootargs", p->cmdline[0] ? p->cmdline :
				cfg->append ? cfg->append : ""));
	TRY(fdt_property_string(fdt, ABI_PROP_VERSION, MINIVMM_VERSION));
	TRY(fdt_property_string(fdt, ABI_PROP_PAYLOAD_KIND,
				kind_name(p->kind)));
	if (p->kind != PAYLOAD_NONE) {
		uint64_t range[2] = { p->start, p->size };

		TRY(fdt_property_u64(fdt, ABI_PROP_PAYLOAD_ENTRY, p->entry));
		TRY(prop_u64s(fdt, ABI_PROP_PAYLOAD_RANGE, range, 2));
	}
	if (p->kind == PAYLOAD_BZIMAGE)
		TRY(fdt_property(fdt, ABI_PROP_SETUP_HEADER, p->setup_header,
				 (int)p->setup_header_len));
	if (p->nlow)
		TRY(add_low_segments(fdt, p));
	if (p->initrd_size) {
		uint64_t range[2] = { p->initrd_start, p->initrd_size };

		TRY(prop_u64s(fdt, ABI_PROP_INITRD_RANGE, range, 2));
	}
	TRY(fdt_property_string(fdt, ABI_PROP_OPTIONS,
				cfg->xen_bar_mtrr == XEN_BAR_UC ?
				"xen-bar-mtrr=uc" : "xen-bar-mtrr=wb"));
	return fdt_end_node(fdt);
}

/* The PCI windows follow from the layout and the options: see layout.h. */
static int add_pci(void *fdt, const struct vmm_config *cfg,
		   const struct gmem *mem)
{
	uint64_t io[2] = { LAYOUT_PCI_IO_BASE, LAYOUT_PCI_IO_SIZE };
	uint64_t m32[2] = { LAYOUT_PCI32_BASE, LAYOUT_PCI32_SIZE };
	uint64_t m64[2] = { layout_pci64_base(mem->high_ram_end),
			    LAYOUT_PCI64_SIZE };
	uint64_t ecam[2] = { LAYOUT_ECAM_BASE,
			     (uint64_t)cfg->pci_buses * MiB };
	uint32_t range[2] = { cpu_to_fdt32(0),
			      cpu_to_fdt32(cfg->pci_buses - 1) };

	TRY(fdt_begin_node(fdt, ABI_PCI_NODE));
	TRY(fdt_property_string(fdt, "compatible", ABI_PCI_COMPATIBLE));
	TRY(fdt_property(fdt, ABI_PROP_BUS_RANGE, range, sizeof(range)));
	if (cfg->ecam != ECAM_OFF)
		TRY(prop_u64s(fdt, ABI_PROP_ECAM, ecam, 2));
	TRY(fdt_property_u32(fdt, ABI_PROP_PIO, cfg->pci_pio));
	TRY(prop_u64s(fdt, ABI_PROP_IO_WINDOW, io, 2));
	TRY(prop_u64s(fdt, ABI_PROP_MEM32_WINDOW, m32, 2));
	TRY(prop_u64s(fdt, ABI_PROP_MEM64_WINDOW, m64, 2));
	return fdt_end_node(fdt);
}

/* The snapshot control page (devices/test/snapctl.h): MMIO the guest OS must
 * not give to anything else (the firmware reserves it in e820 and ACPI). */
static int add_snapctl(void *fdt)
{
	uint64_t reg[2] = { LAYOUT_SNAPCTL_BASE, LAYOUT_SNAPCTL_SIZE };
	char name[40];

	snprintf(name, sizeof(name), ABI_SNAPCTL_NODE "@%llx",
		 (unsigned long long)LAYOUT_SNAPCTL_BASE);
	TRY(fdt_begin_node(fdt, name));
	TRY(fdt_property_string(fdt, "compatible", ABI_SNAPCTL_COMPATIBLE));
	TRY(prop_u64s(fdt, "reg", reg, 2));
	return fdt_end_node(fdt);
}

/* A 16550A the firmware announces (DSDT PNP0501) so the OS finds it. */
static int add_serial(void *fdt, uint32_t port, uint32_t irq)
{
	char name[24];

	snprintf(name, sizeof(name), ABI_SERIAL_NODE "@%x", port);
	TRY(fdt_begin_node(fdt, name));
	TRY(fdt_property_string(fdt, "compatible", ABI_SERIAL_COMPATIBLE));
	TRY(fdt_property_u32(fdt, ABI_PROP_IO_PORT, port));
	TRY(fdt_property_u32(fdt, ABI_PROP_INTERRUPTS, irq));
	return fdt_end_node(fdt);
}

int fdt_build(void *buf, size_t size, const struct vmm_config *cfg,
	      const struct gmem *mem, const struct payload *p)
{
	void *fdt = buf;

	TRY(fdt_create(fdt, (int)size));
	TRY(fdt_finish_reservemap(fdt));
	TRY(fdt_begin_node(fdt, ""));
	TRY(fdt_property_string(fdt, "compatible", ABI_FDT_COMPATIBLE));
	TRY(fdt_property_string(fdt, "model", "minivmm"));
	TRY(fdt_property_u32(fdt, "#address-cells", 2));
	TRY(fdt_property_u32(fdt, "#size-cells", 2));
	TRY(add_memory(fdt, mem));
	TRY(add_cpus(fdt, cfg->cpus));
	TRY(add_chosen(fdt, cfg, p));
	TRY(add_pci(fdt, cfg, mem));
	TRY(add_snapctl(fdt));
	TRY(add_serial(fdt, ABI_UART_PORT, ABI_UART_IRQ));
	if (cfg->com2)
		TRY(add_serial(fdt, ABI_UART2_PORT, ABI_UART2_IRQ));
	TRY(fdt_end_node(fdt));
	return fdt_finish(fdt);
}
