// SPDX-License-Identifier: MIT
/* Rows and memory figures shared by the snapshot group's parts
 * (snapshot_rows.h). */
#include "tools/bench/snapshot_rows.h"
#include "tools/bench/bench.h"
#include "tools/bench/run.h"
#include "tools/bench/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bench_result *bench_snapshot_row(struct bench_run *b, const char *name,
					uint64_t *ns, size_t n,
					const char *note)
{
	struct bench_result *x = bench_new_row(b, name, 0, "default",
					       "minivmm", "snapshot");

	if (bench_row_samples(b, x, ns, n, "no samples (a run failed)") < 0)
		return x;
	snprintf(x->note, sizeof(x->note), "%s", note);
	return x;
}

int bench_snapshot_written(const char *err, double *ms, double *file_mib,
			   double *data_mib)
{
	double t0 = bench_timing_ms(err, "snapshot: vCPUs paused");
	double t1 = bench_timing_ms(err, "snapshot written");
	const char *l = err ? strstr(err, "snapshot written to ") : NULL;

	l = l ? strstr(l, "): ") : NULL;
	if (t0 < 0 || t1 < t0 || !l ||
	    sscanf(l, "): %lf MiB, %lf MiB", file_mib, data_mib) != 2)
		return -1;
	*ms = t1 - t0;
	return 0;
}

long bench_smaps_kib(int pid, const char *key)
{
	char path[64], line[256];
	size_t kl = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':')
			v = atol(line + kl + 1);
	if (f)
		fclose(f);
	return v;
}
