// SPDX-License-Identifier: MIT
/* The exit dispatch without a guest: a kvm_run of the test's own, real
 * buses with recording devices, fake hooks and a recording stop callback,
 * for every exit reason minivmm handles and for ones it does not (named
 * in the failure report's heading); the exit-reason name table and the
 * --stats keys it gives. */
#include "tests/unit/unit.h"
#include "vmm/bus.h"
#include "vmm/exit.h"
#include "vmm/run/exit_reason.h"
#include "vmm/kvm_compat.h"
#include "vmm/run/exit_status.h"
#include "vmm/run/stats.h"
#include "vmm/vcpu.h"

#include <cjson/cJSON.h>
#include <linux/kvm.h>

#define RUN_SIZE	8192
#define IO_OFFSET	4096	/* where KVM puts port I/O data: page 1 */
#define VCPU_ID		3
#define MAX_ACC		16

/* One access a recording device saw. */
struct access {
	uint64_t off;
	uint32_t len;
	bool write;
	uint8_t data[8];
};

struct dev {
	int n;
	struct access acc[MAX_ACC];
	uint8_t next;		/* reads return next, next+1, ... per access */
};

static void dev_read(void *opaque, uint64_t off, uint8_t *data, uint32_t len)
{
	struct dev *d = opaque;
	struct access *a = &d->acc[d->n++ % MAX_ACC];

	*a = (struct access){ .off = off, .len = len };
	memset(data, d->next++, len);
}

static void dev_write(void *opaque, uint64_t off, const uint8_t *data,
		      uint32_t len)
{
	struct dev *d = opaque;
	struct access *a = &d->acc[d->n++ % MAX_ACC];

	*a = (struct access){ .off = off, .len = len, .write = true };
	memcpy(a->data, data, len < 8 ? len : 8);
}

static const struct bus_ops dev_ops = { .read = dev_read, .write = dev_write };

/* A hook that records its calls and answers ret. */
struct fake_hook {
	int calls;
	int order;		/* value of seq when last called */
	struct vcpu *v;
	bool ret;
};

static int seq;

static bool hook_fn(void *ctx, struct vcpu *v)
{
	struct fake_hook *h = ctx;

	h->calls++;
	h->order = ++seq;
	h->v = v;
	return h->ret;
}

/* The MSR hook answers a read the way msr/vm.c does: in run->msr. */
static struct kvm_run *run;

static bool msr_fn(void *ctx, struct vcpu *v)
{
	if (!hook_fn(ctx, v))
		return false;
	if (run->exit_reason == KVM_EXIT_X86_RDMSR)
		run->msr.data = 0x1234000000000000ull | run->msr.index;
	return true;
}

static struct {
	int calls;
	struct vcpu *v;
	int status;
	bool report;
	char why[128];
} stopped;

static void stop_fn(void *ctx, struct vcpu *v, int status, bool report,
		    const char *why)
{
	ck_assert_ptr_eq(ctx, &stopped);
	stopped.calls++;
	stopped.v = v;
	stopped.status = status;
	stopped.report = report;
	snprintf(stopped.why, sizeof(stopped.why), "%s", why);
}

static struct bus pio, mmio;
static struct dev port_dev, mmio_dev;
static struct stats st;
static struct fake_hook msr_h, internal_h, debug_h, seen_h;
static struct vcpu_exits x;
/* Only handed on to hooks and stop: the dispatch never looks inside. */
static struct vcpu vcpu = { .id = VCPU_ID, .fd = -1 };
#define V (&vcpu)

static void setup(void)
{
	run = calloc(1, RUN_SIZE);
	ck_assert_ptr_nonnull(run);
	memset(&port_dev, 0, sizeof(port_dev));
	memset(&mmio_dev, 0, sizeof(mmio_dev));
	memset(&stopped, 0, sizeof(stopped));
	msr_h = internal_h = debug_h = seen_h =
		(struct fake_hook){ .ret = true };
	seq = 0;
	bus_init(&pio, "pio", 0x10000);
	pio.whole_access = true;
	bus_init(&mmio, "mmio", UINT64_MAX);
	ck_assert_int_eq(bus_register(&pio, 0x3f8, 8, &dev_ops, &port_dev,
				      "port"), 0);
	ck_assert_int_eq(bus_register(&mmio, 0xfed00000, 0x1000, &dev_ops,
				      &mmio_dev, "mmio"), 0);
	stats_init(&st);
	x = (struct vcpu_exits){
		.pio = &pio, .mmio = &mmio, .stats = &st,
		.stop = stop_fn, .stop_ctx = &stopped,
	};
}

