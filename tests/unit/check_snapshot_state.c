// SPDX-License-Identifier: MIT
/* What snapshot sections hold, without KVM: the machine options (CONFIG,
 * disks and nets included) and their conflicts with a restore's command
 * line, META compatibility, the control page, and the device state round trips
 * (UART, ACPI PM, Xen platform, a PCI function with a moved BAR) with
 * their consistency checks. */
#include "tests/unit/unit.h"
#include "devices/acpi_pm.h"
#include "devices/pci/bus.h"
#include "devices/test/snapctl.h"
#include "devices/uart16550.h"
#include "devices/xen_platform.h"
#include "vmm/cli/cli.h"
#include "vmm/snapshot/config.h"
#include "vmm/snapshot/meta.h"

#define ERR	200

/* --- CONFIG ---------------------------------------------------------------- */

static void encode(const struct vmm_config *c, struct snap_buf *b)
{
	char err[ERR];

	snap_buf_init(b);
	ck_assert_int_eq(snap_config_encode(c, b, err, ERR), 0);
}

START_TEST(config_round_trip)
{
	struct vmm_config c, run;
	struct snap_config sc;
	struct snap_buf b;
	char err[ERR], path[PATH_MAX];
	const char policy[] = "# rules\n0x19a value=0x10\ndefault deny\n";

	tmpfile_with(path, policy, sizeof(policy) - 1);
	cli_defaults(&c);
	c.mem_size = 512ull << 20;
	c.cpus = 3;
	c.ecam = ECAM_TRAP;
	c.xen_platform = false;
	c.append = "console=ttyS0";
	c.msr_policy = path;
	c.msr_rules[c.n_msr_rules++] = "0x174 allow";
	c.msr_rules[c.n_msr_rules++] = "0x175 deny,log";
	encode(&c, &b);
	unlink(path);		/* the snapshot keeps the text */
	ck_assert_int_eq(snap_config_decode(b.p, b.len, &sc, err, ERR), 0);
	ck_assert_uint_eq(sc.m.mem_size, 512ull << 20);
	ck_assert_uint_eq(sc.m.cpus, 3);
	ck_assert_int_eq(sc.m.ecam, ECAM_TRAP);
	ck_assert(!sc.m.xen_platform);
	ck_assert_str_eq(sc.m.append, "console=ttyS0");
	ck_assert_str_eq(sc.m.msr_policy_text, policy);
	ck_assert_int_eq(sc.m.n_msr_rules, 2);
	ck_assert_str_eq(sc.m.msr_rules[1], "0x175 deny,log");

	cli_defaults(&run);
	run.timeout = 5;
	ck_assert_int_eq(snap_config_merge(&run, &sc, err, ERR), 0);
	ck_assert_uint_eq(run.cpus, 3);
	ck_assert(run.timeout == 5);
	ck_assert_str_eq(run.msr_policy_text, policy);

	/* A machine option given again must agree. */
	cli_defaults(&run);
	run.given = GIVEN_CPUS;
	run.cpus = 3;
	ck_assert_int_eq(snap_config_merge(&run, &sc, err, ERR), 0);
	cli_defaults(&run);
	run.given = GIVEN_MEMORY;
	ck_assert_int_eq(snap_config_merge(&run, &sc, err, ERR), -1);
	ck_assert_ptr_nonnull(strstr(err, "--memory conflicts"));
	cli_defaults(&run);
	run.given = GIVEN_MSR;
	run.msr_rules[run.n_msr_rules++] = "0x174 allow";
	ck_assert_int_eq(snap_config_merge(&run, &sc, err, ERR), -1);
	ck_assert_ptr_nonnull(strstr(err, "MSR policy"));
	snap_config_free(&sc);
	snap_buf_free(&b);
}
END_TEST

START_TEST(config_bad)
{
	struct vmm_config c;
	struct snap_config sc;
	struct snap_buf b;
	char err[ERR];

	cli_defaults(&c);
	encode(&c, &b);
	/* Truncated anywhere: refused, never read past the end. */
	for (size_t n = 0; n < b.len; n++)
		ck_assert_int_eq(snap_config_decode(b.p, n, &sc, err, ERR), -1);
	snap_buf_free(&b);

	snap_buf_init(&b);
	snap_put_u32(&b, 1);
	snap_put_str(&b, "cpus");
	snap_put_str(&b, "300");
	ck_assert_int_eq(snap_config_decode(b.p, b.len, &sc, err, ERR), -1);
	ck_assert_ptr_nonnull(strstr(err, "cpus"));
	snap_buf_free(&b);

	snap_buf_init(&b);
	snap_put_u32(&b, 1);
	snap_put_str(&b, "frobnicate");
	snap_put_str(&b, "1");
	ck_assert_int_eq(snap_config_decode(b.p, b.len, &sc, err, ERR), -1);
	ck_assert_ptr_nonnull(strstr(err, "unknown option"));
	snap_buf_free(&b);
}
END_TEST

