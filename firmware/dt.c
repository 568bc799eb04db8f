// SPDX-License-Identifier: MIT
/*
 * Reading the machine description (FDT) with libfdt, in one pass over the
 * tree: every libfdt lookup by path or name rescans the blob, so nodes are
 * visited once, only the nodes that matter have their names and
 * properties read, and properties are dispatched by name.  This runs in
 * ring 3 (cpu.h), which the target host executes natively.  The /pci node
 * is checked in dt_pci.c; what the payload properties mean is checked
 * where they are used (pvh.c).
 */
#include <libfdt.h>

#include "firmware/dt.h"
#include "firmware/dt_pci.h"
#include "firmware/dt_prop.h"
#include "firmware/lib/abi.h"
#include "firmware/machine.h"
#include "firmware/print.h"

#define fail(...)	fw_fail(ABI_FW_FAIL_FDT, __VA_ARGS__)
#define FOUR_GIB	0x100000000ull

enum node_kind { N_OTHER, N_ROOT, N_MEMORY, N_CPUS, N_CPU, N_CHOSEN, N_PCI,
		 N_SNAPCTL, N_SERIAL };

struct seen {
	bool compatible, address_cells, size_cells, memory, cpus;
	bool pvh_entry, pvh_range;
	struct pci_seen pci;
};

static void root_prop(const struct prop *p, struct seen *seen)
{
	if (prop_is(p, "compatible")) {
		if (!fdt_stringlist_contains(p->val, p->len, ABI_FDT_COMPATIBLE))
			fail("root node is not compatible with \"%s\"",
			     ABI_FDT_COMPATIBLE);
		seen->compatible = true;
	} else if (prop_is(p, "#address-cells")) {
		if (prop_u32(p) != 2)
			fail("root #address-cells must be 2");
		seen->address_cells = true;
	} else if (prop_is(p, "#size-cells")) {
		if (prop_u32(p) != 2)
			fail("root #size-cells must be 2");
		seen->size_cells = true;
	}
}

static void ram_summary(struct machine *m)
{
	m->ram_total = m->low_ram_end = m->high_ram_end = 0;
	for (unsigned int i = 0; i < m->n_ram; i++) {
		uint64_t end = m->ram[i].addr + m->ram[i].size;

		m->ram_total += m->ram[i].size;		/* disjoint: no wrap */
		if (end <= FOUR_GIB)
			m->low_ram_end = end;
		else if (m->ram[i].addr >= FOUR_GIB)
			m->high_ram_end = end;
		else
			fail("/memory@0 range [0x%llx, 0x%llx) spans 4 GiB",
			     (unsigned long long)m->ram[i].addr,
			     (unsigned long long)end);
	}
}

static void memory_reg(struct machine *m, const struct prop *p)
{
	const fdt64_t *reg = p->val;
	int err;

	if (p->len <= 0 || p->len % 16)
		fail("/memory@0 reg must be <u64 address, u64 size> pairs");
	if (p->len / 16 > MACHINE_MAX_RAM)
		fail("/memory@0 has more than %d ranges", MACHINE_MAX_RAM);
	m->n_ram = (unsigned int)p->len / 16;
	for (unsigned int i = 0; i < m->n_ram; i++)
		m->ram[i] = (struct e820_entry){
			.addr = fdt64_ld(&reg[2 * i]),
			.size = fdt64_ld(&reg[2 * i + 1]),
			.type = E820_RAM,
		};
	err = e820_ram_sort(m->ram, m->n_ram);
	if (err)
		fail("/memory@0 ranges are %s", err == -E820_EOVERLAP ?
		     "overlapping" : "empty or wrap around");
	ram_summary(m);
}

static enum payload_kind parse_kind(const char *kind)
{
	if (!strcmp(kind, "none"))
		return PAYLOAD_NONE;
	if (!strcmp(kind, "pvh"))
		return PAYLOAD_PVH;
	if (!strcmp(kind, "bzimage"))
		return PAYLOAD_BZIMAGE;
	if (!strcmp(kind, "multiboot"))
		return PAYLOAD_MULTIBOOT;
	fail("unknown %s \"%s\"", ABI_PROP_PAYLOAD_KIND, kind);
}

