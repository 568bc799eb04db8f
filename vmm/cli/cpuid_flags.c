// SPDX-License-Identifier: MIT
#include "vmm/cli/cpuid_flags.h"

#include <stdarg.h>
#include <string.h>

#define EXT	0x80000001u
#define KVM	0x40000001u	/* KVM's paravirtual features */

static const struct cpuid_feature features[] = {
	{ "vmx",		1,   0, CPUID_ECX,  5 },
	{ "cx16",		1,   0, CPUID_ECX, 13 },
	{ "pcid",		1,   0, CPUID_ECX, 17 },
	{ "x2apic",		1,   0, CPUID_ECX, 21 },
	{ "movbe",		1,   0, CPUID_ECX, 22 },
	{ "popcnt",		1,   0, CPUID_ECX, 23 },
	{ "tsc-deadline",	1,   0, CPUID_ECX, 24 },
	{ "xsave",		1,   0, CPUID_ECX, 26 },
	{ "rdrand",		1,   0, CPUID_ECX, 30 },
	{ "smep",		7,   0, CPUID_EBX,  7 },
	{ "invpcid",		7,   0, CPUID_EBX, 10 },
	{ "rtm",		7,   0, CPUID_EBX, 11 },
	{ "smap",		7,   0, CPUID_EBX, 20 },
	{ "clwb",		7,   0, CPUID_EBX, 24 },
	{ "umip",		7,   0, CPUID_ECX,  2 },
	{ "pku",		7,   0, CPUID_ECX,  3 },
	{ "la57",		7,   0, CPUID_ECX, 16 },
	{ "rdpid",		7,   0, CPUID_ECX, 22 },
	{ "pks",		7,   0, CPUID_ECX, 31 },
	{ "spec-ctrl",		7,   0, CPUID_EDX, 26 },
	{ "stibp",		7,   0, CPUID_EDX, 27 },
	{ "arch-capabilities",	7,   0, CPUID_EDX, 29 },
	{ "ssbd",		7,   0, CPUID_EDX, 31 },
	{ "svm",		EXT, 0, CPUID_ECX,  2 },
	{ "skinit",		EXT, 0, CPUID_ECX, 12 },
	{ "pdpe1gb",		EXT, 0, CPUID_EDX, 26 },
	{ "rdtscp",		EXT, 0, CPUID_EDX, 27 },
	{ "kvm-pv-unhalt",	KVM, 0, CPUID_EAX,  7 },
	{ "kvm-pv-send-ipi",	KVM, 0, CPUID_EAX, 11 },
	{ "kvm-pv-sched-yield",	KVM, 0, CPUID_EAX, 13 },
};

#define N_FEATURES	(sizeof(features) / sizeof(features[0]))

static int fail(char *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, CPUID_ERR_MAX, fmt, ap);
	va_end(ap);
	return -1;
}

const struct cpuid_feature *cpuid_feature_find(const char *name)
{
	for (size_t i = 0; i < N_FEATURES; i++)
		if (!strcmp(features[i].name, name))
			return &features[i];
	return NULL;
}

void cpuid_flags_list(FILE *out)
{
	fputs("CPUID features for --cpuid (+name shows, -name hides):\n", out);
	for (size_t i = 0; i < N_FEATURES; i++)
		fprintf(out, "  %-18s leaf 0x%x.%u %s bit %u\n",
			features[i].name, features[i].leaf,
			features[i].subleaf,
			(const char *[]){ "eax", "ebx", "ecx", "edx" }
				[features[i].reg], features[i].bit);
}

/* One "+name" or "-name" of len bytes. */
static int one(const char *w, size_t len, struct cpuid_edits *out, char *err)
{
	char name[32];

	if (len < 2 || (w[0] != '+' && w[0] != '-'))
		return fail(err, "'%.*s': expected +name or -name",
			    (int)(len > 40 ? 40 : len), w);
	if (len - 1 >= sizeof(name))
		return fail(err, "'%.*s': unknown CPUID feature (minivmm "
			    "--cpuid help lists them)", 40, w + 1);
	memcpy(name, w + 1, len - 1);
	name[len - 1] = 0;
	if (!cpuid_feature_find(name))
		return fail(err, "'%s': unknown CPUID feature (minivmm --cpuid "
			    "help lists them)", name);
	if (out->n == CPUID_EDITS_MAX)
		return fail(err, "more than %d features", CPUID_EDITS_MAX);
	out->e[out->n++] = (struct cpuid_edit){ cpuid_feature_find(name),
						w[0] == '+' };
	return 0;
}

int cpuid_flags_parse(const char *s, struct cpuid_edits *out, char *err)
{
	memset(out, 0, sizeof(*out));
	if (!s || !*s)
		return 0;
	for (const char *p = s;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (one(p, len, out, err) < 0)
			return -1;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}
