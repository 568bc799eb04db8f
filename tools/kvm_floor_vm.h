/* SPDX-License-Identifier: MIT */
/*
 * kvm-floor's VM half (kvm_floor_vm.c): the minimal VM (memory, page
 * tables, the guest stubs, the bare exit loop).  kvm_floor.c, the program,
 * owns the cases, their timing and the command line.
 */
#ifndef KVM_FLOOR_VM_H
#define KVM_FLOOR_VM_H

#include <stddef.h>
#include <stdint.h>

struct kvm_coalesced_mmio_ring;
struct kvm_run;

/* How the host answers a filtered MSR's exit. */
enum floor_msr_mode {
	FLOOR_MSR_ANSWER,	/* data 0 / accept: the bare minimum */
	FLOOR_MSR_GP,		/* error = 1: the guest takes #GP, skips */
	FLOOR_MSR_PASSTHRU,	/* KVM_GET_MSRS / KVM_SET_MSRS, as a policy
				 * "allow,count" rule does */
};

struct floor_config {
	uint32_t msr_user;	/* filtered: exits, answered in user space */
	uint32_t msr_passthru;	/* filtered too, answered through KVM */
	int irqchip;		/* in-kernel irqchip and PIT, as minivmm */
	uint64_t ram_size;	/* bytes of RAM at GPA 0; 0: 4 MiB */
};

struct floor_case {
	const char *name;
	int ring;
	const char *stub;	/* one of the floor_stub_* entry points */
	uint64_t arg;		/* rdi */
	uint64_t value;		/* rsi */
	uint64_t value2;	/* rcx */
	enum floor_msr_mode msr_mode;
	const char *what;	/* --list text */
};

struct floor_vm {
	int sys, vm, vcpu;
	struct kvm_run *run;
	size_t run_size;
	uint8_t *ram, *rom;
	uint64_t ram_size;
	struct kvm_coalesced_mmio_ring *ring;	/* NULL: no queued port */
	uint32_t tsc_khz;
	uint64_t exits;		/* user-space exits in the last stub run */
	enum floor_msr_mode msr_mode;
};

/* Guest addresses the cases use. */
#define FLOOR_DATA_GPA		0x200000ull	/* a RAM word */
#define FLOOR_ROM_GPA		0x40000000ull	/* KVM_MEM_READONLY page */
#define FLOOR_MMIO_GPA		0xc0000000ull	/* no memslot */
#define FLOOR_PORT		0x1234		/* unclaimed */
/* Unclaimed too; writes to its first 4 bytes are queued in KVM's coalesced
 * ring (as minivmm's CF8) where KVM has KVM_CAP_COALESCED_PIO. */
#define FLOOR_QPORT		0x1240

/* Stub entry points (host copies, for their offsets; see tools/bench/loops.h). */
extern const char floor_stub_in[], floor_stub_out[], floor_stub_load[];
extern const char floor_stub_store[], floor_stub_rdmsr[], floor_stub_wrmsr[];
extern const char floor_stub_pair_rd[], floor_stub_pair_wr[];

/* 0, or -1 after saying why; destroy in both cases. */
int floor_vm_create(struct floor_vm *f, const struct floor_config *c);
void floor_vm_destroy(struct floor_vm *f);
/* Runs the vCPU until its first exit, an outl at the stub's first
 * instruction (start-up's floor: the first guest instruction). */
int floor_first_exit(struct floor_vm *f);
/* Runs c's stub for iters (a multiple of BENCH_UNROLL) iterations;
 * *cycles: the guest's TSC delta.  f->exits: user exits it took. */
int floor_run_stub(struct floor_vm *f, const struct floor_case *c,
		   uint64_t iters, uint64_t *cycles);

#endif