static void teardown(void)
{
	bus_destroy(&pio);
	bus_destroy(&mmio);
	free(run);
}

static bool dispatch(uint32_t reason)
{
	run->exit_reason = reason;
	return exit_dispatch(&x, run, V, VCPU_ID);
}

static uint8_t *io_data(void)
{
	return (uint8_t *)run + IO_OFFSET;
}

static void set_io(uint8_t dir, uint16_t port, uint8_t size, uint32_t count)
{
	run->io.direction = dir;
	run->io.port = port;
	run->io.size = size;
	run->io.count = count;
	run->io.data_offset = IO_OFFSET;
}

static void assert_no_stop(void)
{
	ck_assert_msg(stopped.calls == 0, "stopped: %s", stopped.why);
}

static void assert_stop(int status, bool report, const char *why)
{
	ck_assert_int_eq(stopped.calls, 1);
	ck_assert_ptr_eq(stopped.v, V);
	ck_assert_int_eq(stopped.status, status);
	ck_assert_int_eq(stopped.report, report);
	ck_assert_str_eq(stopped.why, why);
}

START_TEST(io_out)
{
	set_io(KVM_EXIT_IO_OUT, 0x3f9, 1, 1);
	io_data()[0] = 'A';
	ck_assert(dispatch(KVM_EXIT_IO));
	assert_no_stop();
	ck_assert_int_eq(port_dev.n, 1);
	ck_assert(port_dev.acc[0].write);
	ck_assert_uint_eq(port_dev.acc[0].off, 1);
	ck_assert_uint_eq(port_dev.acc[0].len, 1);
	ck_assert_uint_eq(port_dev.acc[0].data[0], 'A');
	ck_assert_uint_eq(stats_exits(&st, KVM_EXIT_IO), 1);
}
END_TEST

START_TEST(io_in)
{
	port_dev.next = 0x5a;
	set_io(KVM_EXIT_IO_IN, 0x3f8, 4, 1);
	memset(io_data(), 0, 8);
	ck_assert(dispatch(KVM_EXIT_IO));
	assert_no_stop();
	ck_assert_int_eq(port_dev.n, 1);
	ck_assert(!port_dev.acc[0].write);
	ck_assert_uint_eq(port_dev.acc[0].len, 4);
	ck_assert_mem_eq(io_data(), "\x5a\x5a\x5a\x5a\0", 5);
}
END_TEST

/* rep outsb / rep insw: count items, one bus access each, in order. */
START_TEST(io_string)
{
	set_io(KVM_EXIT_IO_OUT, 0x3f8, 1, 5);
	memcpy(io_data(), "hello", 5);
	ck_assert(dispatch(KVM_EXIT_IO));
	ck_assert_int_eq(port_dev.n, 5);
	for (int i = 0; i < 5; i++) {
		ck_assert(port_dev.acc[i].write);
		ck_assert_uint_eq(port_dev.acc[i].off, 0);
		ck_assert_uint_eq(port_dev.acc[i].data[0], "hello"[i]);
	}
	port_dev.n = 0;
	port_dev.next = 1;
	set_io(KVM_EXIT_IO_IN, 0x3fa, 2, 3);
	memset(io_data(), 0, 8);
	ck_assert(dispatch(KVM_EXIT_IO));
	assert_no_stop();
	ck_assert_int_eq(port_dev.n, 3);
	ck_assert_uint_eq(port_dev.acc[2].off, 2);
	ck_assert_mem_eq(io_data(), "\1\1\2\2\3\3\0", 7);
	ck_assert_uint_eq(stats_exits(&st, KVM_EXIT_IO), 2);
}
END_TEST

