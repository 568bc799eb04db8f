// SPDX-License-Identifier: MIT
/*
 * pci: the PCI bus as a guest sees it, for tests/boot/pci.sh.  Enumerates
 * through CF8/CFC and ECAM and compares every register of every function,
 * sizes every BAR, moves the Xen platform device's BARs and uses the device
 * at the new addresses, talks the Xen legacy-port protocol, and checks that
 * the VMM refuses BAR placements over RAM, ECAM and other devices.
 *
 * Command line (tell the payload what the VMM was started with):
 *	ecam=ro|trap|off	--ecam (default ro)
 *	pio=on|off		--pci-pio (default on)
 *	buses=N			--pci-buses (default 1)
 *	xen=on|off		--xen-platform (default on)
 *	ecam-writes=K		K more ECAM writes, widths 1/2/4/8
 *	hostile seed=N count=M	M random accesses instead (pci_fuzz.c),
 *				then checks that the bus still works
 *	apic-overlap		only: Xen BAR1 over the IOAPIC and LAPIC
 *				must not hide them
 *
 * Config writes go through CF8 when it is offered, else ECAM, so with
 * pio=on the only ECAM writes are the K extra ones.  The last line,
 * "pci-counts: ecam-reads R ecam-writes W refusals F", gives the ECAM
 * accesses made and the BAR placements the VMM had to refuse, for the
 * boot test to match against --stats-json.  Exit status 0 or 1.
 */
#include "lib/guest.h"
#include "lib/pci_access.h"
#include "lib/pci_fuzz.h"
#include "lib/pci_scan.h"
#include "lib/pci_xen.h"

#define HOST_BDF	PCI_BDF(0, 0, 0)
#define XEN_BDF		PCI_BDF(0, 3, 0)
#define CFG_DWORDS	PCI_SCAN_DWORDS
#define NMECH		2
#define ALL_ONES	0xffffffffu

/* Where the payload puts the Xen BARs: inside the PCI windows, clear of
 * whatever the firmware chose (the payload reprograms them anyway). */
#define IO_A		0xc100u
#define IO_B		0xc200u
#define MEM_A		0xc1000000u
#define MEM_B		0xc3000000u
#define RAM_VICTIM	0x01000000u	/* guest RAM, 16 MiB-aligned */
#define APIC_AREA	0xfe000000u	/* IOAPIC and LAPIC inside */

struct fn_id {
	uint32_t bdf;
	uint32_t id;		/* device << 16 | vendor */
	uint32_t class_rev;	/* class << 8 | revision */
	uint32_t subsys;	/* subsystem id << 16 | subsystem vendor */
	uint8_t pin;
	uint64_t bar_size[PCI_NUM_BARS];
	uint32_t bar_probe[PCI_NUM_BARS];	/* read back after all-ones */
};

static const struct fn_id host_bridge = {
	HOST_BDF, 0x00081b36, 0x06000000, 0x00081b36, 0, { 0 }, { 0 },
};

static const struct fn_id xen_platform = {
	XEN_BDF, 0x00015853, 0xff800001, 0x00015853, 1,
	{ XEN_PLATFORM_BAR0_SIZE, XEN_PLATFORM_BAR1_SIZE },
	{ 0xffffff01, 0xff000008 },
};

static struct {
	bool pio, ecam, trap, xen;
	unsigned int buses;
	uint64_t ecam_writes;
} o;

static const struct fn_id *expected[2];
static int n_expected;
static bool have[NMECH];
static enum pci_mech wmech;	/* config writes go here */
static unsigned int refusals;	/* placements the VMM must refuse */
static uint32_t snap[NMECH][2][CFG_DWORDS];

static const char *mech_name(int m)
{
	return m == PCI_MECH_CF8 ? "cf8" : "ecam";
}

static void fmt_bdf(char *buf, uint32_t bdf)
{
	gsnprintf(buf, 12, "%02x:%02x.%x", PCI_BDF_BUS(bdf),
		  PCI_SLOT(PCI_BDF_DEVFN(bdf)), PCI_FUNC(PCI_BDF_DEVFN(bdf)));
}

/* ---- options ----------------------------------------------------------- */

