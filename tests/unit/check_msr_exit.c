// SPDX-License-Identifier: MIT
/* The answer to an MSR exit: every action, per-vCPU emulation, host reads
 * through a fake reader and a fake /dev/cpu, KVM passthrough for logged
 * allows, unattributed exits, logging, statistics, kvm_run plumbing, and
 * the real KVM_GET/SET_MSRS helper when /dev/kvm is usable. */
#include "tests/unit/unit.h"
#include "vmm/kvm_compat.h"
#include "vmm/msr/exit.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>

static struct msr_policy P;
static struct msr_stats S;
static struct msr_emul_store V0, V1;
static struct msr_exit_ctx C;
static char err[1024];

/* Fakes for the callbacks. */
static struct {
	int calls, vcpu, fail;
} host;
static struct {
	int calls, fail;
	enum msr_dir dir;
	uint32_t index;
	uint64_t written;
} kvm;
static struct msr_log_event logged[8];
static int nlogged;

static int fake_host(void *opaque, int vcpu, uint32_t index, uint64_t *v)
{
	ck_assert_ptr_eq(opaque, &host);
	host.calls++;
	host.vcpu = vcpu;
	if (host.fail)
		return -EIO;
	*v = 0x1000 + index;
	return 0;
}

static int fake_kvm(void *opaque, int vcpu, enum msr_dir dir, uint32_t index,
		    uint64_t *v)
{
	(void)vcpu;
	ck_assert_ptr_eq(opaque, &kvm);
	kvm.calls++;
	kvm.dir = dir;
	kvm.index = index;
	if (kvm.fail)
		return -EINVAL;
	if (dir == MSR_WRITE)
		kvm.written = *v;
	else
		*v = 0xabcd;
	return 0;
}

static void fake_log(void *opaque, const struct msr_log_event *ev)
{
	ck_assert_ptr_eq(opaque, logged);
	if (nlogged < 8)
		logged[nlogged] = *ev;
	nlogged++;
}

static void setup(void)
{
	msr_policy_init(&P);
	msr_stats_init(&S);
	msr_emul_store_init(&V0);
	msr_emul_store_init(&V1);
	memset(&host, 0, sizeof(host));
	memset(&kvm, 0, sizeof(kvm));
	nlogged = 0;
	C = (struct msr_exit_ctx){
		.policy = &P, .stats = &S,
		.host_read = fake_host, .host_opaque = &host,
		.kvm_access = fake_kvm, .kvm_opaque = &kvm,
		.log = fake_log, .log_opaque = logged,
	};
}

static void teardown(void)
{
	msr_emul_store_free(&V0);
	msr_emul_store_free(&V1);
	msr_stats_destroy(&S);
	msr_policy_free(&P);
}

static void add(const char *rule)
{
	int rc = msr_policy_add_line(&P, "--msr", 1, rule, err, sizeof(err));

	ck_assert_msg(rc == 0, "rule \"%s\": %s", rule, err);
}

static struct msr_exit_res exit_on(struct msr_emul_store *st, int vcpu,
				   enum msr_dir dir, uint32_t index,
				   uint64_t value, uint32_t reason)
{
	struct msr_exit_req req = { .vcpu = vcpu, .rip = 0xffff8000 + index,
				    .dir = dir, .index = index,
				    .value = value, .reason = reason };

	return msr_exit_handle(&C, st, &req);
}

#define FILTER	KVM_MSR_EXIT_REASON_FILTER

static uint64_t rdv(uint32_t index)
{
	struct msr_exit_res r = exit_on(&V0, 0, MSR_READ, index, 0, FILTER);

	ck_assert_msg(!r.gp, "read of 0x%x faulted", index);
	return r.value;
}

static bool rd_gp(uint32_t index)
{
	return exit_on(&V0, 0, MSR_READ, index, 0, FILTER).gp;
}

static bool wr_gp(uint32_t index, uint64_t v)
{
	return exit_on(&V0, 0, MSR_WRITE, index, v, FILTER).gp;
}

/* ---- actions --------------------------------------------------------- */