/* A port nobody decodes reads all-ones and the guest goes on. */
START_TEST(io_unclaimed)
{
	set_io(KVM_EXIT_IO_IN, 0x80, 1, 2);
	memset(io_data(), 0, 4);
	ck_assert(dispatch(KVM_EXIT_IO));
	assert_no_stop();
	ck_assert_mem_eq(io_data(), "\xff\xff\0", 3);
	ck_assert_uint_eq(pio.unclaimed_reads, 2);
}
END_TEST

START_TEST(mmio_write_read)
{
	run->mmio.phys_addr = 0xfed00010;
	run->mmio.len = 4;
	run->mmio.is_write = 1;
	memcpy(run->mmio.data, "\x11\x22\x33\x44", 4);
	ck_assert(dispatch(KVM_EXIT_MMIO));
	ck_assert_int_eq(mmio_dev.n, 1);
	ck_assert(mmio_dev.acc[0].write);
	ck_assert_uint_eq(mmio_dev.acc[0].off, 0x10);
	ck_assert_uint_eq(mmio_dev.acc[0].len, 4);
	ck_assert_mem_eq(mmio_dev.acc[0].data, "\x11\x22\x33\x44", 4);

	mmio_dev.next = 0x77;
	run->mmio.is_write = 0;
	run->mmio.len = 8;
	memset(run->mmio.data, 0, 8);
	ck_assert(dispatch(KVM_EXIT_MMIO));
	assert_no_stop();
	ck_assert_int_eq(mmio_dev.n, 2);
	ck_assert(!mmio_dev.acc[1].write);
	ck_assert_uint_eq(mmio_dev.acc[1].len, 8);
	ck_assert_mem_eq(run->mmio.data, "\x77\x77\x77\x77\x77\x77\x77\x77",
			 8);
	ck_assert_uint_eq(stats_exits(&st, KVM_EXIT_MMIO), 2);
}
END_TEST

/* A length beyond run->mmio.data (a hostile or buggy KVM) is clamped to
 * its 8 bytes: the read fills them and nothing after (len, is_write). */
START_TEST(mmio_len_clamped)
{
	mmio_dev.next = 0x99;
	run->mmio.phys_addr = 0xfed00000;
	run->mmio.len = 64;
	run->mmio.is_write = 0;
	ck_assert(dispatch(KVM_EXIT_MMIO));
	assert_no_stop();
	ck_assert_int_eq(mmio_dev.n, 1);
	ck_assert_uint_eq(mmio_dev.acc[0].len, 8);
	ck_assert_mem_eq(run->mmio.data, "\x99\x99\x99\x99\x99\x99\x99\x99",
			 8);
	ck_assert_uint_eq(run->mmio.len, 64);
	ck_assert_uint_eq(run->mmio.is_write, 0);
}
END_TEST

START_TEST(msr_hook)
{
	x.msr = (struct vcpu_hook){ msr_fn, &msr_h };
	run->msr.index = 0x1b;
	ck_assert(dispatch(KVM_EXIT_X86_RDMSR));
	ck_assert_int_eq(msr_h.calls, 1);
	ck_assert_ptr_eq(msr_h.v, V);
	ck_assert_uint_eq(run->msr.error, 0);
	ck_assert_uint_eq(run->msr.data, 0x123400000000001bull);

	run->msr.data = 5;
	ck_assert(dispatch(KVM_EXIT_X86_WRMSR));
	ck_assert_int_eq(msr_h.calls, 2);
	ck_assert_uint_eq(run->msr.error, 0);
	assert_no_stop();
	ck_assert_uint_eq(stats_exits(&st, KVM_EXIT_X86_RDMSR), 1);
	ck_assert_uint_eq(stats_exits(&st, KVM_EXIT_X86_WRMSR), 1);
}
END_TEST