static void parse_opts(const char *cl)
{
	uint64_t n = 1;

	o.pio = !cmdline_has(cl, "pio=off");
	o.ecam = !cmdline_has(cl, "ecam=off");
	o.trap = cmdline_has(cl, "ecam=trap");
	o.xen = !cmdline_has(cl, "xen=off");
	cmdline_u64(cl, "buses", &n);
	o.buses = n >= 1 && n <= 256 ? (unsigned int)n : 1;
	cmdline_u64(cl, "ecam-writes", &o.ecam_writes);
	have[PCI_MECH_CF8] = o.pio;
	have[PCI_MECH_ECAM] = o.ecam;
	wmech = o.pio ? PCI_MECH_CF8 : PCI_MECH_ECAM;
	expected[n_expected++] = &host_bridge;
	if (o.xen)
		expected[n_expected++] = &xen_platform;
}

/* ---- whole-bus scans ----------------------------------------------------- */

/* Read-only ECAM reads never exit: read all of it, natively in ring 3.
 * Every other read is an exit: absent functions are sampled. */
static void scan_with(enum pci_mech m)
{
	uint32_t keep[2];
	struct pci_scan s = {
		.m = m, .buses = o.buses, .keep = keep, .nkeep = n_expected,
		.snap = snap[m], .full = m == PCI_MECH_ECAM && !o.trap,
	};
	char b[12];
	bool same;

	for (int e = 0; e < n_expected; e++)
		keep[e] = expected[e]->bdf;
	if (s.full)
		run_user(pci_scan_run, &s);
	else
		pci_scan_run(&s);
	same = s.nfound == (unsigned int)n_expected;
	for (unsigned int i = 0; same && i < s.nfound; i++)
		same = s.found[i] == expected[i]->bdf;
	check(same, "%s: found %u function(s), expected %d", mech_name(m),
	      s.nfound, n_expected);
	for (unsigned int i = 0; !same && i < s.nfound; i++) {
		fmt_bdf(b, s.found[i]);
		gprintf("  found %s\n", b);
	}
	fmt_bdf(b, s.first_bad >> 12);
	check(!s.bad, "%s: %u reads of absent functions not all-ones, "
	      "first %s reg %#x = %#x", mech_name(m), s.bad, b,
	      s.first_bad & 0xfff, s.bad_val);
	gprintf("pci: %s scan: %u functions on %u bus(es)%s, %u found\n",
		mech_name(m), s.nfns, o.buses, s.full ? ", every register" :
		"", s.nfound);
}

/* The two mechanisms must agree on every register of present functions. */
static void compare_snapshots(void)
{
	char b[12];

	for (int e = 0; e < n_expected; e++) {
		unsigned int first = 0;
		unsigned int diff = pci_snap_diff(snap[0][e], snap[1][e],
						  &first);

		fmt_bdf(b, expected[e]->bdf);
		check(!diff, "%s: %u dwords differ between cf8 and ecam, "
		      "first reg %#x: %#x vs %#x", b, diff, first * 4,
		      snap[0][e][first], snap[1][e][first]);
	}
	gprintf("pci: cf8 and ecam agree on %d function(s), 4 KiB each\n",
		n_expected);
}

/* ---- identity of what was found ------------------------------------------ */

static void check_identity(const uint32_t *c, const struct fn_id *f)
{
	char b[12];

	fmt_bdf(b, f->bdf);
	check(c[0] == f->id, "%s: id %#x, expected %#x", b, c[0], f->id);
	check(c[2] == f->class_rev, "%s: class/rev %#x, expected %#x", b,
	      c[2], f->class_rev);
	check(c[PCI_SUBSYSTEM_VENDOR_ID / 4] == f->subsys,
	      "%s: subsystem %#x", b, c[PCI_SUBSYSTEM_VENDOR_ID / 4]);
	check(((c[PCI_INTERRUPT_LINE / 4] >> 8) & 0xff) == f->pin,
	      "%s: interrupt pin %#x", b, c[PCI_INTERRUPT_LINE / 4] >> 8);
	check(((c[PCI_HEADER_TYPE / 4] >> 16) & 0x7f) == 0,
	      "%s: header type %#x", b, c[PCI_HEADER_TYPE / 4] >> 16);
	gprintf("pci: %s %04x:%04x class %06x\n", b, c[0] & 0xffff,
		c[0] >> 16, c[2] >> 8);
}

/* The host bridge's extended space: DSN capability at 0x100 holding
 * "minivmm\0", reached through CF8 bits 27:24 and through ECAM. */