START_TEST(deny_ignore_value)
{
	add("0x10 deny");
	add("0x11 ignore");
	add("0x12 value=0x1234");
	add("0x13 value=0x10,wgp");
	add("0x14 ignore,wgp");
	add("0x15 r value=9");		/* writes: default allow */
	ck_assert(rd_gp(0x10));
	ck_assert(wr_gp(0x10, 1));
	ck_assert_uint_eq(rdv(0x11), 0);
	ck_assert(!wr_gp(0x11, 5));
	ck_assert_uint_eq(rdv(0x11), 0);		/* dropped */
	ck_assert_uint_eq(rdv(0x12), 0x1234);
	ck_assert(!wr_gp(0x12, 7));
	ck_assert_uint_eq(rdv(0x12), 0x1234);
	ck_assert_uint_eq(rdv(0x13), 0x10);
	ck_assert(wr_gp(0x13, 0));
	ck_assert_uint_eq(rdv(0x14), 0);
	ck_assert(wr_gp(0x14, 0));
	ck_assert_uint_eq(rdv(0x15), 9);
	ck_assert_uint_eq(host.calls + kvm.calls + nlogged, 0);
}
END_TEST

START_TEST(emulate_per_vcpu)
{
	add("0x20 emulate=7");
	add("0x21 emulate");
	add("0x22 w emulate");
	add("0x22 r value=3");
	ck_assert_uint_eq(exit_on(&V0, 0, MSR_READ, 0x20, 0, FILTER).value, 7);
	ck_assert(!exit_on(&V0, 0, MSR_WRITE, 0x20, 0x55, FILTER).gp);
	ck_assert_uint_eq(exit_on(&V0, 0, MSR_READ, 0x20, 0, FILTER).value,
			  0x55);
	/* the other vCPU still sees the initial value */
	ck_assert_uint_eq(exit_on(&V1, 1, MSR_READ, 0x20, 0, FILTER).value, 7);
	ck_assert(!exit_on(&V1, 1, MSR_WRITE, 0x20, 0x66, FILTER).gp);
	ck_assert_uint_eq(exit_on(&V1, 1, MSR_READ, 0x20, 0, FILTER).value,
			  0x66);
	ck_assert_uint_eq(exit_on(&V0, 0, MSR_READ, 0x20, 0, FILTER).value,
			  0x55);
	ck_assert_uint_eq(rdv(0x21), 0);
	ck_assert(!wr_gp(0x21, UINT64_MAX));
	ck_assert_uint_eq(rdv(0x21), UINT64_MAX);
	/* write-only emulation stores, but reads follow their own rule */
	ck_assert(!wr_gp(0x22, 0x99));
	ck_assert_uint_eq(rdv(0x22), 3);
	uint64_t v = 0;

	ck_assert(msr_emul_store_get(&V0, 0x22, &v));
	ck_assert_uint_eq(v, 0x99);
	ck_assert(!msr_emul_store_get(&V1, 0x22, &v));
}
END_TEST

START_TEST(emulate_store_is_bounded)
{
	add("0x10000-0x20000 emulate=1");
	for (uint32_t i = 0; i < MSR_EMUL_MAX; i++)
		ck_assert(!wr_gp(0x10000 + i, i));
	ck_assert(wr_gp(0x10000 + MSR_EMUL_MAX, 1));	/* full */
	ck_assert(!wr_gp(0x10000 + 5, 6));		/* existing: fine */
	ck_assert_uint_eq(rdv(0x10000 + 5), 6);
	ck_assert_uint_eq(rdv(0x10000 + MSR_EMUL_MAX), 1);
	ck_assert_uint_eq(V0.n, MSR_EMUL_MAX);
	for (size_t i = 1; i < V0.n; i++)
		ck_assert_uint_gt(V0.v[i].index, V0.v[i - 1].index);
}
END_TEST