/* No MSR handler, or one that fails: the guest gets #GP, the run goes on. */
START_TEST(msr_gp)
{
	uint32_t reason[] = { KVM_EXIT_X86_RDMSR, KVM_EXIT_X86_WRMSR };

	for (int i = 0; i < 2; i++) {
		x.msr = (struct vcpu_hook){ 0 };
		run->msr.error = 0;
		ck_assert(dispatch(reason[i]));
		ck_assert_uint_eq(run->msr.error, 1);

		msr_h.ret = false;
		x.msr = (struct vcpu_hook){ msr_fn, &msr_h };
		run->msr.error = 0;
		ck_assert(dispatch(reason[i]));
		ck_assert_uint_eq(run->msr.error, 1);
		msr_h.ret = true;
	}
	ck_assert_int_eq(msr_h.calls, 2);
	assert_no_stop();
}
END_TEST

START_TEST(intr)
{
	ck_assert(dispatch(KVM_EXIT_INTR));
	assert_no_stop();
	ck_assert_int_eq(port_dev.n + mmio_dev.n, 0);
	ck_assert_uint_eq(stats_exits(&st, KVM_EXIT_INTR), 1);
}
END_TEST

START_TEST(shutdown)
{
	ck_assert(!dispatch(KVM_EXIT_SHUTDOWN));
	assert_stop(EXIT_TRIPLE_FAULT, true,
		    "triple fault (KVM_EXIT_SHUTDOWN)");
}
END_TEST

START_TEST(system_event_shutdown)
{
	run->system_event.type = KVM_SYSTEM_EVENT_SHUTDOWN;
	ck_assert(!dispatch(KVM_EXIT_SYSTEM_EVENT));
	assert_stop(EXIT_POWEROFF, false, "guest powered off");
}
END_TEST

START_TEST(system_event_reset)
{
	run->system_event.type = KVM_SYSTEM_EVENT_RESET;
	ck_assert(!dispatch(KVM_EXIT_SYSTEM_EVENT));
	assert_stop(EXIT_GUEST_RESET, false, "guest requested a reset");
}
END_TEST

START_TEST(system_event_other)
{
	run->system_event.type = KVM_SYSTEM_EVENT_CRASH;
	ck_assert(!dispatch(KVM_EXIT_SYSTEM_EVENT));
	assert_stop(EXIT_VMM_ERROR, false, "vCPU 3: unexpected system event 3");
}
END_TEST

/* The emulation-failure hook (vmm/pvm/emulate.c) may fix the exit; a
 * failing or missing one ends the run with the report. */
START_TEST(internal_error)
{
	x.internal_error = (struct vcpu_hook){ hook_fn, &internal_h };
	ck_assert(dispatch(KVM_EXIT_INTERNAL_ERROR));
	ck_assert_int_eq(internal_h.calls, 1);
	ck_assert_ptr_eq(internal_h.v, V);
	assert_no_stop();

	internal_h.ret = false;
	ck_assert(!dispatch(KVM_EXIT_INTERNAL_ERROR));
	ck_assert_int_eq(internal_h.calls, 2);
	assert_stop(EXIT_EMULATION, true, "KVM internal error");
}
END_TEST

START_TEST(internal_error_no_hook)
{
	ck_assert(!dispatch(KVM_EXIT_INTERNAL_ERROR));
	assert_stop(EXIT_EMULATION, true, "KVM internal error");
}
END_TEST

START_TEST(debug)
{
	x.debug = (struct vcpu_hook){ hook_fn, &debug_h };
	ck_assert(dispatch(KVM_EXIT_DEBUG));
	ck_assert_int_eq(debug_h.calls, 1);
	assert_no_stop();

	debug_h.ret = false;
	ck_assert(!dispatch(KVM_EXIT_DEBUG));
	assert_stop(EXIT_VMM_ERROR, true, "unexpected debug exit");
}
END_TEST

START_TEST(debug_no_hook)
{
	ck_assert(!dispatch(KVM_EXIT_DEBUG));
	assert_stop(EXIT_VMM_ERROR, true, "unexpected debug exit");
}
END_TEST

START_TEST(fail_entry)
{
	run->fail_entry.hardware_entry_failure_reason = 0x21;
	ck_assert(!dispatch(KVM_EXIT_FAIL_ENTRY));
	assert_stop(EXIT_EMULATION, true, "VM entry failed");
}
END_TEST

/* The exit_seen hook runs first, for every exit, and may end the run
 * before the exit is handled. */