static void check_host_ext(const uint32_t *c, const char *how)
{
	check((c[PCI_STATUS / 4] >> 16) & PCI_STATUS_CAP_LIST,
	      "%s: host bridge STATUS lacks CAP_LIST", how);
	check(c[0x100 / 4] == (PCI_EXT_CAP_ID_DSN | 1u << 16),
	      "%s: ext cap at 0x100 = %#x, expected DSN v1", how,
	      c[0x100 / 4]);
	check(c[0x104 / 4] == 0x696e696d && c[0x108 / 4] == 0x006d6d76,
	      "%s: DSN %#x %#x, expected \"minivmm\"", how, c[0x104 / 4],
	      c[0x108 / 4]);
}

static void check_found(void)
{
	for (int m = 0; m < NMECH; m++) {
		if (!have[m])
			continue;
		for (int e = 0; e < n_expected; e++)
			if (m == (int)wmech)
				check_identity(snap[m][e], expected[e]);
		check_host_ext(snap[m][0], mech_name(m));
	}
}

/* ---- the mechanisms themselves ------------------------------------------- */

static void test_cf8_port(void)
{
	if (!o.pio) {
		/* Nothing decodes the ports: every read is all-ones. */
		outl(PCI_CONF1_ADDR_PORT, PCI_CONF1_ENABLE);
		check(inl(PCI_CONF1_ADDR_PORT) == ALL_ONES, "pio off: CF8 %#x",
		      inl(PCI_CONF1_ADDR_PORT));
		check(inl(PCI_CONF1_DATA_PORT) == ALL_ONES &&
		      inw(PCI_CONF1_DATA_PORT + 2) == 0xffff &&
		      inb(PCI_CONF1_DATA_PORT + 1) == 0xff,
		      "pio off: CFC reads not all-ones");
		gprintf("pci: pio off: CF8/CFC read all-ones\n");
		return;
	}
	/* Linux's conf1 probe: 0x80000000 reads back. */
	outl(PCI_CONF1_ADDR_PORT, PCI_CONF1_ENABLE);
	check(inl(PCI_CONF1_ADDR_PORT) == PCI_CONF1_ENABLE, "CF8 %#x",
	      inl(PCI_CONF1_ADDR_PORT));
	/* Reserved bits 30:28 read 0; 27:24 (AMD) are kept, and 1:0, which
	 * select the register's bytes (QEMU's behaviour). */
	outl(PCI_CONF1_ADDR_PORT, ALL_ONES);
	check(inl(PCI_CONF1_ADDR_PORT) == 0x8fffffff, "CF8 all-ones -> %#x",
	      inl(PCI_CONF1_ADDR_PORT));
	outl(PCI_CONF1_ADDR_PORT, PCI_CONF1_ENABLE | 2);
	check(inw(PCI_CONF1_DATA_PORT) == (host_bridge.id >> 16),
	      "CF8 | 2, 16-bit CFC read %#x, expected the device ID",
	      inw(PCI_CONF1_DATA_PORT));
	/* A byte write to 0xCFB is not an address-register write. */
	outl(PCI_CONF1_ADDR_PORT, PCI_CONF1_ENABLE);
	outb(PCI_CONF1_ADDR_PORT + 3, 0x12);
	check(inl(PCI_CONF1_ADDR_PORT) == PCI_CONF1_ENABLE,
	      "byte write to 0xcfb changed CF8 to %#x",
	      inl(PCI_CONF1_ADDR_PORT));
	/* Enable bit clear: the data port decodes nothing. */
	outl(PCI_CONF1_ADDR_PORT, 0);
	check(inl(PCI_CONF1_DATA_PORT) == ALL_ONES,
	      "CFC with CF8 bit 31 clear read %#x", inl(PCI_CONF1_DATA_PORT));
}

static void test_ecam_absent(void)
{
	if (o.ecam)
		return;
	check(mmio_read32(PCI_ECAM_BASE) == ALL_ONES &&
	      mmio_read32(pci_ecam_addr(XEN_BDF, 0)) == ALL_ONES &&
	      mmio_read64(pci_ecam_addr(HOST_BDF, 0x100)) == ~0ull,
	      "ecam off: the window is not empty");
	gprintf("pci: ecam off: the window reads all-ones\n");
}

