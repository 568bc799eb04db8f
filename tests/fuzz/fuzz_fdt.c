// SPDX-License-Identifier: MIT
/*
 * The device-tree builder (vmm/boot/fdt.c) with every config value the CLI can
 * produce: RAM sizes (low and high RAM), 1..255 CPUs, 1..256 PCI buses,
 * ECAM and PIO modes, the Xen BAR MTRR option, a payload and initrd range,
 * and a command line of any length and bytes (up to a NUL).
 *
 * Checked: either fdt_build fails with FDT_ERR_NOSPACE (the only error a
 * config can cause: a long command line), or the tree passes
 * fdt_check_full() and reads back what went in: bootargs, the CPU nodes,
 * the memory ranges, the payload properties and the PCI bus range.
 */
#include "tests/fuzz/fuzz_util.h"
#include "vmm/boot/fdt.h"
#include "vmm/layout.h"

#include <libfdt.h>

#define MAX_APPEND	(2 * ABI_FDT_MAX)

static uint8_t fdt_buf[ABI_FDT_MAX];

static void config_from(struct vmm_config *cfg, struct gmem *mem,
			struct payload *p, struct fz *in)
{
	uint8_t a = fz_u8(in), b = fz_u8(in), c = fz_u8(in);
	uint64_t ram = (16 + 2 * (uint64_t)fz_u32(in)) * MiB;
	uint64_t low;

	cli_defaults(cfg);
	cfg->cpus = 1 + b % 255;
	cfg->pci_buses = 1 + c;
	cfg->ecam = (enum ecam_mode)(a % 3);
	cfg->pci_pio = a & 4;
	cfg->xen_platform = a & 8;
	cfg->xen_bar_mtrr = a & 16 ? XEN_BAR_UC : XEN_BAR_WB;
	/* The memory fields as gmem_init() sets them. */
	memset(mem, 0, sizeof(*mem));
	low = ram < LAYOUT_LOW_RAM_MAX ? ram : LAYOUT_LOW_RAM_MAX;
	mem->ram_size = ram;
	mem->low_ram_end = low;
	mem->high_ram_end = LAYOUT_HIGH_RAM_BASE + (ram - low);
	memset(p, 0, sizeof(*p));
	if (a & 32) {
		p->kind = PAYLOAD_PVH;
		p->entry = fz_u64(in);
		p->start = fz_u64(in);
		p->size = fz_u64(in);
	}
	if (a & 64) {
		p->initrd_start = fz_u64(in);
		p->initrd_size = fz_u64(in) | 1;
	}
}

/* Properties are only 4-byte aligned. */
static uint64_t cell64(const fdt64_t *p, int i)
{
	return fdt64_ld(p + i);
}

static const void *prop(const void *fdt, const char *path, const char *name,
			int *len)
{
	int node = fdt_path_offset(fdt, path);

	FZ_CHECK(node >= 0, "no node %s", path);
	return fdt_getprop(fdt, node, name, len);
}

static void check_cpus(const void *fdt, unsigned int n)
{
	int cpus = fdt_path_offset(fdt, "/cpus"), node;
	unsigned int count = 0;

	FZ_CHECK(cpus >= 0, "no /cpus");
	fdt_for_each_subnode(node, fdt, cpus) {
		int len;
		const fdt32_t *reg = fdt_getprop(fdt, node, "reg", &len);

		FZ_CHECK(reg && len == 4 && fdt32_ld(reg) == count,
			 "cpu %u reg", count);
		count++;
	}
	FZ_CHECK(count == n, "%u cpu nodes for %u CPUs", count, n);
}

static void check_tree(const void *fdt, const struct vmm_config *cfg,
		       const struct gmem *mem, const struct payload *p)
{
	const char *s;
	const fdt64_t *reg;
	const fdt32_t *range;
	int len;
	const char *append = cfg->append ? cfg->append : "";

	FZ_CHECK(fdt_check_full(fdt, ABI_FDT_MAX) == 0, "fdt_check_full");
	s = prop(fdt, "/chosen", "bootargs", &len);
	FZ_CHECK(s && len == (int)strlen(append) + 1 && !strcmp(s, append),
		 "bootargs differ");
	check_cpus(fdt, cfg->cpus);
	reg = prop(fdt, "/memory@0", "reg", &len);
	FZ_CHECK(reg && (len == 16 || len == 32), "memory reg of %d", len);
	FZ_CHECK(cell64(reg, 1) == mem->low_ram_end, "low RAM");
	FZ_CHECK((len == 32) == (mem->high_ram_end > LAYOUT_HIGH_RAM_BASE),
		 "high RAM range present: %d", len == 32);
	s = prop(fdt, "/chosen", ABI_PROP_PAYLOAD_KIND, &len);
	FZ_CHECK(s && !strcmp(s, p->kind == PAYLOAD_PVH ? "pvh" : "none"),
		 "payload kind");
	reg = prop(fdt, "/chosen", ABI_PROP_PAYLOAD_ENTRY, &len);
	FZ_CHECK((p->kind == PAYLOAD_PVH) == (reg != NULL) &&
		 (!reg || cell64(reg, 0) == p->entry), "payload entry");
	reg = prop(fdt, "/chosen", ABI_PROP_INITRD_RANGE, &len);
	FZ_CHECK((p->initrd_size != 0) == (reg != NULL) &&
		 (!reg || (cell64(reg, 0) == p->initrd_start &&
			   cell64(reg, 1) == p->initrd_size)),
		 "initrd range");
	range = prop(fdt, "/" ABI_PCI_NODE, ABI_PROP_BUS_RANGE, &len);
	FZ_CHECK(range && len == 8 && fdt32_ld(range + 1) ==
		 cfg->pci_buses - 1, "bus-range");
	reg = prop(fdt, "/" ABI_PCI_NODE, ABI_PROP_ECAM, &len);
	FZ_CHECK((cfg->ecam != ECAM_OFF) == (reg != NULL) &&
		 (!reg || cell64(reg, 1) == cfg->pci_buses * MiB),
		 "ECAM window");
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
	struct fz in = { data, size };
	struct vmm_config cfg;
	struct payload p;
	struct gmem mem;
	char *append;
	int err;

	config_from(&cfg, &mem, &p, &in);
	append = fz_str(&in, MAX_APPEND);
	/* No --append at all is NULL, and means an empty command line. */
	cfg.append = append[0] || (size & 1) ? append : NULL;
	memset(fdt_buf, 0xa5, sizeof(fdt_buf));
	err = fdt_build(fdt_buf, sizeof(fdt_buf), &cfg, &mem, &p);
	if (err < 0)
		FZ_CHECK(err == -FDT_ERR_NOSPACE, "fdt_build: %s",
			 fdt_strerror(err));
	else
		check_tree(fdt_buf, &cfg, &mem, &p);
	free(append);
	return 0;
}