START_TEST(exit_seen)
{
	x.exit_seen = (struct vcpu_hook){ hook_fn, &seen_h };
	x.debug = (struct vcpu_hook){ hook_fn, &debug_h };
	ck_assert(dispatch(KVM_EXIT_DEBUG));
	ck_assert_int_eq(seen_h.calls, 1);
	ck_assert_int_eq(seen_h.order, 1);
	ck_assert_int_eq(debug_h.order, 2);
	set_io(KVM_EXIT_IO_OUT, 0x3f8, 1, 1);
	ck_assert(dispatch(KVM_EXIT_IO));
	ck_assert_int_eq(seen_h.calls, 2);
	ck_assert_int_eq(port_dev.n, 1);
	assert_no_stop();

	seen_h.ret = false;
	ck_assert(!dispatch(KVM_EXIT_IO));
	ck_assert_int_eq(port_dev.n, 1);	/* not handled */
	assert_stop(EXIT_VMM_ERROR, true, "exit hook failed");
	/* Counted all the same: --stats shows what the guest did. */
	ck_assert_uint_eq(stats_exits(&st, KVM_EXIT_IO), 2);
}
END_TEST

/* Exits minivmm never asks for end the run, named in the report. */
static const struct {
	uint32_t reason;
	const char *why;
} unhandled[] = {
	{ KVM_EXIT_UNKNOWN, "unhandled KVM exit 0 (KVM_EXIT_UNKNOWN)" },
	{ KVM_EXIT_EXCEPTION, "unhandled KVM exit 1 (KVM_EXIT_EXCEPTION)" },
	{ KVM_EXIT_HYPERCALL, "unhandled KVM exit 3 (KVM_EXIT_HYPERCALL)" },
	{ KVM_EXIT_HLT, "unhandled KVM exit 5 (KVM_EXIT_HLT)" },
	{ KVM_EXIT_IRQ_WINDOW_OPEN,
	  "unhandled KVM exit 7 (KVM_EXIT_IRQ_WINDOW_OPEN)" },
	{ KVM_EXIT_S390_SIEIC, "unhandled KVM exit 13 (KVM_EXIT_S390_SIEIC)" },
	{ KVM_EXIT_S390_TSCH, "unhandled KVM exit 22 (KVM_EXIT_S390_TSCH)" },
	{ KVM_EXIT_HYPERV, "unhandled KVM exit 27 (KVM_EXIT_HYPERV)" },
	{ KVM_EXIT_X86_BUS_LOCK,
	  "unhandled KVM exit 33 (KVM_EXIT_X86_BUS_LOCK)" },
	{ KVM_EXIT_XEN, "unhandled KVM exit 34 (KVM_EXIT_XEN)" },
	{ KVM_EXIT_NOTIFY, "unhandled KVM exit 37 (KVM_EXIT_NOTIFY)" },
	{ KVM_EXIT_MEMORY_FAULT,
	  "unhandled KVM exit 39 (KVM_EXIT_MEMORY_FAULT)" },
	{ KVM_EXIT_TDX, "unhandled KVM exit 40 (KVM_EXIT_TDX)" },
	{ 63, "unhandled KVM exit 63 (no name known)" },
	{ 9999, "unhandled KVM exit 9999 (no name known)" },
	{ UINT32_MAX, "unhandled KVM exit 4294967295 (no name known)" },
};

START_TEST(unhandled_named)
{
	uint32_t reason = unhandled[_i].reason;

	ck_assert(!dispatch(reason));
	assert_stop(EXIT_VMM_ERROR, true, unhandled[_i].why);
	ck_assert_int_eq(port_dev.n + mmio_dev.n, 0);
	if (reason < STATS_MAX_REASONS)
		ck_assert_uint_eq(stats_exits(&st, reason), 1);
	else
		ck_assert_uint_eq(atomic_load(&st.exits_other), 1);
}
END_TEST

/* The table: every number up to the newest named one has a name and a
 * key derived from it; numbers past it have neither. */