/* Every offered mechanism reads want at reg. */
static void expect_reg(uint32_t bdf, unsigned int reg, unsigned int len,
		       uint32_t want, const char *what)
{
	for (int m = 0; m < NMECH; m++) {
		uint32_t v = have[m] ? pci_cfg_read(m, bdf, reg, len) : want;

		check(v == want, "%#x reg %#x (%s): %s reads %#x, expected %#x",
		      bdf, reg, what, mech_name(m), v, want);
	}
}

/* Writes through wmech show at once through every mechanism (a read-only
 * ECAM page is refreshed by the write); read-only and write-1-to-clear
 * fields hold. */
static void test_coherence(void)
{
	static const uint8_t lines[] = { 0x5a, 0xa5, 0x0b };

	for (int e = 0; e < n_expected; e++) {
		const struct fn_id *f = expected[e];

		pci_cfg_write(wmech, f->bdf, PCI_VENDOR_ID, ALL_ONES, 4);
		pci_cfg_write(wmech, f->bdf, PCI_REVISION_ID, 0, 4);
		pci_cfg_write(wmech, f->bdf, PCI_STATUS, 0xffff, 2);
		for (unsigned int i = 0; i < sizeof(lines); i++) {
			pci_cfg_write(wmech, f->bdf, PCI_INTERRUPT_LINE,
				      lines[i], 1);
			expect_reg(f->bdf, PCI_INTERRUPT_LINE, 2,
				   lines[i] | (uint32_t)f->pin << 8,
				   "interrupt line and pin");
		}
		expect_reg(f->bdf, 0, 4, f->id, "id after writes");
		expect_reg(f->bdf, 8, 4, f->class_rev, "class after writes");
		expect_reg(f->bdf, PCI_STATUS, 2, snap[wmech][e][1] >> 16,
			   "status after writing ones");
	}
}

/* ---- BARs ------------------------------------------------------------- */

/* All-ones written through wmech reads back as v through every
 * mechanism, then the register gets its old value back. */
static void probe_seen(uint32_t bdf, unsigned int reg, uint32_t v)
{
	uint32_t before = pci_cfg_read(wmech, bdf, reg, 4);

	pci_cfg_write(wmech, bdf, reg, ALL_ONES, 4);
	expect_reg(bdf, reg, 4, v, "all-ones written");
	pci_cfg_write(wmech, bdf, reg, before, 4);
	expect_reg(bdf, reg, 4, before, "restored");
}

static void test_bar_sizes(void)
{
	for (int e = 0; e < n_expected; e++) {
		const struct fn_id *f = expected[e];
		struct pci_bar_info bar;
		char b[12];

		fmt_bdf(b, f->bdf);
		for (int i = 0; i < PCI_NUM_BARS;) {
			int n = pci_bar_probe(wmech, f->bdf, i, &bar);

			check(bar.size == f->bar_size[i] &&
			      bar.raw_lo == f->bar_probe[i],
			      "%s BAR%d: probe %#x size %#llx", b, i,
			      bar.raw_lo, (unsigned long long)bar.size);
			probe_seen(f->bdf, PCI_BASE_ADDRESS_0 + 4 * i,
				   f->bar_probe[i]);
			if (bar.size)
				gprintf("pci: %s BAR%d %s%s size %#llx\n", b,
					i, bar.io ? "io" : bar.is64 ? "mem64"
					: "mem32", bar.prefetch ? " pf" : "",
					(unsigned long long)bar.size);
			i += n;
		}
		probe_seen(f->bdf, PCI_ROM_ADDRESS, 0);	/* no ROM BAR */
	}
}

static void set_command(uint16_t set, uint16_t clear)
{
	uint32_t c = pci_cfg_read(wmech, XEN_BDF, PCI_COMMAND, 2);

	pci_cfg_write(wmech, XEN_BDF, PCI_COMMAND, (c | set) & ~clear, 2);
}

static void set_bar(int idx, uint32_t v)
{
	pci_cfg_write(wmech, XEN_BDF, PCI_BASE_ADDRESS_0 + 4 * idx, v, 4);
}