/* The console device: kept, and --console-device must agree. */
START_TEST(config_console_device)
{
	struct vmm_config c, run;
	struct snap_config sc;
	struct snap_buf b;
	char err[ERR];

	cli_defaults(&c);
	c.console_virtio = true;
	encode(&c, &b);
	ck_assert_int_eq(snap_config_decode(b.p, b.len, &sc, err, ERR), 0);
	snap_buf_free(&b);
	ck_assert(sc.m.console_virtio);
	cli_defaults(&run);
	ck_assert_int_eq(snap_config_merge(&run, &sc, err, ERR), 0);
	ck_assert(run.console_virtio);
	cli_defaults(&run);
	run.given = GIVEN_CONSOLE_DEVICE;
	run.console_virtio = true;
	ck_assert_int_eq(snap_config_merge(&run, &sc, err, ERR), 0);
	run.console_virtio = false;
	ck_assert_int_eq(snap_config_merge(&run, &sc, err, ERR), -1);
	ck_assert_ptr_nonnull(strstr(err, "--console-device conflicts"));
	ck_assert_ptr_nonnull(strstr(err, "is virtio"));
	snap_config_free(&sc);

	/* Out of range: refused. */
	snap_buf_init(&b);
	snap_put_u32(&b, 1);
	snap_put_str(&b, "console-virtio");
	snap_put_str(&b, "2");
	ck_assert_int_eq(snap_config_decode(b.p, b.len, &sc, err, ERR), -1);
	snap_buf_free(&b);
}
END_TEST

/* Disks and the rng: kept as --disk spells them; a restore may point a
 * disk at another file, not change the machine. */
START_TEST(config_disks)
{
	struct vmm_config c, run;
	struct snap_config sc, none;
	struct snap_buf b;
	char err[ERR];

	cli_defaults(&c);
	ck_assert_int_eq(cli_parse_disk("a.img", &c.disks[0], err, ERR), 0);
	ck_assert_int_eq(cli_parse_disk("/x/b.img,ro,serial=s1", &c.disks[1],
					err, ERR), 0);
	c.ndisks = 2;
	c.rng = true;
	encode(&c, &b);
	ck_assert_int_eq(snap_config_decode(b.p, b.len, &sc, err, ERR), 0);
	snap_buf_free(&b);
	ck_assert_uint_eq(sc.m.ndisks, 2);
	ck_assert_str_eq(sc.m.disks[1].path, "/x/b.img");
	ck_assert(sc.m.disks[1].ro && sc.m.disks[1].has_serial);
	ck_assert_str_eq(sc.m.disks[1].serial, "s1");
	ck_assert(!sc.m.disks[0].ro && !sc.m.disks[0].has_serial);
	ck_assert(sc.m.rng);

	cli_defaults(&run);
	ck_assert_int_eq(snap_config_merge(&run, &sc, err, ERR), 0);
	ck_assert_uint_eq(run.ndisks, 2);
	ck_assert_str_eq(run.disks[0].path, "a.img");
	ck_assert(run.rng);
	/* Other files, same shape: taken. */
	cli_defaults(&run);
	run.given = GIVEN_DISK | GIVEN_RNG;
	run.rng = true;
	cli_parse_disk("copy-a.img", &run.disks[0], err, ERR);
	cli_parse_disk("copy-b.img,ro,serial=s1", &run.disks[1], err, ERR);
	run.ndisks = 2;
	ck_assert_int_eq(snap_config_merge(&run, &sc, err, ERR), 0);
	ck_assert_str_eq(run.disks[1].path, "copy-b.img");
	/* A changed serial, ro flag or count: refused, naming the disks. */
	cli_parse_disk("copy-b.img,ro,serial=s2", &run.disks[1], err, ERR);
	ck_assert_int_eq(snap_config_merge(&run, &sc, err, ERR), -1);
	ck_assert_ptr_nonnull(strstr(err, "--disk conflicts"));
	ck_assert_ptr_nonnull(strstr(err, "/x/b.img,ro,serial=s1"));
	cli_parse_disk("copy-b.img,serial=s1", &run.disks[1], err, ERR);
	ck_assert_int_eq(snap_config_merge(&run, &sc, err, ERR), -1);
	run.ndisks = 1;
	ck_assert_int_eq(snap_config_merge(&run, &sc, err, ERR), -1);

	/* No rng in the snapshot: --rng refused. */
	cli_defaults(&c);
	encode(&c, &b);
	ck_assert_int_eq(snap_config_decode(b.p, b.len, &none, err, ERR), 0);
	snap_buf_free(&b);
	cli_defaults(&run);
	run.given = GIVEN_RNG;
	run.rng = true;
	ck_assert_int_eq(snap_config_merge(&run, &none, err, ERR), -1);
	ck_assert_ptr_nonnull(strstr(err, "--rng conflicts"));
	snap_config_free(&none);
	snap_config_free(&sc);

	/* A disk the CLI would refuse is refused here too. */
	snap_buf_init(&b);
	snap_put_u32(&b, 1);
	snap_put_str(&b, "disk");
	snap_put_str(&b, "a.img,rw");
	ck_assert_int_eq(snap_config_decode(b.p, b.len, &sc, err, ERR), -1);
	ck_assert_ptr_nonnull(strstr(err, "config: disk: unknown option"));
	snap_buf_free(&b);
}
END_TEST