/* <dst src filesz memsz> quadruples; what they mean is checked where
 * they are used (multiboot.c). */
static void low_segments(struct machine *m, const struct prop *p)
{
	const fdt64_t *v = p->val;

	if (p->len <= 0 || p->len % 32)
		fail("%s must be <u64 dst, src, filesz, memsz> quadruples",
		     ABI_PROP_LOW_SEGMENTS);
	if (p->len / 32 > MACHINE_MAX_LOW)
		fail("%s: more than %d segments", ABI_PROP_LOW_SEGMENTS,
		     MACHINE_MAX_LOW);
	m->n_low = (unsigned int)p->len / 32;
	for (unsigned int i = 0; i < m->n_low; i++)
		m->low[i] = (struct low_segment){
			fdt64_ld(&v[4 * i]), fdt64_ld(&v[4 * i + 1]),
			fdt64_ld(&v[4 * i + 2]), fdt64_ld(&v[4 * i + 3]),
		};
}

#define MINIVMM_PREFIX	"minivmm,"
#define PREFIX_LEN	(sizeof(MINIVMM_PREFIX) - 1)

/* The minivmm,* properties of /chosen (all ABI_PROP_* names start with
 * MINIVMM_PREFIX), matched without the common prefix. */
#define TAIL(name)	((name) + PREFIX_LEN)

static void minivmm_prop(struct machine *m, const struct prop *full,
			 struct seen *seen)
{
	struct prop tail = *full, *p = &tail;
	uint64_t r[2];

	tail.name += PREFIX_LEN;
	if (prop_is(p, TAIL(ABI_PROP_OPTIONS))) {
		m->options = prop_string(full);
	} else if (prop_is(p, TAIL(ABI_PROP_PAYLOAD_KIND))) {
		m->payload = parse_kind(prop_string(full));
	} else if (prop_is(p, TAIL(ABI_PROP_PAYLOAD_ENTRY))) {
		prop_u64s(full, &m->payload_entry, 1);
		seen->pvh_entry = true;
	} else if (prop_is(p, TAIL(ABI_PROP_PAYLOAD_RANGE))) {
		prop_u64s(full, r, 2);
		m->payload_range = (struct mem_range){ r[0], r[1] };
		seen->pvh_range = true;
	} else if (prop_is(p, TAIL(ABI_PROP_LOW_SEGMENTS))) {
		low_segments(m, full);
	} else if (prop_is(p, TAIL(ABI_PROP_INITRD_RANGE))) {
		prop_u64s(full, r, 2);
		m->initrd = (struct mem_range){ r[0], r[1] };
		m->has_initrd = true;
	}
}

static void chosen_prop(struct machine *m, const struct prop *p,
			struct seen *seen)
{
	if (prop_is(p, "bootargs"))
		m->bootargs = prop_string(p);
	else if (!memcmp(p->name, MINIVMM_PREFIX, PREFIX_LEN))
		minivmm_prop(m, p, seen);
}

/* MMIO below 4 GiB, page-aligned, clear of RAM: the memory map and the
 * DSDT reserve it for the VMM. */
static void snapctl_reg(struct machine *m, const struct prop *p)
{
	uint64_t r[2];

	if (p->len != 16)
		fail("/%s reg must be <u64 address, u64 size>",
		     ABI_SNAPCTL_NODE);
	prop_u64s(p, r, 2);
	if (!r[1] || (r[0] | r[1]) & 0xfff || r[0] >= FOUR_GIB ||
	    r[1] > FOUR_GIB - r[0])
		fail("/%s reg [0x%llx, +0x%llx) is not a page range below "
		     "4 GiB", ABI_SNAPCTL_NODE,
		     (unsigned long long)r[0], (unsigned long long)r[1]);
	m->snapctl = (struct mem_range){ r[0], r[1] };
}

/* A UART's port and ISA IRQ: 8 ports below the PCI I/O window, an IRQ
 * the PICs and the IOAPIC's ISA pins have (not 2, the cascade). */