/* BAR0: the flags byte at offset 0 is the legacy byte at port 0x10. */
static void test_bar0_move(void)
{
	set_command(0, PCI_COMMAND_IO);
	set_bar(0, IO_A);
	set_command(PCI_COMMAND_IO, 0);
	outb(IO_A, XEN_PFFLAG_ROM_LOCK);
	check(inb(XEN_PORT_MAGIC) == 1 && inb(IO_A) == 1,
	      "BAR0 at %#x: flag write not seen (%#x)", IO_A, inb(IO_A));
	outb(XEN_PORT_MAGIC, 0);
	check(inb(IO_A) == 0, "BAR0 at %#x: reads %#x", IO_A, inb(IO_A));

	set_bar(0, IO_B);	/* moved with decode on */
	check(inb(IO_B) == 0 && inb(IO_A) == 0xff,
	      "BAR0 moved to %#x: new %#x old %#x", IO_B, inb(IO_B),
	      inb(IO_A));
	outb(IO_B, 1);
	check(inb(XEN_PORT_MAGIC) == 1, "BAR0 at %#x: write not seen", IO_B);
	set_command(0, PCI_COMMAND_IO);
	check(inb(IO_B) == 0xff, "BAR0 still decodes with IO off");
	set_command(PCI_COMMAND_IO, 0);
	check(inb(IO_B) == 1, "BAR0 lost with IO back on");
	outb(IO_B, 0);

	/* Over the UART (and over CF8/CFC when offered): refused, and
	 * they keep working (this very line is printed through the UART). */
	set_bar(0, 0x300);
	refusals++;
	gprintf("pci: BAR0 over the UART refused, the UART still prints\n");
	set_bar(0, PCI_CONF1_ADDR_PORT & ~0xffu);
	if (o.pio) {
		refusals++;
		check(pci_cf8_read(HOST_BDF, 0, 4) == host_bridge.id,
		      "BAR0 over CF8 broke config access");
	} else {
		check(inb(PCI_CONF1_ADDR_PORT & ~0xffu) == 0,
		      "BAR0 at 0xc00 (no CF8) not decoded");
	}
	set_bar(0, IO_B);
	check(inb(IO_B) == 0, "BAR0 back at %#x reads %#x", IO_B, inb(IO_B));
	gprintf("pci: BAR0 moved %#x -> %#x, device follows\n", IO_A, IO_B);
}

static void expect_at(uint64_t base, uint32_t tag, int want, const char *what)
{
	int got = xen_bar1_match(base, tag);

	check(got == want, "BAR1 %s: at %#llx %s, expected %s", what,
	      (unsigned long long)base, got > 0 ? "the pattern" : got == 0 ?
	      "all-ones" : "other data", want ? "the pattern" : "all-ones");
}

/* BAR1 is RAM that follows the BAR; RAM and ECAM placements are refused. */
static void test_bar1_move(void)
{
	set_command(0, PCI_COMMAND_MEMORY);
	set_bar(1, MEM_A);
	set_command(PCI_COMMAND_MEMORY, 0);
	xen_bar1_fill(MEM_A, 1);
	expect_at(MEM_A, 1, 1, "first placement");

	set_bar(1, MEM_B);	/* moved with decode on */
	expect_at(MEM_B, 1, 1, "moved");
	expect_at(MEM_A, 1, 0, "old address");

	xen_bar1_fill(RAM_VICTIM, 7);
	set_bar(1, RAM_VICTIM);
	refusals++;
	expect_at(RAM_VICTIM, 7, 1, "over RAM (RAM must stay)");
	expect_at(MEM_B, 1, 0, "refused move unmaps the old address");
	set_bar(1, MEM_B);
	expect_at(MEM_B, 1, 1, "back after a refused move");

	set_bar(1, (uint32_t)PCI_ECAM_BASE);
	if (o.ecam) {
		refusals++;
		check(pci_ecam_read(HOST_BDF, 0, 4) == host_bridge.id,
		      "BAR1 over ECAM hid config space");
	} else {
		expect_at(PCI_ECAM_BASE, 1, 1, "at 0xe0000000 without ECAM");
	}
	set_bar(1, MEM_A);
	expect_at(MEM_A, 1, 1, "moved back");
	set_command(0, PCI_COMMAND_MEMORY);
	expect_at(MEM_A, 1, 0, "MEMORY decode off");
	set_bar(1, MEM_B);	/* Linux's way: decode off, move, on */
	set_command(PCI_COMMAND_MEMORY, 0);
	expect_at(MEM_B, 1, 1, "moved with decode off");
	expect_at(MEM_A, 1, 0, "old address after move");
	xen_bar1_fill(MEM_B, 2);
	set_bar(1, MEM_A);
	expect_at(MEM_A, 2, 1, "second pattern moved");
	gprintf("pci: BAR1 RAM moved %#x <-> %#x, contents follow\n", MEM_A,
		MEM_B);
}