START_TEST(host_reads)
{
	add("0x19a r host");
	add("0x1b0 host=0x77");
	add("0x1b1 host,wgp");
	ck_assert_uint_eq(exit_on(&V1, 1, MSR_READ, 0x19a, 0, FILTER).value,
			  0x1000 + 0x19a);
	ck_assert_int_eq(host.vcpu, 1);
	ck_assert_uint_eq(rdv(0x1b0), 0x1000 + 0x1b0);
	ck_assert(!wr_gp(0x1b0, 1));		/* never written to the host */
	ck_assert(wr_gp(0x1b1, 1));
	ck_assert_int_eq(host.calls, 2);
	host.fail = 1;
	ck_assert(rd_gp(0x19a));			/* no fallback */
	ck_assert_uint_eq(rdv(0x1b0), 0x77);		/* fallback */
	C.host_read = NULL;
	host.fail = 0;
	ck_assert(rd_gp(0x19a));
	ck_assert_uint_eq(rdv(0x1b0), 0x77);
	ck_assert_int_eq(host.calls, 4);
}
END_TEST

START_TEST(logged_allow_goes_through_kvm)
{
	add("0x174 allow,log");
	add("0x175 allow,count");
	ck_assert_uint_eq(rdv(0x174), 0xabcd);
	ck_assert_int_eq(kvm.dir, MSR_READ);
	ck_assert_uint_eq(kvm.index, 0x174);
	ck_assert(!wr_gp(0x175, 0x42));
	ck_assert_int_eq(kvm.dir, MSR_WRITE);
	ck_assert_uint_eq(kvm.written, 0x42);
	ck_assert_int_eq(kvm.calls, 2);
	kvm.fail = 1;
	ck_assert(rd_gp(0x174));		/* KVM would #GP too */
	C.kvm_access = NULL;
	ck_assert(wr_gp(0x175, 1));
	ck_assert_int_eq(kvm.calls, 3);
	ck_assert_int_eq(nlogged, 2);		/* 0x174 only */
}
END_TEST

/* An observer's watched MSRs (msr/observer.h) exit by the filter: the
 * policy answers, and what it lets through goes to KVM. */
START_TEST(observer_watched_msrs)
{
	struct msr_observer o = { .nwatch = 2, .watch = {
		{ 0xc0000082, true, true }, { 0xc0000081, false, true } } };
	struct msr_stats_totals t;

	C.observer = &o;
	add("0xc0000084 deny");
	ck_assert(!wr_gp(0xc0000082, 0x1234));		/* allow: to KVM */
	ck_assert_int_eq(kvm.calls, 1);
	ck_assert_uint_eq(kvm.written, 0x1234);
	ck_assert_uint_eq(rdv(0xc0000082), 0xabcd);
	ck_assert_int_eq(kvm.calls, 2);
	ck_assert(rd_gp(0xc0000081));	/* reads not watched: stale filter */
	o.watch[1].index = 0xc0000084;	/* watched but denied: #GP */
	ck_assert(wr_gp(0xc0000084, 1));
	ck_assert_int_eq(kvm.calls, 2);
	msr_stats_totals(&S, &t);
	ck_assert_uint_eq(t.unattributed, 1);
	ck_assert_uint_eq(t.gp, 2);
	C.observer = NULL;		/* without it: unattributed */
	ck_assert(wr_gp(0xc0000082, 1));
	ck_assert_int_eq(kvm.calls, 2);
}
END_TEST

START_TEST(unattributed_exits)
{
	struct msr_stats_totals t;

	add("0x10 deny");
	/* KVM does not know 0x4000 and the table allows it */
	for (int i = 0; i < 3; i++)
		ck_assert(exit_on(&V0, 0, MSR_READ, 0x4000, 0,
				  KVM_MSR_EXIT_REASON_UNKNOWN).gp);
	ck_assert(exit_on(&V0, 0, MSR_WRITE, 0x4001, 1,
			  KVM_MSR_EXIT_REASON_INVAL).gp);
	/* a filter exit for an MSR the table allows: stale filter */
	ck_assert(exit_on(&V0, 0, MSR_READ, 0x4002, 0, FILTER).gp);
	/* a rule explains UNKNOWN exits for MSRs it names */
	ck_assert(exit_on(&V0, 0, MSR_READ, 0x10, 0,
			  KVM_MSR_EXIT_REASON_UNKNOWN).gp);
	msr_stats_totals(&S, &t);
	ck_assert_uint_eq(t.exits, 6);
	ck_assert_uint_eq(t.gp, 6);
	ck_assert_uint_eq(t.unattributed, 5);
	ck_assert_int_eq(nlogged, 3);		/* once per MSR */
	ck_assert(logged[0].unattributed);
	ck_assert_uint_eq(logged[0].index, 0x4000);
	ck_assert_uint_eq(logged[0].reason, KVM_MSR_EXIT_REASON_UNKNOWN);
	ck_assert_uint_eq(logged[1].index, 0x4001);
	ck_assert_int_eq(kvm.calls, 0);
}
END_TEST