START_TEST(name_table)
{
	uint32_t r;

	for (r = 0; r <= KVM_EXIT_TDX; r++) {
		const char *name = exit_reason_name(r);
		const char *key = exit_reason_key(r);
		char want[40];
		size_t j = 0;

		ck_assert_msg(name && key, "reason %u unnamed", r);
		ck_assert_msg(!strncmp(name, "KVM_EXIT_", 9), "%s", name);
		name += 9;
		if (!strncmp(name, "X86_", 4))
			name += 4;
		for (; name[j] && j < sizeof(want) - 1; j++)
			want[j] = (char)(name[j] >= 'A' && name[j] <= 'Z' ?
					 name[j] - 'A' + 'a' : name[j]);
		want[j] = '\0';
		ck_assert_str_eq(key, want);
	}
	ck_assert_str_eq(exit_reason_name(KVM_EXIT_X86_RDMSR),
			 "KVM_EXIT_X86_RDMSR");
	ck_assert_str_eq(exit_reason_key(KVM_EXIT_X86_WRMSR), "wrmsr");
	ck_assert_str_eq(exit_reason_key(KVM_EXIT_IO), "io");
	ck_assert_ptr_null(exit_reason_name(r));
	ck_assert_ptr_null(exit_reason_key(9999));
	ck_assert_ptr_null(exit_reason_name(UINT32_MAX));
}
END_TEST

/* The count on the "  key  count" line of --stats output; -1 if none. */
static long stat_line(const char *out, const char *key)
{
	char pat[40];
	const char *p;

	snprintf(pat, sizeof(pat), "\n  %s ", key);
	p = strstr(out, pat);
	return p ? strtol(p + strlen(pat), NULL, 10) : -1;
}

/* --stats and --stats-json name exits from the same table. */
START_TEST(stats_keys)
{
	char path[PATH_MAX];
	struct capture c;
	const char *out;
	cJSON *root, *ex;
	FILE *f;
	char text[4096];
	size_t n;

	dispatch(KVM_EXIT_HYPERCALL);
	dispatch(KVM_EXIT_HYPERCALL);
	dispatch(50);
	dispatch(9999);
	set_io(KVM_EXIT_IO_OUT, 0x3f8, 1, 1);
	dispatch(KVM_EXIT_IO);
	capture_start(&c, 1);
	stats_print(&st, stdout);
	out = capture_end(&c);
	ck_assert_int_eq(stat_line(out, "hypercall"), 2);
	ck_assert_int_eq(stat_line(out, "exit_50"), 1);
	ck_assert_int_eq(stat_line(out, "other"), 1);	/* 9999 */
	ck_assert_int_eq(stat_line(out, "io"), 1);

	tmpfile_with(path, "", 0);
	ck_assert_int_eq(stats_write_json(&st, path, 1), 0);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	unlink(path);
	root = cJSON_Parse(text);
	ex = cJSON_GetObjectItemCaseSensitive(root, "exits");
	ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(ex, "hypercall")
			 ->valueint, 2);
	ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(ex, "exit_50")
			 ->valueint, 1);
	ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(ex, "io")
			 ->valueint, 1);
	cJSON_Delete(root);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("exit");
	TCase *t = tcase_create("dispatch");
	int n_unhandled = sizeof(unhandled) / sizeof(unhandled[0]);

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, io_out);
	tcase_add_test(t, io_in);
	tcase_add_test(t, io_string);
	tcase_add_test(t, io_unclaimed);
	tcase_add_test(t, mmio_write_read);
	tcase_add_test(t, mmio_len_clamped);
	tcase_add_test(t, msr_hook);
	tcase_add_test(t, msr_gp);
	tcase_add_test(t, intr);
	tcase_add_test(t, shutdown);
	tcase_add_test(t, system_event_shutdown);
	tcase_add_test(t, system_event_reset);
	tcase_add_test(t, system_event_other);
	tcase_add_test(t, internal_error);
	tcase_add_test(t, internal_error_no_hook);
	tcase_add_test(t, debug);
	tcase_add_test(t, debug_no_hook);
	tcase_add_test(t, fail_entry);
	tcase_add_test(t, exit_seen);
	tcase_add_loop_test(t, unhandled_named, 0, n_unhandled);
	tcase_add_test(t, name_table);
	tcase_add_test(t, stats_keys);
	suite_add_tcase(s, t);
	return unit_run(s);
}