/* ---- Xen legacy ports --------------------------------------------------- */

static void test_xen_ports(void)
{
	if (!o.xen) {
		check(inw(XEN_PORT_MAGIC) == 0xffff && inb(XEN_PORT_PROTO) ==
		      0xff, "xen off: legacy ports answer");
		return;
	}
	check(inw(XEN_PORT_MAGIC) == XEN_MAGIC, "magic %#x",
	      inw(XEN_PORT_MAGIC));
	check(inb(XEN_PORT_PROTO) == 1, "protocol %u", inb(XEN_PORT_PROTO));
	xen_platform_log("pci payload says hello\n");
	xen_platform_log("ctl\a\tbytes\r\n");
	gprintf("pci: xen magic %#x protocol %u\n", inw(XEN_PORT_MAGIC),
		inb(XEN_PORT_PROTO));
}

/* ---- exact ECAM write count ---------------------------------------------- */

/* k writes to the host bridge's INTERRUPT_LINE, widths 1, 2, 4, 8 in
 * turn; each must show at once (in ro mode without a read exit). */
static void test_ecam_writes(uint64_t k)
{
	unsigned int bad = 0;

	for (uint64_t i = 0; i < k; i++) {
		uint8_t line = (uint8_t)(i * 37 + 1);
		uint32_t dw = 0xffffff00u | line;

		switch (i & 3) {
		case 0:	pci_ecam_write(HOST_BDF, 0x3c, line, 1); break;
		case 1:	pci_ecam_write(HOST_BDF, 0x3c, 0xff00u | line,
					       2);
			break;
		case 2:	pci_ecam_write(HOST_BDF, 0x3c, dw, 4); break;
		default: pci_ecam_write(HOST_BDF, 0x38,
					(uint64_t)dw << 32 | 0xffffffffu, 8);
		}
		bad += pci_ecam_read(HOST_BDF, 0x3c, 1) != line;
	}
	check(!bad, "%u of %llu ECAM writes not seen", bad,
	      (unsigned long long)k);
	gprintf("pci: %llu ECAM writes of widths 1/2/4/8 seen\n",
		(unsigned long long)k);
}

/* ---- hostile mode -------------------------------------------------------- */

static int hostile(const char *cl)
{
	struct pci_fuzz_conf c = {
		.seed = 1, .count = 1000, .buses = o.buses,
		.ecam_size = o.ecam ? (uint64_t)o.buses << 20 : 0,
		.targets = { HOST_BDF, XEN_BDF }, .ntargets = 2,
		.port = o.xen ? XEN_PORT_BASE : 0, .port_len = XEN_PORT_LEN,
		.canary_base = RAM_VICTIM, .canary_step = RAM_VICTIM,
		.canary_n = 4,
	};
	struct pci_fuzz_stats st;

	cmdline_u64(cl, "seed", &c.seed);
	cmdline_u64(cl, "count", &c.count);
	gprintf("pci: hostile seed=%llu count=%llu\n",
		(unsigned long long)c.seed, (unsigned long long)c.count);
	pci_fuzz_run(&c, &st);
	gprintf("pci: hostile done: %llu cf8, %llu ecam, %llu bar moves, "
		"%llu command, %llu port/BAR accesses\n",
		(unsigned long long)st.cf8, (unsigned long long)st.ecam,
		(unsigned long long)st.bar, (unsigned long long)st.command,
		(unsigned long long)st.ports);
	check(!st.canaries_bad, "after hostile: %u RAM canaries changed",
	      st.canaries_bad);
	/* The bus still works: identities, all-ones where nothing is. */
	for (int m = 0; m < NMECH; m++) {
		for (int e = 0; have[m] && e < n_expected; e++)
			check(pci_cfg_read(m, expected[e]->bdf, 0, 4) ==
			      expected[e]->id, "after hostile: %s %#x id",
			      mech_name(m), expected[e]->bdf);
		check(!have[m] || pci_cfg_read(m, PCI_BDF(0, 1, 0), 0, 4) ==
		      ALL_ONES, "after hostile: %s 00:01.0", mech_name(m));
	}
	if (!o.xen)
		return check_failures() ? 1 : 0;
	/* And the device can still be placed and used. */
	check(inw(XEN_PORT_MAGIC) == XEN_MAGIC, "after hostile: magic");
	xen_platform_place(wmech, XEN_BDF, IO_A, MEM_A);
	xen_bar1_fill(MEM_A, 5);
	expect_at(MEM_A, 5, 1, "after hostile");
	check(inb(IO_A) == inb(XEN_PORT_MAGIC),
	      "after hostile: BAR0 flags differ from port 0x10");
	return check_failures() ? 1 : 0;
}