/* ---- logging --------------------------------------------------------- */

START_TEST(log_events_and_format)
{
	char line[256];

	add("0x19a r value=0x10,log");
	add("0x19a w deny,log");
	add("0x1b0 ignore");
	ck_assert_uint_eq(exit_on(&V1, 3, MSR_READ, 0x19a, 0, FILTER).value,
			  0x10);
	ck_assert(exit_on(&V1, 3, MSR_WRITE, 0x19a, 0x1f, FILTER).gp);
	rdv(0x1b0);
	ck_assert_int_eq(nlogged, 2);
	ck_assert_int_eq(logged[0].vcpu, 3);
	ck_assert_uint_eq(logged[0].rip, 0xffff8000 + 0x19a);
	ck_assert_int_eq(logged[0].dir, MSR_READ);
	ck_assert_str_eq(logged[0].name, "IA32_THERM_CONTROL");
	ck_assert_uint_eq(logged[0].value, 0x10);
	ck_assert(!logged[0].gp);
	ck_assert_int_eq(logged[0].entry.action, MSR_ACT_VALUE);
	ck_assert_uint_eq(logged[1].value, 0x1f);
	ck_assert(logged[1].gp);
	msr_log_format(line, sizeof(line), &logged[0]);
	ck_assert_str_eq(line, "msr: vcpu 3 rip 0xffff819a rdmsr 0x19a "
			 "IA32_THERM_CONTROL -> 0x10 [value=0x10,log]");
	msr_log_format(line, sizeof(line), &logged[1]);
	ck_assert_str_eq(line, "msr: vcpu 3 rip 0xffff819a wrmsr 0x19a "
			 "IA32_THERM_CONTROL <- 0x1f [deny,log] #GP");
	logged[1].dir = MSR_READ;
	logged[1].name = NULL;
	logged[1].index = 0x4000;
	logged[1].unattributed = true;
	logged[1].reason = KVM_MSR_EXIT_REASON_UNKNOWN;
	msr_log_format(line, sizeof(line), &logged[1]);
	ck_assert_str_eq(line, "msr: vcpu 3 rip 0xffff819a rdmsr 0x4000 -> "
			 "#GP [deny,log] no rule explains this exit (KVM: "
			 "unknown to KVM)");
	msr_log_format(line, 10, &logged[0]);
	ck_assert_str_eq(line, "msr: vcpu");
}
END_TEST

START_TEST(wants_rip)
{
	add("0x10 deny,log");
	add("0x11 deny");
	ck_assert(msr_exit_wants_rip(&C, MSR_READ, 0x10));
	ck_assert(!msr_exit_wants_rip(&C, MSR_READ, 0x11));
	ck_assert(msr_exit_wants_rip(&C, MSR_READ, 0x12));	/* allowed */
	C.log = NULL;
	ck_assert(!msr_exit_wants_rip(&C, MSR_READ, 0x10));
}
END_TEST

/* ---- statistics ------------------------------------------------------ */

struct collected {
	struct msr_stat v[8];
	int n;
};

static void collect(const struct msr_stat *st, void *ctx)
{
	struct collected *c = ctx;

	if (c->n < 8)
		c->v[c->n] = *st;
	c->n++;
}

