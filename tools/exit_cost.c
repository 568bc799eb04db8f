// SPDX-License-Identifier: MIT
/*
 * exit-cost: what minivmm's own code costs per exit, without KVM: the
 * exit dispatch (vmm/exit.c) over a kvm_run of its own, on a port bus
 * holding as many ranges as the default machine's, with the PCI bus and
 * its host bridge at 0xCF8, and the MSR table answering a denied read.
 * The part of an exit between KVM_RUN's return and the next KVM_RUN that
 * is minivmm's, so changes to it can be measured where no KVM is (perf
 * record works on it too).  Prints the median and p10/p90 ns per call
 * over the repeats.
 *
 *	exit-cost [CALLS [REPEATS]]	(default 200000 calls, 11 repeats)
 */
#include "devices/pci/bus.h"
#include "tools/bench/stats.h"
#include "vmm/bus.h"
#include "vmm/coalesced.h"
#include "vmm/exit.h"
#include "vmm/kvm_compat.h"
#include "vmm/msr/exit.h"
#include "vmm/run/stats.h"

#include <errno.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUN_SIZE	8192
#define IO_OFFSET	4096
#define MAX_REPEATS	101
#define OTHER_RANGES	20	/* the default machine's other port ranges */

struct fixture {
	struct bus pio, mmio;
	struct stats stats;
	struct coalesced queued;
	struct pci_bus *pci;
	struct vcpu_exits x;
	struct kvm_run *run;
	struct msr_policy policy;
	struct msr_stats msr_stats;
	struct msr_exit_ctx msr;
	struct msr_emul_store store;
};

static void nop_read(void *o, uint64_t off, uint8_t *d, uint32_t len)
{
	(void)o, (void)off, (void)d, (void)len;
}

static void nop_write(void *o, uint64_t off, const uint8_t *d, uint32_t len)
{
	(void)o, (void)off, (void)d, (void)len;
}

static const struct bus_ops nop_ops = { nop_read, nop_write };

static void stop(void *ctx, struct vcpu *v, int status, bool report,
		 const char *why)
{
	(void)ctx, (void)v, (void)status, (void)report;
	fprintf(stderr, "exit-cost: error: the dispatch stopped: %s\n", why);
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int setup(struct fixture *f)
{
	struct pci_bus_config conf = { .nbuses = 1 };
	uint8_t cf8[4] = { 0, 0, 0, 0x80 };	/* 00:00.0 register 0 */
	char err[256];

	bus_init(&f->pio, "pio", 0x10000);
	f->pio.whole_access = true;
	bus_init(&f->mmio, "mmio", UINT64_MAX);
	stats_init(&f->stats);
	coalesced_init(&f->queued, &f->pio);
	f->pci = pci_bus_create(&conf);
	if (!f->pci || !pci_host_bridge_create(f->pci) ||
	    bus_register(&f->pio, PCI_CONF1_ADDR_PORT, PCI_BUS_PIO_LEN,
			 &pci_bus_pio_ops, f->pci, "pci-cf8-cfc") < 0 ||
	    bus_register(&f->pio, 0x80, 1, &nop_ops, NULL, "null") < 0)
		return -1;
	for (int i = 0; i < OTHER_RANGES; i++)
		if (bus_register(&f->pio, 0x100 + i * 16, 8, &nop_ops, NULL,
				 "other") < 0)
			return -1;
	pci_bus_pio_ops.write(f->pci, 0, cf8, 4);
	f->x = (struct vcpu_exits){ .pio = &f->pio, .mmio = &f->mmio,
		.stats = &f->stats, .queued = &f->queued, .stop = stop };
	f->run = calloc(1, RUN_SIZE);
	msr_policy_init(&f->policy);
	msr_stats_init(&f->msr_stats);
	msr_emul_store_init(&f->store);
	f->msr = (struct msr_exit_ctx){ .policy = &f->policy,
					.stats = &f->msr_stats };
	if (!f->run || msr_policy_add_line(&f->policy, "exit-cost", 1,
					   "0x19a deny", err, sizeof(err)))
		return -1;
	return 0;
}

static void port_in(struct fixture *f, uint16_t port, uint8_t size)
{
	struct kvm_run *r = f->run;

	r->exit_reason = KVM_EXIT_IO;
	r->io.direction = KVM_EXIT_IO_IN;
	r->io.size = size;
	r->io.port = port;
	r->io.count = 1;
	r->io.data_offset = IO_OFFSET;
}

/* ns per call of one case, each repeat CALLS calls. */
static void time_case(struct fixture *f, const char *name, int which,
		      long calls, unsigned int repeats)
{
	const struct msr_exit_req req = { .dir = MSR_READ, .index = 0x19a,
		.reason = KVM_MSR_EXIT_REASON_FILTER };
	uint64_t samples[MAX_REPEATS];
	struct bench_summary s;

	for (unsigned int i = 0; i < repeats; i++) {
		uint64_t t0 = now_ns();

		for (long n = 0; n < calls; n++) {
			if (which < 2) {
				exit_dispatch(&f->x, f->run, NULL, 0);
				continue;
			}
			(void)msr_exit_wants_rip(&f->msr, MSR_READ, 0x19a);
			(void)msr_exit_handle(&f->msr, &f->store, &req);
		}
		/* Milli-ns per call, as the bench's samples. */
		samples[i] = (now_ns() - t0) * 1000 / (uint64_t)calls;
	}
	bench_summarize(samples, repeats, &s);
	printf("%-34s median %7.1f ns  p10 %7.1f  p90 %7.1f\n", name,
	       s.median / 1e3, s.p10 / 1e3, s.p90 / 1e3);
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? strtol(argv[1], NULL, 0) : 200000;
	long repeats = argc > 2 ? strtol(argv[2], NULL, 0) : 11;
	struct fixture f;

	if (argc > 3 || calls < 1 || repeats < 1 || repeats > MAX_REPEATS) {
		fprintf(stderr, "usage: exit-cost [CALLS [REPEATS (1..%d)]]\n",
			MAX_REPEATS);
		return 2;
	}
	memset(&f, 0, sizeof(f));
	if (setup(&f) < 0) {
		fprintf(stderr, "exit-cost: error: set-up: %s\n",
			strerror(errno));
		return 1;
	}
	port_in(&f, PCI_CONF1_DATA_PORT, 4);
	time_case(&f, "CFC read (dispatch, PCI bus)", 0, calls,
		  (unsigned int)repeats);
	port_in(&f, 0x80, 1);
	time_case(&f, "null port read (dispatch)", 1, calls,
		  (unsigned int)repeats);
	time_case(&f, "denied rdmsr (MSR table's answer)", 2, calls,
		  (unsigned int)repeats);
	return 0;
}