static uint32_t ioapic_version(void)
{
	mmio_write32(ABI_IOAPIC_BASE, 1);
	return mmio_read32(ABI_IOAPIC_BASE + 0x10);
}

/* A RAM BAR over 0xfe000000-0xfeffffff covers the IOAPIC and the LAPIC;
 * they must stay reachable (the VMM refuses the placement, or they win).
 * The BAR's own page is touched first, as a guest using it would. */
static int test_bar_over_apic(void)
{
	const uint64_t lapic_ver = ABI_LAPIC_BASE + 0x30;
	uint32_t io = ioapic_version(), lapic = mmio_read32(lapic_ver);
	uint32_t io2, lapic2;

	xen_platform_place(wmech, XEN_BDF, IO_A, APIC_AREA);
	(void)mmio_read32(APIC_AREA);
	lapic2 = mmio_read32(lapic_ver);
	io2 = ioapic_version();
	check(io2 == io, "BAR1 at %#x hides the IOAPIC: version %#x, was %#x",
	      APIC_AREA, io2, io);
	check(lapic2 == lapic, "BAR1 at %#x hides the LAPIC: version %#x, "
	      "was %#x", APIC_AREA, lapic2, lapic);
	xen_platform_place(wmech, XEN_BDF, IO_A, MEM_A);
	check(ioapic_version() == io && mmio_read32(lapic_ver) == lapic,
	      "IOAPIC/LAPIC not back after moving BAR1 away");
	gprintf("pci: %u failure(s)\n", check_failures());
	return check_failures() ? 1 : 0;
}

/* ---- main -------------------------------------------------------------- */

int payload_main(const struct hvm_start_info *si)
{
	const char *cl = start_info_cmdline(si);

	parse_opts(cl);
	gprintf("pci: ecam %s, pio %s, %u bus(es), xen %s\n",
		!o.ecam ? "off" : o.trap ? "trap" : "ro", o.pio ? "on" : "off",
		o.buses, o.xen ? "on" : "off");
	if (cmdline_has(cl, "hostile"))
		return hostile(cl);
	if (o.xen && cmdline_has(cl, "apic-overlap"))
		return test_bar_over_apic();

	test_cf8_port();
	test_ecam_absent();
	for (int m = 0; m < NMECH; m++)
		if (have[m])
			scan_with(m);
	if (have[0] && have[1])
		compare_snapshots();
	check_found();
	/* Bytes, words (and ECAM qwords) read what the dwords said. */
	for (int m = 0; m < NMECH; m++)
		for (int e = 0; have[m] && e < n_expected; e++)
			check(!pci_snap_width_errors(m, expected[e]->bdf,
						     snap[m][e], 0x110),
			      "%s %#x: narrow/wide reads disagree",
			      mech_name(m), expected[e]->bdf);
	test_coherence();
	test_bar_sizes();
	test_xen_ports();
	if (o.xen) {
		test_bar0_move();
		test_bar1_move();
		/* Linux's product and build; JSON shows them and the mask. */
		check(xen_platform_unplug(3, 1, 3) == XEN_MAGIC,
		      "unplug: blacklisted");
	}
	if (o.ecam && o.ecam_writes)
		test_ecam_writes(o.ecam_writes);
	gprintf("pci-counts: ecam-reads %llu ecam-writes %llu refusals %u\n",
		(unsigned long long)pci_ecam_count.reads,
		(unsigned long long)pci_ecam_count.writes, refusals);
	gprintf("pci: %u failure(s)\n", check_failures());
	return check_failures() ? 1 : 0;
}