/* --net: kept as given; a restore may name other taps, not change what
 * the guest sees (count, MAC, offloads). */
START_TEST(config_nets)
{
	struct vmm_config c, run;
	struct snap_config sc;
	struct snap_buf b;
	char err[ERR];

	cli_defaults(&c);
	ck_assert_int_eq(net_opt_parse("tap", &c.nets[0], err, ERR), 0);
	ck_assert_int_eq(net_opt_parse("tap=vm1,mac=02:00:00:00:00:0a,"
				       "offload=off", &c.nets[1], err, ERR), 0);
	c.nnets = 2;
	encode(&c, &b);
	ck_assert_int_eq(snap_config_decode(b.p, b.len, &sc, err, ERR), 0);
	snap_buf_free(&b);
	ck_assert_uint_eq(sc.m.nnets, 2);
	ck_assert(!sc.m.nets[0].has_name && !sc.m.nets[0].has_mac);
	ck_assert_str_eq(sc.m.nets[1].name, "vm1");
	ck_assert(sc.m.nets[1].has_mac && sc.m.nets[1].no_offload);
	ck_assert_uint_eq(sc.m.nets[1].mac[5], 0x0a);
	cli_defaults(&run);
	ck_assert_int_eq(snap_config_merge(&run, &sc, err, ERR), 0);
	ck_assert_uint_eq(run.nnets, 2);
	ck_assert_str_eq(run.nets[1].name, "vm1");
	/* Other taps, same guest view: taken. */
	cli_defaults(&run);
	run.given = GIVEN_NET;
	net_opt_parse("tap=a", &run.nets[0], err, ERR);
	net_opt_parse("tap=b,mac=02:00:00:00:00:0a,offload=off", &run.nets[1],
		      err, ERR);
	run.nnets = 2;
	ck_assert_int_eq(snap_config_merge(&run, &sc, err, ERR), 0);
	ck_assert_str_eq(run.nets[1].name, "b");
	/* Another MAC, offload setting or count: refused. */
	net_opt_parse("tap=b,mac=02:00:00:00:00:0b,offload=off", &run.nets[1],
		      err, ERR);
	ck_assert_int_eq(snap_config_merge(&run, &sc, err, ERR), -1);
	ck_assert_ptr_nonnull(strstr(err, "--net conflicts"));
	net_opt_parse("tap=b,mac=02:00:00:00:00:0a", &run.nets[1], err, ERR);
	ck_assert_int_eq(snap_config_merge(&run, &sc, err, ERR), -1);
	run.nnets = 1;
	ck_assert_int_eq(snap_config_merge(&run, &sc, err, ERR), -1);
	snap_config_free(&sc);
	/* A value the CLI would refuse is refused here too. */
	snap_buf_init(&b);
	snap_put_u32(&b, 1);
	snap_put_str(&b, "net");
	snap_put_str(&b, "tap,mac=01:00:00:00:00:01");
	ck_assert_int_eq(snap_config_decode(b.p, b.len, &sc, err, ERR), -1);
	ck_assert_ptr_nonnull(strstr(err, "config: net: mac"));
	snap_buf_free(&b);
}
END_TEST