static void serial_prop(struct machine *m, const struct prop *p)
{
	struct machine_uart *u = &m->uart[m->n_uart];
	uint32_t v;

	if (!prop_is(p, ABI_PROP_IO_PORT) && !prop_is(p, ABI_PROP_INTERRUPTS))
		return;
	if (p->len != 4)
		fail("/%s@: %s must be one u32", ABI_SERIAL_NODE, p->name);
	v = prop_u32(p);
	if (prop_is(p, ABI_PROP_IO_PORT)) {
		if (!v || v & 7 || v + 8 > MACHINE_PCI_IO_MIN)
			fail("/%s@: port 0x%x is not 8 ports below 0x%x",
			     ABI_SERIAL_NODE, v, MACHINE_PCI_IO_MIN);
		u->port = (uint16_t)v;
	} else {
		if (!v || v == 2 || v > 15)
			fail("/%s@: IRQ %u is not an ISA IRQ (1..15, not 2)",
			     ABI_SERIAL_NODE, v);
		u->irq = (uint8_t)v;
	}
}

static void node_props(const void *fdt, int node, enum node_kind kind,
		       struct machine *m, struct seen *seen)
{
	int off;

	fdt_for_each_property_offset(off, fdt, node) {
		struct prop p;

		p.val = fdt_getprop_by_offset(fdt, off, &p.name, &p.len);
		if (!p.val)
			fail("bad property: %s", fdt_strerror(p.len));
		if (kind == N_ROOT) {
			root_prop(&p, seen);
		} else if (kind == N_MEMORY && prop_is(&p, "reg")) {
			memory_reg(m, &p);
			seen->memory = true;
		} else if (kind == N_CHOSEN) {
			chosen_prop(m, &p, seen);
		} else if (kind == N_PCI) {
			machine_pci_prop(m, &p, &seen->pci);
		} else if (kind == N_SNAPCTL && prop_is(&p, "reg")) {
			snapctl_reg(m, &p);
		} else if (kind == N_SERIAL) {
			serial_prop(m, &p);
		}
	}
	if (off != -FDT_ERR_NOTFOUND)
		fail("bad property list: %s", fdt_strerror(off));
}

static enum node_kind classify(const char *name, int depth)
{
	if (depth == 1 && !strcmp(name, "memory@0"))
		return N_MEMORY;
	if (depth == 1 && !strcmp(name, "cpus"))
		return N_CPUS;
	if (depth == 1 && !strcmp(name, "chosen"))
		return N_CHOSEN;
	if (depth == 1 && !strcmp(name, ABI_PCI_NODE))
		return N_PCI;
	if (depth == 1 && !memcmp(name, ABI_SNAPCTL_NODE "@",
				  sizeof(ABI_SNAPCTL_NODE)))
		return N_SNAPCTL;
	if (depth == 1 && !memcmp(name, ABI_SERIAL_NODE "@",
				  sizeof(ABI_SERIAL_NODE)))
		return N_SERIAL;
	if (depth == 2 && !memcmp(name, "cpu@", 4))
		return N_CPU;
	return N_OTHER;
}

/* Names are only read at depth 1 and under /cpus. */
static enum node_kind node_kind(const void *fdt, int node, int depth,
				bool in_cpus)
{
	const char *name;

	if (depth == 0)
		return N_ROOT;
	if (depth > 2 || (depth == 2 && !in_cpus))
		return N_OTHER;
	name = fdt_get_name(fdt, node, NULL);
	if (!name)
		fail("bad node at offset %d", node);
	return classify(name, depth);
}

static void serial_node(const void *fdt, int node, struct machine *m,
			struct seen *seen)
{
	if (m->n_uart == MACHINE_MAX_UARTS)
		fail("more than %d /%s@ nodes", MACHINE_MAX_UARTS,
		     ABI_SERIAL_NODE);
	m->uart[m->n_uart] = (struct machine_uart){ 0, 0 };
	node_props(fdt, node, N_SERIAL, m, seen);
	if (!m->uart[m->n_uart].port || !m->uart[m->n_uart].irq)
		fail("/%s@ node without %s and %s", ABI_SERIAL_NODE,
		     ABI_PROP_IO_PORT, ABI_PROP_INTERRUPTS);
	m->n_uart++;
}

