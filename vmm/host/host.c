// SPDX-License-Identifier: MIT
/* The host profile and the fixed points (host.h). */
#include "vmm/host/host.h"
#include "vmm/pvm/quirks.h"
#include "vmm/vcpu.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Hardware virtualization needs no work-around: every hook NULL. */
static const struct host_quirks no_quirks;

/* --- the probe ------------------------------------------------------- */

static bool module_loaded(const char *name)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return stat(path, &st) == 0;
}

static bool has_word(const char *s, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = s; (p = strstr(p, word)); p += len)
		if ((p == s || p[-1] == ' ' || p[-1] == '\t') &&
		    (!p[len] || p[len] == ' ' || p[len] == '\n'))
			return true;
	return false;
}

/* The first CPU's flags (all CPUs of a host have the same). */
static void cpu_flags(struct host_facts *f)
{
	FILE *in = fopen("/proc/cpuinfo", "r");
	char *line = NULL, *colon;
	size_t cap = 0;

	if (!in)
		return;
	while (getline(&line, &cap, in) > 0) {
		colon = strchr(line, ':');
		if (strncmp(line, "flags", 5) || !colon)
			continue;
		f->cpu_svm = has_word(colon, "svm");
		f->cpu_vmx = has_word(colon, "vmx");
		break;
	}
	free(line);
	fclose(in);
}

static void list_modules(struct host *h)
{
	static const char *const mods[] = { "kvm", "kvm_pvm", "kvm_intel",
					    "kvm_amd" };
	size_t l = 0;

	h->modules[0] = 0;
	for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); i++)
		if (module_loaded(mods[i]) && l < sizeof(h->modules))
			l += (size_t)snprintf(h->modules + l,
					      sizeof(h->modules) - l, "%s%s",
					      l ? " " : "", mods[i]);
}

void host_probe(struct host *h)
{
	const char *env = getenv("MINIVMM_HOST_EMULATES_RING0");
	struct host_facts f = {
		.kvm_pvm = module_loaded("kvm_pvm"),
		.kvm_amd = module_loaded("kvm_amd"),
		.kvm_intel = module_loaded("kvm_intel"),
		.ring0_override = -1,
	};

	if (env && (!strcmp(env, "0") || !strcmp(env, "1")))
		f.ring0_override = env[0] == '1';
	cpu_flags(&f);
	host_from_facts(h, &f);
	list_modules(h);
}

/* Hardware virtualization: the module says which, else the CPU. */
static enum host_kind hw_kind(const struct host_facts *f)
{
	if (f->kvm_intel)
		return HOST_VMX;
	if (f->kvm_amd)
		return HOST_SVM;
	if (f->cpu_vmx)
		return HOST_VMX;
	return f->cpu_svm ? HOST_SVM : HOST_HW;
}

void host_from_facts(struct host *h, const struct host_facts *f)
{
	memset(h, 0, sizeof(*h));
	h->forced = f->ring0_override == 0 || f->ring0_override == 1;
	h->ring0_emulated = h->forced ? f->ring0_override == 1 : f->kvm_pvm;
	h->kind = h->ring0_emulated ? HOST_PVM : hw_kind(f);
	h->quirks = h->ring0_emulated ? &pvm_quirks : &no_quirks;
}

/* --- description and --stats ---------------------------------------- */

const char *host_kind_name(const struct host *h)
{
	switch (h->kind) {
	case HOST_PVM:
		return "PVM (guest ring 0 emulated)";
	case HOST_SVM:
		return "AMD SVM";
	case HOST_VMX:
		return "Intel VMX";
	default:
		return "hardware virtualization";
	}
}

bool host_quirk_on(const struct host *h, enum quirk_id q)
{
	return quirk_in(h->quirks, q);
}

void host_describe(const struct host *h, char *buf, size_t len)
{
	const char *forced = !h->forced ? "" : h->ring0_emulated ?
			     " (MINIVMM_HOST_EMULATES_RING0=1)" :
			     " (MINIVMM_HOST_EMULATES_RING0=0)";
	size_t l = (size_t)snprintf(buf, len, "host: %s%s: ",
				    host_kind_name(h), forced);
	bool any = false;

	for (int q = 0; q < QUIRK_COUNT && l < len; q++) {
		if (!host_quirk_on(h, q))
			continue;
		l += (size_t)snprintf(buf + l, len - l, "%s%s",
				      any ? ", " : "quirks on: ",
				      quirk_name(q));
		any = true;
	}
	if (!any && l < len)
		snprintf(buf + l, len - l, "no quirks");
}

