// SPDX-License-Identifier: MIT
/* minivmm test: options, the environment module, and the run. */
#include "tools/test/test.h"
#include "tools/bench/bench.h"
#include "vmm/boot/loader.h"
#include "vmm/host.h"
#include "tools/test/report.h"
#include "tools/test/run.h"
#include "tools/test/snap.h"
#include "tools/vmm_path.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define JOBS_MAX	64
#define MANIFEST_MAX	(4u << 20)
#define QEMU_BIN	"qemu-system-x86_64"

struct test_opts {
	int jobs;
	double timeout;
	const char *tap, *junit, *markdown, *log_dir, *kernel_dir;
	const char *qemu_args;
	const char *group;
	bool peer;
	bool snapshots;			/* snapshot = port entries restore */
	const char *manifest;
	char **names;
	int nnames;
};

static void usage(FILE *out)
{
	fputs(
"usage: minivmm test [options] MANIFEST [NAME...]\n"
"\n"
"Runs the tests of a kvm-unit-tests manifest (unittests.cfg) under minivmm;\n"
"NAMEs pick tests (a named test runs even in group nodefault).\n"
"  -j, --jobs N         tests at a time (default: the host's CPUs, at most 64)\n"
"  -g, --group G        only the tests in group G (nodefault ones too)\n"
"  --timeout S          every test's timeout in seconds (default: the\n"
"                       manifest's, else 90)\n"
"  --kernel-dir DIR     where the manifest's files are (default: its folder)\n"
"  --logs DIR           per-test logs (default: test-logs)\n"
"  --tap FILE           write TAP 13\n"
"  --junit FILE         write JUnit XML\n"
"  --peer qemu          also run each test under qemu-system-x86_64 as the\n"
"                       suite's scripts do, and print both columns\n"
"  --qemu-args ARGS     more arguments for QEMU (default on PVM hosts:\n"
"                       -cpu host,-arch-capabilities)\n"
"  --markdown FILE      write the results (both columns) as a Markdown table\n"
"  --no-snapshots       boot every test in full (default: the tests marked\n"
"                       snapshot = port start from one snapshot per machine,\n"
"                       their test_args given as ARGS= in the guest's mailbox)\n"
"  -h, --help           this text\n"
"\n"
"One line per test: PASS, FAIL, SKIP or TIMEOUT, the test's SUMMARY line or\n"
"the reason, and the time.  Status: 0 nothing failed, 1 a test failed or\n"
"timed out under minivmm, 2 bad usage or manifest.\n", out);
}

static int bad(const char *opt, const char *v, const char *why)
{
	fprintf(stderr, "minivmm: test: %s '%s': %s\n", opt, v, why);
	return -1;
}

static int parse_opt(struct test_opts *o, int c, const char *v)
{
	char *end;
	long n;

	switch (c) {
	case 'j':
		errno = 0;
		n = strtol(v, &end, 10);
		if (errno || *end || n < 1 || n > JOBS_MAX)
			return bad("--jobs", v, "expected 1..64");
		o->jobs = (int)n;
		return 0;
	case 't':
		if (manifest_parse_duration(v, &o->timeout) < 0 ||
		    o->timeout <= 0)
			return bad("--timeout", v, "expected seconds > 0");
		return 0;
	case 'p':
		if (strcmp(v, "qemu"))
			return bad("--peer", v, "expected qemu");
		o->peer = true;
		return 0;
	case 'T': o->tap = v; return 0;
	case 'J': o->junit = v; return 0;
	case 'M': o->markdown = v; return 0;
	case 'L': o->log_dir = v; return 0;
	case 'K': o->kernel_dir = v; return 0;
	case 'Q': o->qemu_args = v; return 0;
	case 'g': o->group = v; return 0;
	case 'S': o->snapshots = false; return 0;
	}
	return -1;
}

/* 1: help printed; 0: run; -1: bad usage (printed). */
static int parse_args(struct test_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "group", required_argument, NULL, 'g' },
		{ "timeout", required_argument, NULL, 't' },
		{ "peer", required_argument, NULL, 'p' },
		{ "tap", required_argument, NULL, 'T' },
		{ "junit", required_argument, NULL, 'J' },
		{ "markdown", required_argument, NULL, 'M' },
		{ "logs", required_argument, NULL, 'L' },
		{ "kernel-dir", required_argument, NULL, 'K' },
		{ "qemu-args", required_argument, NULL, 'Q' },
		{ "no-snapshots", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int c;

	*o = (struct test_opts){ .jobs = cpus > 0 && cpus < JOBS_MAX ?
					 (int)cpus : 1,
				 .log_dir = "test-logs", .snapshots = true };
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":j:g:h", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		if (c == '?' || c == ':') {
			fprintf(stderr, "minivmm: test: %s '%s' (see minivmm "
				"test --help)\n", c == '?' ? "unknown option" :
				"option needs a value", argv[optind - 1]);
			return -1;
		}
		if (parse_opt(o, c, optarg) < 0)
			return -1;
	}
	if (optind >= argc) {
		fprintf(stderr, "minivmm: test: no manifest (see minivmm test "
			"--help)\n");
		return -1;
	}
	o->manifest = argv[optind];
	o->names = argv + optind + 1;
	o->nnames = argc - optind - 1;
	return 0;
}