static void walk(const void *fdt, struct machine *m, struct seen *seen)
{
	int depth = 0, node;
	bool in_cpus = false;

	for (node = 0; node >= 0 && depth >= 0;
	     node = fdt_next_node(fdt, node, &depth)) {
		enum node_kind kind;

		if (depth == 1)
			in_cpus = false;
		kind = node_kind(fdt, node, depth, in_cpus);
		if (kind == N_CPUS) {
			in_cpus = seen->cpus = true;
		} else if (kind == N_CPU) {
			m->n_cpus++;
		} else if (kind == N_SERIAL) {
			serial_node(fdt, node, m, seen);
		} else if (kind != N_OTHER) {
			seen->pci.node |= kind == N_PCI;
			node_props(fdt, node, kind, m, seen);
		}
	}
	if (node < 0 && node != -FDT_ERR_NOTFOUND)
		fail("bad structure: %s", fdt_strerror(node));
}

/* "xen-bar-mtrr=wb|uc" as a word of minivmm,options; wb when absent. */
static void parse_options(struct machine *m)
{
	static const char key[] = "xen-bar-mtrr=";
	const char *s = m->options;

	m->xen_bar_wb = true;
	for (; *s; s++) {
		if ((s != m->options && s[-1] != ' ' && s[-1] != ',') ||
		    memcmp(s, key, sizeof(key) - 1))
			continue;
		s += sizeof(key) - 1;
		if ((s[0] == 'w' && s[1] == 'b') || (s[0] == 'u' && s[1] == 'c'))
			if (!s[2] || s[2] == ' ' || s[2] == ',') {
				m->xen_bar_wb = s[0] == 'w';
				continue;
			}
		fail("%s: bad xen-bar-mtrr value (wb or uc)", ABI_PROP_OPTIONS);
	}
}

static void check_header(const void *fdt)
{
	int err = fdt_check_header(fdt);

	if (err)
		fail("no valid device tree at 0x%x: %s", ABI_FDT_ADDR,
		     fdt_strerror(err));
	if (fdt_totalsize(fdt) > ABI_FDT_MAX)
		fail("device tree is %u bytes, more than %u",
		     fdt_totalsize(fdt), ABI_FDT_MAX);
}

static void check_complete(const struct machine *m, const struct seen *s)
{
	if (!s->compatible)
		fail("root node has no compatible \"%s\"", ABI_FDT_COMPATIBLE);
	if (!s->address_cells || !s->size_cells)
		fail("root #address-cells and #size-cells must be 2");
	if (!s->memory)
		fail("no /memory@0 node with reg");
	if (!e820_ram_contains(m->ram, m->n_ram, 0, ABI_PAYLOAD_MIN))
		fail("RAM does not cover the first 1 MiB");
	if (!s->cpus)
		fail("no /cpus node");
	if (m->n_cpus == 0)
		fail("no cpu@N nodes under /cpus");
	if (m->n_cpus > MACHINE_MAX_CPUS)
		fw_fail(ABI_FW_FAIL_CPUS, "%u CPUs, at most %d are supported",
			m->n_cpus, MACHINE_MAX_CPUS);
	if ((m->payload == PAYLOAD_PVH || m->payload == PAYLOAD_MULTIBOOT) &&
	    !s->pvh_entry)
		fail("payload without %s", ABI_PROP_PAYLOAD_ENTRY);
	if ((m->payload == PAYLOAD_PVH || m->payload == PAYLOAD_MULTIBOOT) &&
	    !s->pvh_range)
		fail("payload without %s", ABI_PROP_PAYLOAD_RANGE);
	if (m->snapctl.size && m->snapctl.start < m->low_ram_end)
		fail("/%s overlaps RAM", ABI_SNAPCTL_NODE);
	machine_pci_check(m, &s->pci);
}

void machine_read(struct machine *m, const void *fdt)
{
	struct seen seen = { 0 };

	*m = (struct machine){ .bootargs = "", .options = "" };
	check_header(fdt);
	walk(fdt, m, &seen);
	parse_options(m);
	check_complete(m, &seen);
}