/* --- META ------------------------------------------------------------------- */

START_TEST(meta_compat)
{
	struct snap_meta a = { .build = "v1 abc", .vendor = "GenuineIntel",
			       .signature = 0x806f8, .brand = "Xeon",
			       .xsave_size = 4096, .ncaps = 2,
			       .caps = { 1, 2 } };
	struct snap_meta b, here;
	struct snap_buf buf;
	char err[ERR];

	snap_buf_init(&buf);
	snap_meta_encode(&a, &buf);
	ck_assert_int_eq(snap_meta_decode(buf.p, buf.len, &b, err, ERR), 0);
	ck_assert_int_eq(memcmp(&a, &b, sizeof(a)), 0);
	ck_assert_int_eq(snap_meta_decode(buf.p, buf.len - 1, &b, err, ERR),
			 -1);
	snap_buf_free(&buf);

	here = a;
	ck_assert_int_eq(snap_meta_compatible(&a, &here, err, ERR), 0);
	strcpy(here.build, "v2 abc");
	ck_assert_int_eq(snap_meta_compatible(&a, &here, err, ERR), -1);
	ck_assert_ptr_nonnull(strstr(err, "another minivmm build"));
	here = a;
	here.signature++;
	ck_assert_int_eq(snap_meta_compatible(&a, &here, err, ERR), -1);
	ck_assert_ptr_nonnull(strstr(err, "another CPU"));
	here = a;
	here.xsave_size = 8192;
	ck_assert_int_eq(snap_meta_compatible(&a, &here, err, ERR), -1);
	here = a;
	here.ncaps = 1;
	ck_assert_int_eq(snap_meta_compatible(&a, &here, err, ERR), -1);
	ck_assert_ptr_nonnull(strstr(err, "capability 2"));
}
END_TEST

/* --- the control page ------------------------------------------------------- */

static int requests;

static void on_request(void *ctx)
{
	ck_assert_ptr_eq(ctx, &requests);
	requests++;
}

START_TEST(control_page)
{
	static uint8_t page[SNAPCTL_SIZE];
	const char *env[] = { "A=1", "LONGER=two words" };
	struct snapctl s;
	uint32_t v = SNAPCTL_REQUEST_MAGIC, other = 1;
	char big[SNAPCTL_ENV_MAX + 1];

	snapctl_init(&s, page, on_request, &requests);
	ck_assert_uint_eq(snapctl_get(&s, SNAPCTL_REG_MAGIC), SNAPCTL_MAGIC);
	ck_assert_int_eq(snapctl_set_env(&s, env, 2), 0);
	ck_assert_uint_eq(snapctl_get(&s, SNAPCTL_REG_ENV_LEN), 21);
	ck_assert(!memcmp(page + SNAPCTL_ENV, "A=1\nLONGER=two words\n", 21));
	snapctl_ops.write(&s, SNAPCTL_REG_REQUEST, (uint8_t *)&other, 4);
	snapctl_ops.write(&s, SNAPCTL_REG_REQUEST, (uint8_t *)&v, 2);
	snapctl_ops.write(&s, SNAPCTL_REG_GENERATION, (uint8_t *)&v, 4);
	ck_assert_int_eq(requests, 0);
	ck_assert_uint_eq(snapctl_get(&s, SNAPCTL_REG_GENERATION), 0);
	snapctl_ops.write(&s, SNAPCTL_REG_REQUEST, (uint8_t *)&v, 4);
	ck_assert_int_eq(requests, 1);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	env[0] = big;
	ck_assert_int_eq(snapctl_set_env(&s, env, 1), -1);
	ck_assert_uint_eq(snapctl_get(&s, SNAPCTL_REG_ENV_LEN), 21);
}
END_TEST

/* --- device state ------------------------------------------------------------ */

static void no_irq(void *ctx, uint32_t irq, int level)
{
	(void)ctx, (void)irq, (void)level;
}

START_TEST(uart_state)
{
	struct irq_line l = { no_irq, NULL, 4 };
	struct uart *a = uart_create(l, (struct uart_sink){ 0 });
	struct uart *b = uart_create(l, (struct uart_sink){ 0 });
	struct uart_state s, t;
	uint8_t v = 0x5a;

	uart_ops.write(a, 7, &v, 1);		/* scratch */
	uart_receive(a, (const uint8_t *)"hello", 5);
	uart_get_state(a, &s);
	ck_assert_int_eq(uart_set_state(b, &s), 0);
	uart_get_state(b, &t);
	ck_assert_int_eq(memcmp(&s, &t, sizeof(s)), 0);
	uart_ops.read(b, 0, &v, 1);
	ck_assert_uint_eq(v, 'h');
	s.rx_count = UART_RX_FIFO + 1;
	ck_assert_int_eq(uart_set_state(b, &s), -1);
	uart_destroy(a);
	uart_destroy(b);
}
END_TEST