START_TEST(stats_per_msr)
{
	struct collected c = { .n = 0 };
	char a[48];

	add("0x19a r value=0x10");
	add("0xc0010000-0xc00100ff ignore,count");
	rdv(0xc0010004);
	rdv(0x19a);
	rdv(0x19a);
	wr_gp(0x19a, 1);		/* write: default allow, unattributed */
	wr_gp(0xc0010004, 3);
	msr_stats_for_each(&S, collect, &c);
	ck_assert_int_eq(c.n, 2);
	ck_assert_uint_eq(c.v[0].index, 0x19a);		/* sorted */
	ck_assert_str_eq(c.v[0].name, "IA32_THERM_CONTROL");
	ck_assert_uint_eq(c.v[0].reads, 2);
	ck_assert_uint_eq(c.v[0].writes, 1);
	ck_assert_uint_eq(c.v[0].gp, 1);
	ck_assert_uint_eq(c.v[0].unattributed, 1);
	msr_entry_format(a, sizeof(a), &c.v[0].rd);
	ck_assert_str_eq(a, "value=0x10");
	msr_entry_format(a, sizeof(a), &c.v[0].wr);
	ck_assert_str_eq(a, "allow");
	ck_assert_uint_eq(c.v[1].index, 0xc0010004);
	ck_assert_str_eq(c.v[1].name, "K7_PERFCTR0");
	ck_assert_uint_eq(c.v[1].reads, 1);
	ck_assert_uint_eq(c.v[1].writes, 1);
	ck_assert_uint_eq(c.v[1].gp, 0);
	msr_entry_format(a, sizeof(a), &c.v[1].wr);
	ck_assert_str_eq(a, "ignore,count");
}
END_TEST

START_TEST(stats_are_bounded)
{
	struct msr_stats_totals t;

	add("0-0x7ff ignore");
	add("0x900-0x2000 ignore");
	for (uint32_t i = 0; i < MSR_STATS_MAX + 10; i++)
		rdv(i < 0x800 ? i : i + 0x100);
	rdv(0);
	msr_stats_totals(&S, &t);
	ck_assert_uint_eq(t.exits, MSR_STATS_MAX + 11);
	ck_assert_uint_eq(t.untracked, 10);
	ck_assert_uint_eq(S.n, MSR_STATS_MAX);
	ck_assert_uint_eq(S.v[0].reads, 2);
	/* without stats, the answers do not change */
	C.stats = NULL;
	ck_assert_uint_eq(rdv(5), 0);
}
END_TEST

struct hammer {
	int vcpu;
	struct msr_emul_store st;
};

static void *hammer(void *arg)
{
	struct hammer *h = arg;

	for (int i = 0; i < 2000; i++) {
		struct msr_exit_res r = exit_on(&h->st, h->vcpu, MSR_WRITE,
						0x20 + i % 4,
						(uint64_t)h->vcpu << 32 | i,
						FILTER);

		ck_assert(!r.gp);
		r = exit_on(&h->st, h->vcpu, MSR_READ, 0x20 + i % 4, 0,
			    FILTER);
		ck_assert_uint_eq(r.value, (uint64_t)h->vcpu << 32 | i);
	}
	return NULL;
}

