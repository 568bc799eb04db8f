// SPDX-License-Identifier: MIT
/* --vmm-cpu placement for `minivmm bench` (pin.h). */
#include "tools/bench/pin.h"
#include "vmm/cli/parse.h"

#include <sched.h>
#include <stdint.h>
#include <stdio.h>

static int vmm_cpu = -1;

int bench_pin_set(const char *cpu, char *why, size_t len)
{
	cpu_set_t allowed;
	uint64_t n;

	if (parse_u64(cpu, &n) < 0 || n >= CPU_SETSIZE) {
		snprintf(why, len, "expected a CPU number");
		return -1;
	}
	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0 ||
	    !CPU_ISSET((int)n, &allowed)) {
		snprintf(why, len, "not a CPU this process may run on");
		return -1;
	}
	vmm_cpu = (int)n;
	return 0;
}

int bench_pin_cpu(void)
{
	return vmm_cpu;
}

void bench_pin_vmm(void)
{
	cpu_set_t one;

	if (vmm_cpu < 0)
		return;
	CPU_ZERO(&one);
	CPU_SET(vmm_cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
}

void bench_pin_traffic(void)
{
	cpu_set_t rest;

	if (vmm_cpu < 0 || sched_getaffinity(0, sizeof(rest), &rest) < 0)
		return;
	CPU_CLR(vmm_cpu, &rest);
	if (CPU_COUNT(&rest))
		sched_setaffinity(0, sizeof(rest), &rest);
}
