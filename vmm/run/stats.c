// SPDX-License-Identifier: MIT
#include "vmm/run/stats.h"
#include "vmm/run/exit_reason.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void stats_init(struct stats *s)
{
	memset(s, 0, sizeof(*s));
}

void stats_count_exit(struct stats *s, unsigned int cpu, uint32_t reason)
{
	atomic_uint_least64_t *n = &s->cpu[cpu % STATS_MAX_CPUS].exits[
		reason < STATS_MAX_REASONS ? reason : STATS_MAX_REASONS];

	/* One writer per row: a plain add, readable from any thread. */
	atomic_store_explicit(n, atomic_load_explicit(n, memory_order_relaxed)
			      + 1, memory_order_relaxed);
}

uint64_t stats_exits(struct stats *s, uint32_t reason)
{
	uint64_t sum = 0;

	if (reason > STATS_MAX_REASONS)
		reason = STATS_MAX_REASONS;
	for (unsigned int i = 0; i < STATS_MAX_CPUS; i++)
		sum += atomic_load_explicit(&s->cpu[i].exits[reason],
					    memory_order_relaxed);
	return sum;
}

int stats_add_reporter(struct stats *s, struct stats_reporter r)
{
	if (s->n_reporters == STATS_MAX_REPORTERS)
		return -1;
	s->reporters[s->n_reporters++] = r;
	return 0;
}

/* The key of a reason (vmm/run/exit_reason.c); a number this build has no
 * name for is "exit_N", so two of them never share a JSON key. */
static const char *exit_key(uint32_t reason, char *buf, size_t len)
{
	const char *key = exit_reason_key(reason);

	if (key)
		return key;
	snprintf(buf, len, "exit_%u", reason);
	return buf;
}

void stats_print(struct stats *s, FILE *out)
{
	fprintf(out, "--- minivmm stats ---\nexits by reason:\n");
	for (uint32_t i = 0; i < STATS_MAX_REASONS; i++) {
		uint64_t n = stats_exits(s, i);
		char buf[16];

		if (n)
			fprintf(out, "  %-16s %12llu\n",
				exit_key(i, buf, sizeof(buf)),
				(unsigned long long)n);
	}
	if (stats_exits(s, STATS_MAX_REASONS))
		fprintf(out, "  %-16s %12llu\n", "other", (unsigned long long)
			stats_exits(s, STATS_MAX_REASONS));
	for (int i = 0; i < s->n_reporters; i++)
		if (s->reporters[i].print)
			s->reporters[i].print(s->reporters[i].ctx, out);
	fflush(out);
}

cJSON *stats_build_json(struct stats *s, int exit_status)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *ex = cJSON_AddObjectToObject(root, "exits");

	cJSON_AddNumberToObject(root, "exit_status", exit_status);
	for (uint32_t i = 0; i < STATS_MAX_REASONS; i++) {
		uint64_t n = stats_exits(s, i);
		char buf[16];

		if (n)
			cJSON_AddNumberToObject(ex,
						exit_key(i, buf, sizeof(buf)),
						(double)n);
	}
	for (int i = 0; i < s->n_reporters; i++)
		if (s->reporters[i].json)
			s->reporters[i].json(s->reporters[i].ctx, root);
	return root;
}

int stats_write_json(struct stats *s, const char *path, int exit_status)
{
	cJSON *root = stats_build_json(s, exit_status);
	char *text = cJSON_Print(root);
	size_t plen = strlen(path);
	char *tmp = malloc(plen + 16);
	FILE *f;
	int ret = -1;

	cJSON_Delete(root);
	if (!text || !tmp)
		goto out;
	snprintf(tmp, plen + 16, "%s.tmp%d", path, (int)getpid() % 100000);
	f = fopen(tmp, "w");
	if (!f)
		goto out;
	if (fputs(text, f) < 0 || fputc('\n', f) < 0 || fflush(f) ||
	    fsync(fileno(f))) {
		fclose(f);
		unlink(tmp);
		goto out;
	}
	if (fclose(f) == 0 && rename(tmp, path) == 0)
		ret = 0;
	else
		unlink(tmp);
out:
	free(text);
	free(tmp);
	return ret;
}
