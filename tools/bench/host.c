// SPDX-License-Identifier: MIT
/* The host, described for the benchmark report: CPU model, kernel, the
 * KVM flavour (PVM, which runs guests without hardware virtualization, is
 * told apart from VMX/SVM KVM by its module), and the load average, since
 * other work on the host shows up in every number. */
#include "tools/bench/bench.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>

static bool module_loaded(const char *name)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return stat(path, &st) == 0;
}

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	int cpus = 0;

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, "processor", 9))
			cpus++;
		if (cpus == 1 && colon && !strncmp(line, "model name", 10)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(buf, len, "%s", colon + 2);
		}
	}
	fclose(f);
	if (cpus > 0) {
		size_t l = strlen(buf);

		snprintf(buf + l, len - l, " (%d CPUs)", cpus);
	}
}

static void kvm_flavour(char *buf, size_t len)
{
	static const char *const mods[] = { "kvm", "kvm_pvm", "kvm_intel",
					    "kvm_amd" };
	char list[96] = "";

	for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
		size_t l = strlen(list);

		if (module_loaded(mods[i]))
			snprintf(list + l, sizeof(list) - l, "%s%s",
				 l ? " " : "", mods[i]);
	}
	if (module_loaded("kvm_pvm"))
		snprintf(buf, len, "PVM (no hardware virtualization); "
			 "modules: %s", list);
	else if (module_loaded("kvm_intel"))
		snprintf(buf, len, "KVM on Intel VMX; modules: %s", list);
	else if (module_loaded("kvm_amd"))
		snprintf(buf, len, "KVM on AMD SVM; modules: %s", list);
	else
		snprintf(buf, len, "unknown; modules: %s", *list ? list :
			 "none found in /sys/module");
}

void bench_host_load(char *buf, size_t len)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double a, b, c;

	if (f && fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
		snprintf(buf, len, "%.2f %.2f %.2f", a, b, c);
	else
		snprintf(buf, len, "unknown");
	if (f)
		fclose(f);
}

void bench_host_describe(struct bench_host *h)
{
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;

	cpu_model(h->cpu, sizeof(h->cpu));
	if (uname(&u) == 0)
		snprintf(h->kernel, sizeof(h->kernel), "%s %s %s", u.sysname,
			 u.release, u.machine);
	else
		snprintf(h->kernel, sizeof(h->kernel), "unknown");
	kvm_flavour(h->kvm, sizeof(h->kvm));
	bench_host_load(h->load_start, sizeof(h->load_start));
	if (gmtime_r(&now, &tm))
		strftime(h->date, sizeof(h->date), "%Y-%m-%d %H:%M UTC", &tm);
}
