// SPDX-License-Identifier: MIT
/* minivmm test: what runs (selection, filter, shard, expected failures),
 * the environment module, the host's checks, the run and its files. */
#include "tools/test/test.h"
#include "tools/bench/bench.h"
#include "vmm/boot/loader.h"
#include "vmm/host/host.h"
#include "tools/test/opts.h"
#include "tools/test/filter.h"
#include "tools/test/infra.h"
#include "tools/test/report.h"
#include "tools/test/run.h"
#include "tools/test/snap.h"
#include "tools/test/xfail.h"
#include "tools/vmm_path.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define MANIFEST_MAX	(4u << 20)
#define QEMU_BIN	"qemu-system-x86_64"
/* What is kept back from TEST_TIMEOUT to write the files before the
 * engine's own kill: a twentieth, between 1 and 10 seconds. */
#define BUDGET_MARGIN(b)	((b) / 20 < 1 ? 1 : (b) / 20 > 10 ? 10 : \
				 (b) / 20)

static int read_text(const char *what, const char *path, uint8_t **buf,
		     size_t *len)
{
	char err[LOADER_ERR_MAX];

	if (loader_read_file(path, MANIFEST_MAX, buf, len, err) == 0)
		return 0;
	return infra_error(what, "%s '%s': %s", what, path, err);
}

static int load_manifest(const char *path, struct manifest *m)
{
	char err[MANIFEST_ERR_MAX];
	uint8_t *buf;
	size_t len;
	int r;

	if (read_text("manifest", path, &buf, &len) < 0)
		return -1;
	r = manifest_parse((const char *)buf, len, path, m, err);
	free(buf);
	if (r < 0)
		infra_error("manifest", "%s", err);
	return r;
}

/* The xfail file, every name in the manifest. */
static int load_xfail(const char *path, const struct manifest *m,
		      struct xfail *x)
{
	char err[XFAIL_ERR_MAX];
	uint8_t *buf;
	size_t len;
	int r;

	*x = (struct xfail){ 0 };
	if (!path)
		return 0;
	if (read_text("xfail", path, &buf, &len) < 0)
		return -1;
	r = xfail_parse((const char *)buf, len, path, x, err);
	free(buf);
	if (r < 0)
		return infra_error("xfail", "%s", err);
	for (int i = 0; i < x->n; i++)
		if (manifest_find(m, x->e[i].name) < 0) {
			infra_error("xfail", "%s:%d: no test '%s' in %s", path,
				    x->e[i].line, x->e[i].name,
				    m->n ? "the manifest" : "an empty manifest");
			xfail_free(x);
			return -1;
		}
	return 0;
}

static int read_first_line(const char *path, char *buf, unsigned long size)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, (int)size, f))
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	fclose(f);
	return 0;
}

