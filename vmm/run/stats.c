// SPDX-License-Identifier: MIT
#include "vmm/run/stats.h"

#include <cjson/cJSON.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void stats_init(struct stats *s)
{
	memset(s, 0, sizeof(*s));
}

void stats_count_exit(struct stats *s, uint32_t reason)
{
	if (reason < STATS_MAX_REASONS)
		atomic_fetch_add(&s->exits[reason], 1);
	else
		atomic_fetch_add(&s->exits_other, 1);
}

int stats_add_reporter(struct stats *s, struct stats_reporter r)
{
	if (s->n_reporters == STATS_MAX_REPORTERS)
		return -1;
	s->reporters[s->n_reporters++] = r;
	return 0;
}

const char *stats_exit_name(uint32_t reason)
{
	static const char *const names[] = {
		[KVM_EXIT_UNKNOWN] = "unknown", [KVM_EXIT_IO] = "io",
		[KVM_EXIT_HLT] = "hlt", [KVM_EXIT_MMIO] = "mmio",
		[KVM_EXIT_SHUTDOWN] = "shutdown",
		[KVM_EXIT_FAIL_ENTRY] = "fail_entry",
		[KVM_EXIT_INTR] = "intr",
		[KVM_EXIT_INTERNAL_ERROR] = "internal_error",
		[KVM_EXIT_SYSTEM_EVENT] = "system_event",
		[KVM_EXIT_X86_RDMSR] = "rdmsr",
		[KVM_EXIT_X86_WRMSR] = "wrmsr",
		[KVM_EXIT_DEBUG] = "debug",
		[KVM_EXIT_IRQ_WINDOW_OPEN] = "irq_window_open",
	};

	if (reason < sizeof(names) / sizeof(names[0]) && names[reason])
		return names[reason];
	return "other";
}

void stats_print(struct stats *s, FILE *out)
{
	fprintf(out, "--- minivmm stats ---\nexits by reason:\n");
	for (uint32_t i = 0; i < STATS_MAX_REASONS; i++) {
		uint64_t n = atomic_load(&s->exits[i]);

		if (n)
			fprintf(out, "  %-16s %12llu\n", stats_exit_name(i),
				(unsigned long long)n);
	}
	if (atomic_load(&s->exits_other))
		fprintf(out, "  %-16s %12llu\n", "other",
			(unsigned long long)atomic_load(&s->exits_other));
	for (int i = 0; i < s->n_reporters; i++)
		if (s->reporters[i].print)
			s->reporters[i].print(s->reporters[i].ctx, out);
	fflush(out);
}

static cJSON *build_json(struct stats *s, int exit_status)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *ex = cJSON_AddObjectToObject(root, "exits");

	cJSON_AddNumberToObject(root, "exit_status", exit_status);
	for (uint32_t i = 0; i < STATS_MAX_REASONS; i++) {
		uint64_t n = atomic_load(&s->exits[i]);

		if (n)
			cJSON_AddNumberToObject(ex, stats_exit_name(i),
						(double)n);
	}
	for (int i = 0; i < s->n_reporters; i++)
		if (s->reporters[i].json)
			s->reporters[i].json(s->reporters[i].ctx, root);
	return root;
}

int stats_write_json(struct stats *s, const char *path, int exit_status)
{
	cJSON *root = build_json(s, exit_status);
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
