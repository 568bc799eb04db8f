// SPDX-License-Identifier: MIT
/*
 * `minivmm bench`: the run.  In order: the kvm-floor tool; for every
 * configuration in use an empty boot of the payload (its exits are the
 * baseline; the default configuration's empty boots are also the boot-time
 * samples); one boot per case and configuration, each right after a run
 * of its floor case (floor.c) so that both see the same host load;
 * the QEMU peer; then the ratios, the table, and the files asked for.  Every boot is this binary
 * run as `minivmm run ...` in a child process (see plan.c for the
 * options of each configuration).
 */
#include "tools/bench/counters.h"
#include "tools/bench/floor.h"
#include "tools/bench/hostio.h"
#include "tools/bench/fs.h"
#include "tools/bench/linux.h"
#include "tools/bench/net.h"
#include "tools/bench/pin.h"
#include "tools/bench/plan.h"
#include "tools/bench/run.h"
#include "tools/bench/snapshot.h"
#include "tools/bench/stats.h"
#include "tools/vmm_path.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define APPEND_MAX	512

/* --- files ---------------------------------------------------------------- */

/* The Linux boots' kernel and initramfs, readable before anything runs. */
static int linux_files(const struct bench_run *b)
{
	const char *f[] = { b->o.linux_kernel, b->o.linux_initrd };

	for (int i = 0; i < 2; i++) {
		if (f[i] && access(f[i], R_OK) < 0) {
			fprintf(stderr, "minivmm: error: bench: --linux-%s "
				"'%s': %s\n", i ? "initrd" : "kernel", f[i],
				strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int locate(struct bench_run *b)
{
	char dir[PATH_MAX];
	char *slash;

	if (vmm_path("bench", b->exe, sizeof(b->exe)) < 0)
		return -1;
	snprintf(dir, sizeof(dir), "%s", b->exe);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	snprintf(b->payload, sizeof(b->payload), "%s", b->o.payload ?
		 b->o.payload : "");
	if (!b->o.payload)
		snprintf(b->payload, sizeof(b->payload), "%.4000s/guests/"
			 "bench.elf", dir);
	if (b->o.floor)
		snprintf(b->floor, sizeof(b->floor), "%s", b->o.floor);
	else
		snprintf(b->floor, sizeof(b->floor), "%.4000s/kvm-floor", dir);
	if (access(b->payload, R_OK) < 0) {
		fprintf(stderr, "minivmm: error: bench: payload '%s': %s "
			"(build it with make)\n", b->payload, strerror(errno));
		return -1;
	}
	if (linux_files(b) < 0)
		return -1;
	if (!b->o.no_floor && access(b->floor, X_OK) < 0) {
		fprintf(stderr, "minivmm: error: bench: '%s': %s (build it "
			"with make tools, or pass --no-floor)\n", b->floor,
			strerror(errno));
		return -1;
	}
	snprintf(b->tmp, sizeof(b->tmp), "/tmp/minivmm-bench-XXXXXX");
	if (!mkdtemp(b->tmp))
		return -1;
	snprintf(b->stats, sizeof(b->stats), "%s/stats.json", b->tmp);
	return 0;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    n < (16 << 20) && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = calloc(1, (size_t)n + 1)) &&
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* --- minivmm runs --------------------------------------------------------- */

/* Boots the payload with cases under config c; *exits: guest exits from
 * --stats-json (-1 if unknown).  0 if the run ended with status 0. */
static int run_vmm(struct bench_run *b, const struct bench_config *c,
		   const char *cases, struct bench_child *out, double *exits)
{
	char append[APPEND_MAX], timeout[16];
	char *argv[16 + BENCH_MAX_ARGS];
	int n = 0, ret;
	char *json;

	snprintf(append, sizeof(append), "cases=%s repeat=%u target-ms=%u %s",
		 cases, b->o.repeat, b->o.target_ms, c->append);
	snprintf(timeout, sizeof(timeout), "%.0f", BENCH_VMM_TIMEOUT_S);
	argv[n++] = b->exe;
	argv[n++] = "run";
	argv[n++] = "--kernel";
	argv[n++] = b->payload;
	argv[n++] = "--append";
	argv[n++] = append;
	argv[n++] = "--stats-json";
	argv[n++] = b->stats;
	argv[n++] = "--timing";
	argv[n++] = "--timeout";
	argv[n++] = timeout;
	for (int i = 0; c->args[i]; i++)
		argv[n++] = strcmp(c->args[i], BENCH_DISK_ARG) ?
			    (char *)c->args[i] : b->disk;
	argv[n] = NULL;
	unlink(b->stats);
	ret = bench_exec(argv, BENCH_VMM_TIMEOUT_S + 30, out);
	json = slurp(b->stats);
	*exits = bench_guest_exits(json);
	free(json);
	return ret == 0 && out->status == 0 ? 0 : -1;
}

static size_t config_index(const struct bench_config *c)
{
	return (size_t)(c - bench_configs);
}

static void keep_info(struct bench_run *b, const char *out)
{
	const char *l = out ? strstr(out, "BENCHINFO ") : NULL;

	if (l && !b->host.payload_info[0])
		snprintf(b->host.payload_info, sizeof(b->host.payload_info),
			 "%.*s", (int)strcspn(l + 10, "\n"), l + 10);
}

static void baseline(struct bench_run *b, const struct bench_config *c)
{
	struct bench_child ch;
	double ex;

	if (b->baseline[config_index(c)] >= 0)
		return;
	bench_progress(b, "baseline", c->name);
	if (run_vmm(b, c, "none", &ch, &ex) == 0 && ex >= 0) {
		b->baseline[config_index(c)] = ex;
		b->base_sys[config_index(c)] = ch.syscalls;
		b->base_sw[config_index(c)] = ch.switches;
	}
	keep_info(b, ch.out);
	bench_child_free(&ch);
}

/* virtio cases run paired with QEMU's, three times (run_blk). */
static bool paired(const char *name)
{
	return bench_is_blk(name) || bench_is_net(name);
}

/* Cases run three times, each right after its floor, and judged by the
 * run with the median ratio to its floor (system calls: the target is a
 * ratio, and one floor/case pair on a shared host can land on either
 * side of a load change). */
static bool by_ratio(const struct bench_case *k)
{
	return !strcmp(k->group, "syscall");
}

static bool repeated(const struct bench_case *k)
{
	return paired(k->name) || by_ratio(k);
}

/* The tap's other end for a net case; a host that cannot have one skips
 * the row. */
static int net_begin(struct bench_result *x, const char *name)
{
	char why[160];

	if (bench_net_prepare(why, sizeof(why)) == 0 &&
	    bench_net_start(name) == 0)
		return 0;
	x->status = BENCH_SKIPPED;
	snprintf(x->note, sizeof(x->note), "no tap: %.140s", why);
	return -1;
}

/* The datagrams the host's end counted (sink: received; sender: sent). */
static void net_end(struct bench_result *x, const char *name)
{
	size_t l = strlen(x->extra);
	uint64_t n;

	if (!bench_is_net(name))
		return;
	n = bench_net_stop();
	if (x->status == BENCH_OK)
		snprintf(x->extra + l, sizeof(x->extra) - l, "%shost_%s=%llu",
			 l ? " " : "", strncmp(name, "net_tx_", 7) ? "sent" :
			 "received", (unsigned long long)n);
}

/* The exits of a case's side-by-side reference (ref_ops: one ring-3
 * MMIO exit each), not the case's own. */
static double ref_exits(const struct bench_sample *s)
{
	char v[32];

	return bench_word(s->extra, "ref_ops", v, sizeof(v)) ?
	       strtod(v, NULL) : 0;
}

static void run_case(struct bench_run *b, const struct bench_case *k,
		     const struct bench_config *c)
{
	struct bench_result *x = bench_new_row(b, k->name, k->ring, c->name,
					 "minivmm", k->group);
	char word[BENCH_NAME_MAX + 4];
	struct bench_child ch;
	struct bench_sample s;
	bool found = false;
	double ex, base = b->baseline[config_index(c)];

	snprintf(word, sizeof(word), "%s:%d", k->name, k->ring);
	bench_progress(b, word, c->name);
	if (bench_is_net(k->name) && net_begin(x, k->name) < 0)
		return;
	if (bench_is_blk(k->name) && !b->o.no_floor &&
	    bench_hostio(b, k->name, &s) == 0) {
		snprintf(x->floor_case, sizeof(x->floor_case), "%s:%d",
			 k->name, k->ring);
		x->floor_ns = s.median_ns;
	} else if (bench_floor_for(k->name, k->ring, c->name,
				   strstr(c->name, "trap"), x->floor_case,
				   sizeof(x->floor_case))) {
		x->floor_ns = bench_paired_floor(b, x->floor_case);
	}
	if (run_vmm(b, c, word, &ch, &ex) < 0 && !ch.out) {
		bench_fail_row(x, &ch, "minivmm run");
		goto out;
	}
	for (const char *l = ch.out; l && *l && !found;
	     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		int r = bench_parse_line(l, &s);

		found = r >= 0 && !strcmp(s.name, k->name) && s.ring == k->ring;
	}
	if (!found) {
		bench_fail_row(x, &ch, "no result line");
	} else if (s.skipped) {
		x->status = BENCH_SKIPPED;
		snprintf(x->note, sizeof(x->note), "%.150s", s.extra);
	} else {
		bench_result_from_sample(x, &s);
		ex -= ref_exits(&s);
		if (ex >= 0 && base >= 0 && s.ops_total)
			x->exits_per_op = (ex > base ? ex - base : 0) /
					  (double)s.ops_total;
		if (paired(k->name))
			bench_counters_per_op(x, ch.syscalls, ch.switches,
				b->base_sys[config_index(c)],
				b->base_sw[config_index(c)]);
	}
out:
	if (x->status == BENCH_FAILED)
		b->failed = true;
	bench_child_free(&ch);
	net_end(x, k->name);
	/* QEMU on the same case right away: blk rows vary with the host's
	 * load more than anything else, so compare neighbours. */
	if (b->o.peer_qemu && paired(k->name)) {
		if (bench_is_net(k->name))
			bench_net_start(k->name);
		bench_peer_qemu(&b->o, &b->host, b->payload, b->disk, word,
				&b->res);
		bench_net_stop();
	}
}

/* --- blk: paired runs ------------------------------------------------------ */

/* What keep_median() orders by: the time, or the ratio to the row's own
 * floor; a failed run counts as slowest. */
static double median_key(const struct bench_result *x, bool ratio)
{
	if (x->status != BENCH_OK)
		return 1e300;
	return ratio && x->floor_ns > 0 ? x->median_ns / x->floor_ns :
	       x->median_ns;
}

/* Of the rows of vmm at [from, n), keep the one with the median time (or
 * ratio to its floor) and drop the others. */
static void keep_median(struct bench_results *r, size_t from, const char *vmm,
			bool ratio)
{
	size_t idx[BENCH_BLK_RUNS * 2], n = 0, keep, w = from;

	for (size_t i = from; i < r->n && n < BENCH_BLK_RUNS * 2; i++)
		if (!strcmp(r->v[i].vmm, vmm))
			idx[n++] = i;
	if (n < 2)
		return;
	for (size_t i = 1; i < n; i++)		/* by time, failures last */
		for (size_t j = i; j > 0; j--) {
			const struct bench_result *a = &r->v[idx[j - 1]];
			const struct bench_result *b = &r->v[idx[j]];
			double ta = median_key(a, ratio);
			double tb = median_key(b, ratio);
			size_t t;

			if (ta <= tb)
				break;
			t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	keep = idx[n / 2];
	for (size_t i = from; i < r->n; i++) {
		bool drop = false;

		for (size_t j = 0; j < n; j++)
			drop |= i == idx[j] && i != keep;
		if (!drop)
			r->v[w++] = r->v[i];
	}
	r->n = w;
}

/* A blk case: BENCH_BLK_RUNS boots of minivmm, each followed by QEMU's
 * when asked, and of each the run with the median time: on a shared host
 * the load drifts more between boots than the VMMs differ.  A system-call
 * case the same way, each boot after its floor, by ratio. */
static void run_blk(struct bench_run *b, const struct bench_case *k,
		    const struct bench_config *c)
{
	size_t from = b->res.n;

	for (int i = 0; i < BENCH_BLK_RUNS; i++)
		run_case(b, k, c);
	keep_median(&b->res, from, "minivmm", by_ratio(k));
	keep_median(&b->res, from, "qemu", false);
}

/* --- boot ----------------------------------------------------------------- */

/* Empty boots of the default configuration: process start -> first guest
 * instruction -> payload entry, from --timing.  The first one is also the
 * default configuration's baseline. */
static void run_boot(struct bench_run *b)
{
	const struct bench_config *c = bench_config_find("default");
	uint64_t first[100], entry[100], fw[100], floor[100];
	size_t n = 0, nf = 0;

	for (unsigned int i = 0; i < b->o.repeat; i++) {
		struct bench_child ch;
		double ex, t1, t2, f;

		bench_progress(b, "boot", c->name);
		/* The floor right before each boot: both see the same load. */
		f = bench_startup_floor(b);
		if (f > 0 && nf < 100)
			floor[nf++] = (uint64_t)f;
		if (run_vmm(b, c, "none", &ch, &ex) == 0 && ex >= 0 &&
		    b->baseline[config_index(c)] < 0)
			b->baseline[config_index(c)] = ex;
		keep_info(b, ch.out);
		t1 = bench_timing_ms(ch.err, "first guest instruction");
		t2 = bench_timing_ms(ch.err, "payload entry");
		if (t1 >= 0 && t2 >= t1) {
			first[n] = (uint64_t)(t1 * 1e6);
			entry[n] = (uint64_t)(t2 * 1e6);
			fw[n++] = (uint64_t)((t2 - t1) * 1e6);
		}
		bench_child_free(&ch);
	}
	bench_boot_row(b, "boot_first_insn", "default", first, n,
		 "process start to first guest instruction");
	bench_boot_row(b, "boot_payload_entry", "default", entry, n,
		 "process start to payload entry");
	bench_boot_row(b, "boot_firmware", "default", fw, n,
		 "first guest instruction to payload entry");
	bench_startup_floor_row(b, floor, nf);
}

/* --- after the runs ------------------------------------------------------- */

static unsigned int count_steps(const struct bench_run *b, bool *used)
{
	unsigned int n = b->o.no_floor ? 0 : 1;

	for (size_t i = 0; i < bench_ncases; i++) {
		const struct bench_case *k = &bench_cases[i];

		if (!bench_case_selected(b->o.cases, k))
			continue;
		n += bench_is_blk(k->name) && !b->o.no_floor;	/* host row */
		if (repeated(k))
			n += BENCH_BLK_RUNS - 1;
		for (int j = 0; k->configs[j]; j++, n++)
			used[config_index(bench_config_find(k->configs[j]))] =
				true;
	}
	for (size_t i = 0; i < bench_nconfigs; i++)
		n += used[i];
	/* The boot runs are the default configuration's baseline. */
	if (bench_boot_selected(b->o.cases))
		n += b->o.repeat - used[config_index(bench_config_find(
						"default"))] + bench_linux_steps(b);
	if (bench_snapshot_selected(b->o.cases))
		n += bench_snapshot_steps(b);
	if (bench_fs_selected(b->o.cases))
		n += bench_fs_steps(b);
	return n + (b->o.peer_qemu ? 1 : 0);
}

static bool any_blk(const struct bench_run *b)
{
	for (size_t i = 0; i < bench_ncases; i++)
		if (bench_is_blk(bench_cases[i].name) &&
		    bench_case_selected(b->o.cases, &bench_cases[i]))
			return true;
	return false;
}

/* The namespace and tap before the net configuration's baseline boot;
 * without them that boot is not made (the rows say why). */
static void net_prepare(struct bench_run *b, bool *used)
{
	const struct bench_config *c = bench_config_find("net");
	char why[160];
	bool any = false;

	for (size_t i = 0; i < bench_ncases; i++)
		any |= bench_is_net(bench_cases[i].name) &&
		       bench_case_selected(b->o.cases, &bench_cases[i]);
	if (any && bench_net_prepare(why, sizeof(why)) < 0)
		used[config_index(c)] = false;
}

static void cleanup(struct bench_run *b)
{
	if (b->tmp[0] && strcmp(b->tmp, "/tmp/minivmm-bench-XXXXXX")) {
		bench_disk_remove(b);
		unlink(b->stats);
		rmdir(b->tmp);
	}
}

int bench_main(int argc, char **argv)
{
	static struct bench_run b;
	bool used[32] = { false };
	int r = bench_opts_parse(&b.o, argc, argv);

	if (r)
		return r > 0 ? 0 : 2;
	if (locate(&b) < 0) {
		cleanup(&b);
		return 2;
	}
	for (size_t i = 0; i < 32; i++)
		b.baseline[i] = b.base_sys[i] = b.base_sw[i] = -1;
	b.tty = isatty(2);
	b.t0 = bench_now_s();
	b.steps = count_steps(&b, used);
	b.host.repeats = b.o.repeat;
	b.host.vmm_cpu = bench_pin_cpu();
	b.host.pinned = b.host.vmm_cpu >= 0;
	host_probe(&b.profile);
	bench_host_describe(&b.host, &b.profile);
	if (any_blk(&b) && bench_disk_prepare(&b) < 0) {
		cleanup(&b);
		return 1;
	}
	net_prepare(&b, used);
	if (!b.o.no_floor)
		bench_run_floor(&b);
	if (!b.o.no_floor && any_blk(&b))
		bench_run_hostio(&b);
	if (bench_boot_selected(b.o.cases)) {
		run_boot(&b);
		bench_run_linux(&b);
	}
	for (size_t i = 0; i < bench_nconfigs; i++)
		if (used[i])
			baseline(&b, &bench_configs[i]);
	for (size_t i = 0; i < bench_ncases; i++) {
		const struct bench_case *k = &bench_cases[i];

		for (int j = 0; bench_case_selected(b.o.cases, k) &&
		     k->configs[j]; j++)
			(repeated(k) ? run_blk : run_case)(&b, k,
				bench_config_find(k->configs[j]));
	}
	if (bench_snapshot_selected(b.o.cases))
		bench_run_snapshot(&b);
	if (bench_fs_selected(b.o.cases))
		bench_run_fs(&b);
	if (b.o.peer_qemu) {
		bench_progress(&b, "qemu", "q35");
		bench_peer_qemu(&b.o, &b.host, b.payload, b.disk, NULL,
				&b.res);
	}
	if (b.tty)
		fprintf(stderr, "\r\033[K");
	bench_host_load(b.host.load_end, sizeof(b.host.load_end));
	bench_apply_floor(&b);
	bench_results_rank(&b.res);
	r = bench_write_outputs(&b.o, &b.res, &b.host, bench_now_s() - b.t0);
	cleanup(&b);
	bench_results_free(&b.res);
	return r < 0 || b.failed ? 1 : 0;
}