static int load_manifest(const char *path, struct manifest *m)
{
	char err[LOADER_ERR_MAX > MANIFEST_ERR_MAX ? LOADER_ERR_MAX :
		 MANIFEST_ERR_MAX];
	uint8_t *buf;
	size_t len;
	int r;

	if (loader_read_file(path, MANIFEST_MAX, &buf, &len, err) < 0) {
		fprintf(stderr, "minivmm: test: manifest '%s': %s\n", path,
			err);
		return -1;
	}
	r = manifest_parse((const char *)buf, len, path, m, err);
	free(buf);
	if (r < 0)
		fprintf(stderr, "minivmm: test: %s\n", err);
	return r;
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

static int select_tests(const struct test_opts *o, const struct manifest *m,
			bool *want)
{
	for (int i = 0; i < m->n; i++)
		want[i] = o->nnames == 0 &&
			  (!o->group || manifest_has_word(m->t[i].groups,
							  o->group));
	for (int i = 0; i < o->nnames; i++) {
		int k = manifest_find(m, o->names[i]);

		if (k < 0) {
			fprintf(stderr, "minivmm: test: no test '%s' in %s\n",
				o->names[i], o->manifest);
			return -1;
		}
		want[k] = true;
	}
	return 0;
}

struct setup {
	char self[4096], qemu[4096], env[4352], kdir[4096], mcopy[4096];
	char host[512];
	char qemu_cpu[80];		/* "-cpu ..." the host needs, or "" */
	struct host profile;		/* probed once (vmm/host.h) */
	struct plan_opts po;
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

static int prepare(const struct test_opts *o, struct setup *s)
{
	host_probe(&s->profile);
	if (vmm_path("test", s->self, sizeof(s->self)) < 0)
		return -1;
	if (o->peer && !find_in_path(QEMU_BIN, s->qemu, sizeof(s->qemu))) {
		fprintf(stderr, "minivmm: test: --peer qemu: %s not found in "
			"PATH (Debian: apt-get install qemu-system-x86)\n",
			QEMU_BIN);
		return -1;
	}
	if (mkdir(o->log_dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "minivmm: test: --logs '%s': %s\n", o->log_dir,
			strerror(errno));
		return -1;
	}
	snprintf(s->env, sizeof(s->env), "%s/environ", o->log_dir);
	if (write_env(s->env) < 0) {
		fprintf(stderr, "minivmm: test: writing '%s': %s\n", s->env,
			strerror(errno));
		return -1;
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
	char host[1024];
	int bad = 0;

	if (o->tap)
		bad |= report_tap(o->tap, items, n);
	if (o->junit)
		bad |= report_junit(o->junit, o->manifest, items, n, o->peer);
	if (o->markdown) {
		describe_host(s, o->peer, host, sizeof(host));
		bad |= report_markdown(o->markdown, items, n, host);
	}
	return bad;
}

static int run_selected(const struct test_opts *o, struct setup *s,
			const struct manifest *m, const bool *want)
{
	struct run_item *items = calloc((size_t)m->n, sizeof(*items));
	struct ctx c = { o->peer };
	struct run_opts ro = { o->jobs, o->log_dir, o->peer, on_done, &c };
	struct tally t;
	double t0 = now_s();
	int n = 0, status;

	if (!items)
		return 2;
	for (int i = 0; i < m->n; i++) {
		if (!want[i])
			continue;
		s->po.named = o->nnames > 0 || o->group;
		plan_make(&m->t[i], &s->po, &items[n++].plan);
	}
	report_header(stdout, o->peer);
	if (o->snapshots)
		snap_prepare(items, n, o->log_dir, stdout);
	status = run_all(items, n, &ro) < 0 ? 2 : 0;
	report_totals(stdout, items, n, o->peer, now_s() - t0);
	report_tally(items, n, RUN_VMM, &t);
	if (write_files(o, s, items, n))
		status = 2;
	if (!status && (t.n[V_FAIL] || t.n[V_TIMEOUT]))
		status = 1;
	for (int i = 0; i < n; i++)
		plan_free(&items[i].plan);
	free(items);
	return status;
}

int test_main(int argc, char **argv)
{
	struct test_opts o;
	struct manifest m;
	struct setup *s;
	bool *want;
	int r;

	r = parse_args(&o, argc, argv);
	if (r)
		return r > 0 ? 0 : 2;
	if (load_manifest(o.manifest, &m) < 0)
		return 2;
	want = calloc((size_t)m.n + 1, sizeof(*want));
	s = calloc(1, sizeof(*s));
	r = 2;
	if (want && s && select_tests(&o, &m, want) == 0 &&
	    prepare(&o, s) == 0)
		r = run_selected(&o, s, &m, want);
	free(want);
	free(s);
	manifest_free(&m);
	return r;
}