static uint64_t fake_ns;

static uint64_t fake_now(void)
{
	return fake_ns;
}

START_TEST(acpi_pm_state)
{
	struct acpi_pm a, b;
	struct acpi_pm_state s;
	uint8_t t0[4], t1[4];

	fake_ns = 1000000000;
	acpi_pm_init(&a, fake_now, NULL, NULL);
	fake_ns += 500000000;			/* the timer ran 0.5 s */
	acpi_pm_ops.read(&a, 8, t0, 4);
	acpi_pm_get_state(&a, &s);
	fake_ns = 7;				/* another host clock */
	acpi_pm_init(&b, fake_now, NULL, NULL);
	ck_assert_int_eq(acpi_pm_set_state(&b, &s), 0);
	acpi_pm_ops.read(&b, 8, t1, 4);
	ck_assert_int_eq(memcmp(t0, t1, 4), 0);	/* goes on from its count */
	s.cnt = 0;				/* SCI_EN always reads 1 */
	ck_assert_int_eq(acpi_pm_set_state(&b, &s), -1);
}
END_TEST

START_TEST(xen_and_pci_state)
{
	struct pci_bus_config conf = { .nbuses = 1 };
	struct pci_bus *bus = pci_bus_create(&conf), *bus2;
	struct xen_platform *xp = xen_platform_create(bus, PCI_BDF(0, 3, 0),
						      NULL), *xp2;
	struct pci_fn *fn = xen_platform_fn(xp), *fn2;
	static struct pci_fn_state s, t;
	struct xen_platform_state xs;
	uint8_t flag = XEN_PFFLAG_ROM_LOCK;

	xen_platform_legacy_ops.write(xp, 0, &flag, 1);
	pci_fn_write(fn, PCI_BASE_ADDRESS_0 + 4, 0xd0000000, 4);
	pci_fn_write(fn, PCI_COMMAND, PCI_COMMAND_MEMORY, 2);
	ck_assert(fn->bars[1].mapped);
	pci_fn_get_state(fn, &s);
	xen_platform_get_state(xp, &xs);

	bus2 = pci_bus_create(&conf);
	xp2 = xen_platform_create(bus2, PCI_BDF(0, 3, 0), NULL);
	fn2 = xen_platform_fn(xp2);
	ck_assert_int_eq(xen_platform_set_state(xp2, &xs), 0);
	flag = 0;
	xen_platform_legacy_ops.read(xp2, 0, &flag, 1);
	ck_assert_uint_eq(flag, XEN_PFFLAG_ROM_LOCK);

	t = s;
	t.cfg[PCI_BASE_ADDRESS_0 + 4] ^= 0x10;	/* disagrees with map_addr */
	ck_assert_int_eq(pci_fn_set_state(fn2, &t), -1);
	ck_assert(!fn2->bars[1].mapped);
	ck_assert_int_eq(pci_fn_set_state(fn2, &s), 0);
	ck_assert(fn2->bars[1].mapped);
	ck_assert_uint_eq(fn2->bars[1].map_addr, 0xd0000000);
	ck_assert_uint_eq(pci_fn_read(fn2, PCI_COMMAND, 2),
			  PCI_COMMAND_MEMORY);
	/* A function that maps something already is not loaded again. */
	ck_assert_int_eq(pci_fn_set_state(fn2, &s), -1);
	pci_bus_destroy(bus);
	pci_bus_destroy(bus2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("snapshot_state");
	TCase *t = tcase_create("state");

	tcase_add_test(t, config_round_trip);
	tcase_add_test(t, config_bad);
	tcase_add_test(t, config_disks);
	tcase_add_test(t, config_nets);
	tcase_add_test(t, config_console_device);
	tcase_add_test(t, meta_compat);
	tcase_add_test(t, control_page);
	tcase_add_test(t, uart_state);
	tcase_add_test(t, acpi_pm_state);
	tcase_add_test(t, xen_and_pci_state);
	suite_add_tcase(s, t);
	return unit_run(s);
}
