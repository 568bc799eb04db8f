// SPDX-License-Identifier: MIT
/* Where `minivmm bench` results go: the table and target figures on
 * stdout, --json FILE, --report DIR (report.md plus one SVG per group). */
#include "tools/bench/bench.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static int write_json(const char *path, const struct bench_results *r)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = bench_json_write(f, r);
	if (fclose(f) != 0)
		ret = -1;
	return ret;
}

static int write_report(const char *dir, const struct bench_results *r,
			const struct bench_host *h)
{
	char path[4096];
	FILE *f;
	int ret;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -1;
	snprintf(path, sizeof(path), "%s/report.md", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = bench_markdown_write(f, r, h, "");
	if (fclose(f) != 0)
		ret = -1;
	if (bench_svg_groups(dir, r) < 0)
		ret = -1;
	return ret;
}

int bench_write_outputs(const struct bench_opts *o,
			const struct bench_results *r,
			const struct bench_host *h, double elapsed_s)
{
	int ret = 0;

	printf("minivmm bench: %s; %s; repeats %u; %.1f s\n", h->cpu, h->kvm,
	       h->repeats, elapsed_s);
	if (h->pinned)
		printf("placement: every VMM on CPU %d, the traffic threads on "
		       "the others (--vmm-cpu)\n", h->vmm_cpu);
	printf("load average (1/5/15 min): %s at start, %s at end\n",
	       h->load_start, h->load_end);
	if (h->payload_info[0])
		printf("payload platform: %s\n", h->payload_info);
	bench_table_write(stdout, r);
	printf("targets (measured, not asserted):\n");
	bench_targets_write(stdout, r, false);
	fflush(stdout);
	if (o->json && write_json(o->json, r) < 0) {
		fprintf(stderr, "minivmm: error: bench --json '%s': %s\n",
			o->json, strerror(errno));
		ret = -1;
	}
	if (o->report && write_report(o->report, r, h) < 0) {
		fprintf(stderr, "minivmm: error: bench --report '%s': %s\n",
			o->report, strerror(errno));
		ret = -1;
	}
	return ret;
}
