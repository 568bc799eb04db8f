// SPDX-License-Identifier: MIT
/* The host, described for the benchmark report: CPU model, kernel, the
 * KVM flavour (from the host profile, vmm/host/host.h: PVM, which runs guests
 * without hardware virtualization, or VMX/SVM KVM), and the load average,
 * since other work on the host shows up in every number. */
#include "tools/bench/bench.h"
#include "vmm/host/host.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

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

static void kvm_flavour(const struct host *p, char *buf, size_t len)
{
	const char *mods = p->modules[0] ? p->modules :
			   "none found in /sys/module";
	const char *forced = !p->forced ? "" : p->ring0_emulated ?
			     " (MINIVMM_HOST_EMULATES_RING0=1)" :
			     " (MINIVMM_HOST_EMULATES_RING0=0)";

	switch (p->kind) {
	case HOST_PVM:
		snprintf(buf, len, "PVM (no hardware virtualization)%s; "
			 "modules: %s", forced, mods);
		break;
	case HOST_VMX:
		snprintf(buf, len, "KVM on Intel VMX%s; modules: %s", forced,
			 mods);
		break;
	case HOST_SVM:
		snprintf(buf, len, "KVM on AMD SVM%s; modules: %s", forced,
			 mods);
		break;
	default:
		snprintf(buf, len, "unknown%s; modules: %s", forced, mods);
	}
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

void bench_host_describe(struct bench_host *h, const struct host *p)
{
	const char *cpu = host_qemu_cpu(p);

	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;

	cpu_model(h->cpu, sizeof(h->cpu));
	if (uname(&u) == 0)
		snprintf(h->kernel, sizeof(h->kernel), "%s %s %s", u.sysname,
			 u.release, u.machine);
	else
		snprintf(h->kernel, sizeof(h->kernel), "unknown");
	kvm_flavour(p, h->kvm, sizeof(h->kvm));
	snprintf(h->qemu_cpu, sizeof(h->qemu_cpu), "%s", cpu ? cpu : "host");
	h->user_syscalls_undone = host_quirk_on(p, QUIRK_SYSCALL_FIX);
	bench_host_load(h->load_start, sizeof(h->load_start));
	if (gmtime_r(&now, &tm))
		strftime(h->date, sizeof(h->date), "%Y-%m-%d %H:%M UTC", &tm);
}