static void print_quirks(void *ctx, FILE *out)
{
	struct host *h = ctx;
	bool any = false;

	fprintf(out, "host quirks (%s%s):", host_kind_name(h),
		h->forced ? ", forced" : "");
	for (int q = 0; q < QUIRK_COUNT; q++) {
		if (!host_quirk_on(h, q) || q == QUIRK_QEMU_CPU)
			continue;
		fprintf(out, "\n  %-14s acted %10llu  (%s)", quirk_name(q),
			(unsigned long long)quirk_count(&h->log, q),
			quirk_unit(q));
		any = true;
	}
	fputs(any ? "\n" : " none\n", out);
}

static void json_quirks(void *ctx, cJSON *root)
{
	struct host *h = ctx;
	cJSON *o = cJSON_AddObjectToObject(root, "host");
	cJSON *qs;

	cJSON_AddStringToObject(o, "kind", host_kind_name(h));
	cJSON_AddBoolToObject(o, "ring0_emulated", h->ring0_emulated);
	cJSON_AddBoolToObject(o, "forced", h->forced);
	qs = cJSON_AddObjectToObject(o, "quirks");
	for (int q = 0; q < QUIRK_COUNT; q++)
		if (host_quirk_on(h, q) && q != QUIRK_QEMU_CPU)
			cJSON_AddNumberToObject(qs, quirk_name(q),
				(double)quirk_count(&h->log, q));
}

struct stats_reporter host_stats_reporter(struct host *h)
{
	return (struct stats_reporter){ print_quirks, json_quirks, h };
}

/* --- the fixed points ------------------------------------------------- */

void host_cpuid(struct host *h, struct kvm_cpuid2 *c, bool record)
{
	if (h->quirks->cpuid_hide && h->quirks->cpuid_hide(c) && record)
		quirk_acted(&h->log, QUIRK_CPUID_HIDE, 1);
}

int host_linux_cmdline(const struct host *h, const char *append,
		       bool snapshot, char *buf, size_t size)
{
	size_t len;

	if (!append)
		append = "";
	if (h->quirks->linux_cmdline)
		return h->quirks->linux_cmdline(append, snapshot, buf, size);
	len = strlen(append);
	if (len >= size)
		return -1;
	memcpy(buf, append, len + 1);
	return 0;
}

void host_linux_cmdline_notes(struct host *h, const char *append,
			      bool snapshot)
{
	if (h->quirks->linux_cmdline_notes)
		quirk_acted(&h->log, QUIRK_LINUX_CMDLINE,
			    h->quirks->linux_cmdline_notes(append ? append : "",
							   snapshot));
}

const char *host_msr_offered(struct host *h, const char *name)
{
	const char *a = h->quirks->msr_offered ?
			h->quirks->msr_offered(name) : NULL;

	if (a)
		quirk_acted(&h->log, QUIRK_SPEC_CTRL, 1);
	return a;
}

void host_internal_error_hook(const struct host *h, void *ctx,
			      struct vcpu_hook *hook)
{
	*hook = (struct vcpu_hook){ h->quirks->internal_error,
				    h->quirks->internal_error ? ctx : NULL };
}

void host_vm_prepare(const struct host *h, struct vm *vm)
{
	if (h->quirks->vm_prepare)
		h->quirks->vm_prepare(vm);
}

int host_vm_install(const struct host *h, struct vm *vm)
{
	return h->quirks->vm_install ? h->quirks->vm_install(vm) : 0;
}

void host_vm_announce(const struct host *h, const struct vm *vm)
{
	if (h->quirks->vm_announce)
		h->quirks->vm_announce(vm);
}

void host_vm_destroy(const struct host *h, struct vm *vm)
{
	if (h->quirks->vm_destroy)
		h->quirks->vm_destroy(vm);
}

const char *host_debug_limit(const struct host *h)
{
	return h->quirks->debug_limit;
}

const char *host_qemu_cpu(const struct host *h)
{
	return h->quirks->qemu_cpu;
}