START_TEST(vcpu_threads)
{
	struct hammer h[4];
	pthread_t t[4];
	struct msr_stats_totals tot;

	add("0x20-0x23 emulate");
	C.log = NULL;
	for (int i = 0; i < 4; i++) {
		h[i].vcpu = i;
		msr_emul_store_init(&h[i].st);
		ck_assert_int_eq(pthread_create(&t[i], NULL, hammer, &h[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		msr_emul_store_free(&h[i].st);
	}
	msr_stats_totals(&S, &tot);
	ck_assert_uint_eq(tot.exits, 4 * 2000 * 2);
	ck_assert_uint_eq(S.n, 4);
	ck_assert_uint_eq(S.v[2].reads, 2000);
	ck_assert_uint_eq(S.v[2].writes, 2000);
}
END_TEST

/* ---- kvm_run plumbing ------------------------------------------------ */

START_TEST(run_round_trip)
{
	struct kvm_run run;
	struct msr_exit_req req;
	struct msr_exit_res res;

	add("0x19a r value=0x10");
	add("0x19a w deny");
	memset(&run, 0, sizeof(run));
	run.exit_reason = KVM_EXIT_X86_RDMSR;
	run.msr.index = 0x19a;
	run.msr.reason = FILTER;
	run.msr.data = 0xdead;		/* not an input for reads */
	req = msr_exit_req_from_run(&run, 2, 0x1234);
	ck_assert_int_eq(req.dir, MSR_READ);
	ck_assert_uint_eq(req.value, 0);
	ck_assert_int_eq(req.vcpu, 2);
	ck_assert_uint_eq(req.rip, 0x1234);
	res = msr_exit_handle(&C, &V0, &req);
	msr_exit_complete_run(&run, &req, &res);
	ck_assert_uint_eq(run.msr.error, 0);
	ck_assert_uint_eq(run.msr.data, 0x10);

	run.exit_reason = KVM_EXIT_X86_WRMSR;
	run.msr.data = 0x5;
	req = msr_exit_req_from_run(&run, 2, 0);
	ck_assert_int_eq(req.dir, MSR_WRITE);
	ck_assert_uint_eq(req.value, 5);
	res = msr_exit_handle(&C, &V0, &req);
	msr_exit_complete_run(&run, &req, &res);
	ck_assert_uint_eq(run.msr.error, 1);
	ck_assert_uint_eq(run.msr.data, 5);
}
END_TEST

/* ---- /dev/cpu/N/msr -------------------------------------------------- */

static char root[PATH_MAX];

/* A fake /dev/cpu: ROOT/N/msr for every CPU, each with value at offset
 * index (and nothing elsewhere, so other reads come up short). */
static void fake_devcpu(uint32_t index, uint64_t value)
{
	snprintf(root, sizeof(root), "%s/minivmm-devcpu-XXXXXX",
		 unit_tmpdir());
	ck_assert_ptr_nonnull(mkdtemp(root));
	for (int cpu = 0; cpu < get_nprocs_conf(); cpu++) {
		char path[PATH_MAX + 32];
		int fd;

		snprintf(path, sizeof(path), "%s/%d", root, cpu);
		ck_assert_int_eq(mkdir(path, 0700), 0);
		snprintf(path, sizeof(path), "%s/%d/msr", root, cpu);
		fd = open(path, O_CREAT | O_WRONLY, 0600);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(pwrite(fd, &value, 8, index), 8);
		close(fd);
	}
}

static void rm_devcpu(void)
{
	for (int cpu = 0; cpu < get_nprocs_conf(); cpu++) {
		char path[PATH_MAX + 32];

		snprintf(path, sizeof(path), "%s/%d/msr", root, cpu);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%d", root, cpu);
		rmdir(path);
	}
	rmdir(root);
}

START_TEST(host_dev_not_needed)
{
	struct msr_host_dev d;

	add("0x19a value=1");
	ck_assert_int_eq(msr_host_dev_open(&d, "/nonexistent", &P, err,
					   sizeof(err)), 0);
	ck_assert_ptr_null(d.fds);
	ck_assert_str_eq(d.warning, "");
	msr_host_dev_close(&d);
}
END_TEST

START_TEST(host_dev_reads)
{
	struct msr_host_dev d;
	uint64_t v = 0;

	add("0x19a r host");
	fake_devcpu(0x19a, 0x10);
	ck_assert_msg(msr_host_dev_open(&d, root, &P, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert_str_eq(d.warning, "");
	ck_assert_int_eq(msr_host_dev_read(&d, 0, 0x19a, &v), 0);
	ck_assert_uint_eq(v, 0x10);
	ck_assert_int_eq(msr_host_dev_read(&d, 0, 0x1b0, &v), -EIO);
	/* wired into the handler */
	C.host_read = msr_host_dev_read;
	C.host_opaque = &d;
	ck_assert_uint_eq(rdv(0x19a), 0x10);
	msr_host_dev_close(&d);
	ck_assert_int_eq(msr_host_dev_read(&d, 0, 0x19a, &v), -ENODEV);
	rm_devcpu();
}
END_TEST

START_TEST(host_dev_errors)
{
	struct msr_host_dev d;

	ck_assert_int_eq(msr_policy_add_line(&P, "pol", 4, "0x19a r host",
					     err, sizeof(err)), 0);
	ck_assert_int_eq(msr_host_dev_open(&d, "/nonexistent", &P, err,
					   sizeof(err)), -1);
	ck_assert_str_eq(err, "pol:4:1: error: host MSR reads: cannot open "
			 "/nonexistent/0/msr: No such file or directory (is the "
			 "msr driver loaded? modprobe msr)");
	msr_host_dev_close(&d);

	/* the driver is there but the MSR does not read */
	fake_devcpu(0x10, 1);
	ck_assert_int_eq(msr_host_dev_open(&d, root, &P, err, sizeof(err)),
			 -1);
	ck_assert_ptr_nonnull(strstr(err, "pol:4:1: error: host MSR reads: "
				     "MSR 0x19a IA32_THERM_CONTROL is not "
				     "readable on host CPU "));
	ck_assert_ptr_nonnull(strstr(err, ": Input/output error"));
	msr_host_dev_close(&d);
	rm_devcpu();
}
END_TEST

START_TEST(host_dev_fallback_warns)
{
	struct msr_host_dev d;

	add("preset:therm-compat");
	ck_assert_int_eq(msr_host_dev_open(&d, "/nonexistent", &P, err,
					   sizeof(err)), 0);
	ck_assert_str_eq(d.warning, "preset:therm-compat:2:1: warning: host "
			 "MSR reads: cannot open /nonexistent/0/msr: No such "
			 "file or directory (is the msr driver loaded? "
			 "modprobe msr); reads return the rule's fallback");
	C.host_read = msr_host_dev_read;
	C.host_opaque = &d;
	ck_assert_uint_eq(rdv(0x19a), 0);		/* fallback 0 */
	ck_assert(wr_gp(0x19a, 0));			/* xen-strict */
	msr_host_dev_close(&d);
}
END_TEST

/* ---- KVM passthrough ------------------------------------------------- */

START_TEST(kvm_vcpu_access)
{
	int kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC), vm, vcpu;
	uint64_t v = 0x10;

	if (kvm_fd < 0)
		return;		/* no KVM here: nothing to test */
	vm = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	ck_assert_int_ge(vm, 0);
	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	ck_assert_int_ge(vcpu, 0);
	ck_assert_int_eq(msr_kvm_vcpu_access(vcpu, MSR_WRITE, 0x174, &v), 0);
	v = 0;
	ck_assert_int_eq(msr_kvm_vcpu_access(vcpu, MSR_READ, 0x174, &v), 0);
	ck_assert_uint_eq(v, 0x10);
	ck_assert_int_lt(msr_kvm_vcpu_access(vcpu, MSR_READ, 0xdeadbeef, &v),
			 0);
	ck_assert_int_lt(msr_kvm_vcpu_access(-1, MSR_READ, 0x174, &v), 0);
	close(vcpu);
	close(vm);
	close(kvm_fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("msr_exit");
	TCase *t = tcase_create("core");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 30);
	tcase_add_test(t, deny_ignore_value);
	tcase_add_test(t, emulate_per_vcpu);
	tcase_add_test(t, emulate_store_is_bounded);
	tcase_add_test(t, host_reads);
	tcase_add_test(t, logged_allow_goes_through_kvm);
	tcase_add_test(t, observer_watched_msrs);
	tcase_add_test(t, unattributed_exits);
	tcase_add_test(t, log_events_and_format);
	tcase_add_test(t, wants_rip);
	tcase_add_test(t, stats_per_msr);
	tcase_add_test(t, stats_are_bounded);
	tcase_add_test(t, vcpu_threads);
	tcase_add_test(t, run_round_trip);
	tcase_add_test(t, host_dev_not_needed);
	tcase_add_test(t, host_dev_reads);
	tcase_add_test(t, host_dev_errors);
	tcase_add_test(t, host_dev_fallback_warns);
	tcase_add_test(t, kvm_vcpu_access);
	suite_add_tcase(s, t);
	return unit_run(s);
}