/* PATH lookup, so a missing QEMU is one clear line before anything runs. */
static bool find_in_path(const char *bin, char *out, size_t size)
{
	const char *path = getenv("PATH");
	char dir[4096];

	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		snprintf(dir, sizeof(dir), "%.*s", (int)n, p);
		if ((size_t)snprintf(out, size, "%s/%s", n ? dir : ".", bin) <
		    size && access(out, X_OK) == 0)
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

/* The environment module the suite hands every test (-initrd): KEY=value
 * lines read by the test library; minivmm's own facts. */
static int write_env(const char *path)
{
	FILE *f = fopen(path, "w");
	struct utsname u;

	if (!f)
		return -1;
	fprintf(f, "TARGET=minivmm\nMINIVMM_VERSION=%s\n", MINIVMM_VERSION);
	if (uname(&u) == 0)
		fprintf(f, "KERNEL_VERSION_STRING=%s\n", u.release);
	return fclose(f);
}

struct ctx {
	bool peer;
};

static void on_done(struct run_item *it, void *c)
{
	report_line(stdout, it, ((struct ctx *)c)->peer);
}

/* want[i]: NAMEs, else the group, then the filter; -1 for an unknown
 * NAME. */
static int select_tests(const struct test_opts *o, const struct manifest *m,
			bool *want)
{
	for (int i = 0; i < m->n; i++)
		want[i] = o->nnames == 0 &&
			  (!o->group || manifest_has_word(m->t[i].groups,
							  o->group));
	for (int i = 0; i < o->nnames; i++) {
		int k = manifest_find(m, o->names[i]);

		if (k < 0)
			return infra_error("usage", "no test '%s' in %s",
					   o->names[i], o->manifest);
		want[k] = true;
	}
	for (int i = 0; i < m->n; i++)
		want[i] = want[i] && filter_match(o->filter, m->t[i].name);
	return 0;
}

/* Keeps this shard's share of want[]; says what it took when sharded.
 * Returns how many tests were selected before sharding. */
static int take_shard(const struct test_opts *o, const struct manifest *m,
		      bool *want)
{
	int k = shard_take(&o->shard, want, m->n), mine = 0;

	for (int i = 0; i < m->n; i++)
		mine += want[i];
	if (o->shard.total <= 1 || o->list)
		return k;
	printf("SHARD %d/%d (%s): ", o->shard.index + 1, o->shard.total,
	       o->shard.source);
	if (mine)
		printf("%d of %d tests\n", mine, k);
	else
		printf("no tests (%d over %d shards): this shard passes\n", k,
		       o->shard.total);
	fflush(stdout);
	return k;
}

struct setup {
	char self[4096], qemu[4096], env[4352], kdir[4096], mcopy[4096];
	char shard[32];
	char qemu_cpu[80];		/* "-cpu ..." the host needs, or "" */
	struct host profile;		/* probed once (vmm/host/host.h) */
	struct plan_opts po;
	struct xfail xf;
};

/* QEMU's extra arguments by default: what the host's quirks need (on PVM
 * hosts, whose KVM refuses QEMU's IA32_ARCH_CAPABILITIES, the host CPU
 * for every test, whatever the manifest's -cpu), else none. */
static const char *default_qemu_args(struct setup *s)
{
	const char *cpu = host_qemu_cpu(&s->profile);

	snprintf(s->qemu_cpu, sizeof(s->qemu_cpu), "%s%s", cpu ? "-cpu " : "",
		 cpu ? cpu : "");
	return s->qemu_cpu;
}

static int make_dir(const char *opt, const char *dir)
{
	if (mkdir(dir, 0755) == 0 || errno == EEXIST)
		return 0;
	return infra_error("usage", "%s '%s': %s", opt, dir, strerror(errno));
}

/* 0, or the status: the host lacks minivmm or QEMU (3), a folder or file
 * cannot be made (2). */
static int prepare(const struct test_opts *o, struct setup *s)
{
	host_probe(&s->profile);
	if (vmm_path("test", s->self, sizeof(s->self)) < 0) {
		infra_error("vmm", "no minivmm binary to run");
		return TEST_STATUS_INFRA;
	}
	if (o->peer && !find_in_path(QEMU_BIN, s->qemu, sizeof(s->qemu))) {
		infra_error("qemu", "--peer qemu: %s not found in PATH "
			    "(Debian: apt-get install qemu-system-x86)",
			    QEMU_BIN);
		return TEST_STATUS_INFRA;
	}
	if (make_dir("--logs", o->log_dir) < 0 ||
	    make_dir("--scratch", o->scratch) < 0)
		return TEST_STATUS_USAGE;
	snprintf(s->env, sizeof(s->env), "%s/environ", o->scratch);
	if (write_env(s->env) < 0) {
		infra_error("scratch", "writing '%s': %s", s->env,
			    strerror(errno));
		return TEST_STATUS_USAGE;
	}
	snprintf(s->mcopy, sizeof(s->mcopy), "%s", o->manifest);
	snprintf(s->kdir, sizeof(s->kdir), "%s", o->kernel_dir ?
		 o->kernel_dir : dirname(s->mcopy));
	s->po = (struct plan_opts){
		.kernel_dir = s->kdir, .vmm = s->self,
		.qemu = o->peer ? s->qemu : NULL,
		.qemu_extra = o->qemu_args ? o->qemu_args :
			      default_qemu_args(s),
		.env_file = s->env, .timeout = o->timeout,
		.read_file = read_first_line,
	};
	return 0;
}

static void describe_host(const struct setup *s, bool peer, char *buf,
			  size_t size)
{
	struct bench_host h = { 0 };

	bench_host_describe(&h, &s->profile);
	snprintf(buf, size, "%s on %s, %s, KVM: %s%s%s%s", h.date, h.cpu,
		 h.kernel, h.kvm, peer ? "; QEMU with '" : "",
		 peer ? s->po.qemu_extra : "", peer ? "'" : "");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int write_files(const struct test_opts *o, const struct setup *s,
		       struct run_item *items, int n)
{
	struct junit_info ji = { o->manifest, o->shard.total > 1 ? s->shard :
				 NULL, o->peer, o->xpass_ok };
	char host[1024];
	int bad = 0;

	if (o->tap)
		bad |= report_tap(o->tap, items, n);
	if (o->junit)
		bad |= report_junit(o->junit, &ji, items, n);
	if (o->markdown) {
		describe_host(s, o->peer, host, sizeof(host));
		bad |= report_markdown(o->markdown, items, n, host);
	}
	return bad;
}

/* An expected failure's entry: its reason, its timeout cut to
 * --xfail-timeout (the argument vectors point at timeout_s). */
static void expect_fail(const struct test_opts *o, struct setup *s,
			struct run_item *it)
{
	struct plan *p = &it->plan;
	size_t n = strlen(p->notes);

	it->xfail = xfail_reason(&s->xf, p->t->name);
	if (!it->xfail || o->xfail_timeout <= 0 ||
	    p->timeout <= o->xfail_timeout)
		return;
	p->timeout = o->xfail_timeout;
	snprintf(p->timeout_s, sizeof(p->timeout_s), "%g", p->timeout);
	snprintf(p->notes + n, sizeof(p->notes) - n, "%stimeout cut to %gs "
		 "(--xfail-timeout)", n ? "; " : "", p->timeout);
}

/* Whether anything will start minivmm (or QEMU): only then must the host
 * run VMs. */
static bool runs_any(const struct run_item *items, int n)
{
	for (int i = 0; i < n; i++)
		if (items[i].plan.vmm_argv[0] || items[i].plan.qemu_argv[0])
			return true;
	return false;
}

static int status_of(const struct test_opts *o, const struct tally *t)
{
	if (t->n[V_FAIL] || t->n[V_TIMEOUT] ||
	    (t->n[V_XPASS] && !o->xpass_ok))
		return TEST_STATUS_FAILED;
	return 0;
}

static int run_selected(const struct test_opts *o, struct setup *s,
			const struct manifest *m, const bool *want, double t0)
{
	struct run_item *items = calloc((size_t)m->n + 1, sizeof(*items));
	struct ctx c = { o->peer };
	struct run_opts ro = { o->jobs, o->log_dir, o->peer, o->retries,
			       o->budget > 0 ? t0 + o->budget -
			       BUDGET_MARGIN(o->budget) : 0, on_done, &c };
	struct tally t;
	int n = 0, status;

	if (!items)
		return TEST_STATUS_USAGE;
	for (int i = 0; i < m->n; i++) {
		if (!want[i])
			continue;
		s->po.named = o->nnames > 0 || o->group;
		plan_make(&m->t[i], &s->po, &items[n].plan);
		expect_fail(o, s, &items[n++]);
	}
	status = runs_any(items, n) && (infra_check_vmm(s->self) < 0 ||
					infra_check_kvm() < 0) ?
		 TEST_STATUS_INFRA : 0;
	if (!status) {
		report_header(stdout, o->peer);
		if (o->snapshots)
			snap_prepare(items, n, o->scratch, o->log_dir, stdout);
		status = run_all(items, n, &ro) < 0 ? TEST_STATUS_USAGE : 0;
		report_totals(stdout, items, n, o->peer, now_s() - t0);
		report_tally(items, n, RUN_VMM, &t);
		if (write_files(o, s, items, n))
			status = TEST_STATUS_USAGE;
		if (!status)
			status = status_of(o, &t);
	}
	for (int i = 0; i < n; i++)
		plan_free(&items[i].plan);
	free(items);
	return status;
}

/* Bazel's sign that the runner shards: the file created or its time
 * updated. */
static int touch(const char *path)
{
	int fd;

	if (!path)
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || futimens(fd, NULL) < 0) {
		if (fd >= 0)
			close(fd);
		return infra_error("shard", "TEST_SHARD_STATUS_FILE '%s': %s",
				   path, strerror(errno));
	}
	close(fd);
	return 0;
}

static int run(const struct test_opts *o, struct setup *s, double t0)
{
	struct manifest m;
	bool *want;
	int r;

	if (touch(o->shard_status) < 0)
		return TEST_STATUS_INFRA;
	if (load_manifest(o->manifest, &m) < 0)
		return TEST_STATUS_USAGE;
	r = TEST_STATUS_USAGE;
	want = calloc((size_t)m.n + 1, sizeof(*want));
	if (want && load_xfail(o->xfail, &m, &s->xf) == 0 &&
	    select_tests(o, &m, want) == 0) {
		take_shard(o, &m, want);
		if (o->list) {
			for (int i = 0; i < m.n; i++)
				if (want[i])
					printf("%s\n", m.t[i].name);
			r = 0;
			goto out;
		}
		r = prepare(o, s);
		if (!r)
			r = run_selected(o, s, &m, want, t0);
	}
out:
	xfail_free(&s->xf);
	free(want);
	manifest_free(&m);
	return r;
}

int test_main(int argc, char **argv)
{
	double t0 = now_s();
	struct test_opts o;
	struct setup *s;
	int r;

	r = opts_parse(&o, argc, argv);
	if (r) {
		r = r > 0 ? 0 : TEST_STATUS_USAGE;
		infra_write(r);
		return r;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return TEST_STATUS_USAGE;
	snprintf(s->shard, sizeof(s->shard), "%d/%d", o.shard.index + 1,
		 o.shard.total);
	r = run(&o, s, t0);
	free(s);
	infra_write(r);
	return r;
}
