// SPDX-License-Identifier: MIT
/*
 * kvm-floor's VM: the tiny guest (long mode straight from KVM_SET_SREGS,
 * 2 MiB identity pages over 4 GiB, user-accessible, an IDT whose #GP
 * handler skips the 2-byte rdmsr/wrmsr), the stubs of tools/bench/loops.h
 * copied into it, and the bare exit loop: KVM_RUN, answer, re-enter.
 * Each stub ends with an 8-byte MMIO write of its TSC delta to a doorbell.
 */
#include "tools/kvm_floor_vm.h"
#include "firmware/lib/le.h"
#include "tools/bench/loops.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define RAM_SIZE	0x400000ull	/* 4 MiB at GPA 0 */
#define GDT_GPA		0x1000ull
#define TSS_GPA		0x2000ull
#define PML4_GPA	0x3000ull
#define PDPT_GPA	0x4000ull
#define PD_GPA		0x5000ull	/* 4 pages: 4 GiB of 2 MiB pages */
#define IDT_GPA		0x9000ull
#define CODE_GPA	0x10000ull
#define STACK_TOP	0x30000ull
#define DOORBELL_GPA	0xc0001000ull	/* stub end: 8-byte TSC delta */
#define VEC_GP		13

#define SEL_KCODE	0x08
#define SEL_KDATA	0x10
#define SEL_UDATA	0x1b
#define SEL_UCODE	0x23
#define SEL_TSS		0x28

/* Guest code, position independent.  In: r8 = iterations, rdi/rsi/rcx =
 * the stub's operands, r10 = the doorbell. */
__asm__(
	".pushsection .rodata.floor_guest, \"a\"\n"
	BENCH_ASM_MACROS
	".globl floor_code, floor_code_end, floor_gp, floor_stub_in\n"
	".globl floor_stub_out, floor_stub_load, floor_stub_store\n"
	".globl floor_stub_rdmsr, floor_stub_wrmsr, floor_stub_pair_rd\n"
	".globl floor_stub_pair_wr\n"
	".macro FLOOR_END\n mov %rax, (%r10); 9: jmp 9b\n.endm\n"
	"floor_code:\n"
	"floor_stub_in: BENCH_STUB_IN; FLOOR_END\n"
	"floor_stub_out: BENCH_STUB_OUT; FLOOR_END\n"
	"floor_stub_load: BENCH_STUB_LOAD; FLOOR_END\n"
	"floor_stub_store: BENCH_STUB_STORE; FLOOR_END\n"
	"floor_stub_rdmsr: BENCH_STUB_RDMSR; FLOOR_END\n"
	"floor_stub_wrmsr: BENCH_STUB_WRMSR; FLOOR_END\n"
	"floor_stub_pair_rd: BENCH_STUB_PAIR_RD; FLOOR_END\n"
	"floor_stub_pair_wr: BENCH_STUB_PAIR_WR; FLOOR_END\n"
	/* #GP: drop the error code, skip the 2-byte rdmsr/wrmsr. */
	"floor_gp: add $8, %rsp; addq $2, (%rsp); iretq\n"
	"floor_code_end:\n"
	".popsection\n");

extern const char floor_code[], floor_code_end[], floor_gp[];

static int die(const char *what)
{
	fprintf(stderr, "kvm-floor: error: %s: %s\n", what, strerror(errno));
	return -1;
}

/* --- guest memory: GDT, TSS, page tables, code ---------------------------- */

static void build_guest(uint8_t *ram)
{
	uint64_t tss_limit = 0x67, gp;

	le64_put(ram + GDT_GPA + 0x08, 0x00af9b000000ffffull);
	le64_put(ram + GDT_GPA + 0x10, 0x00cf93000000ffffull);
	le64_put(ram + GDT_GPA + 0x18, 0x00cff3000000ffffull);
	le64_put(ram + GDT_GPA + 0x20, 0x00affb000000ffffull);
	le64_put(ram + GDT_GPA + SEL_TSS, tss_limit | (TSS_GPA & 0xffffff) << 16 |
	      0x89ull << 40 | (TSS_GPA >> 24 & 0xff) << 56);
	le64_put(ram + TSS_GPA + 4, STACK_TOP);	/* rsp0 */
	le64_put(ram + TSS_GPA + 0x66, 0x68);	/* iomap base: none */
	/* P | RW | US (| PS): ring 3 may touch everything. */
	le64_put(ram + PML4_GPA, PDPT_GPA | 0x7);
	for (uint64_t i = 0; i < 4; i++)
		le64_put(ram + PDPT_GPA + i * 8, (PD_GPA + i * 0x1000) | 0x7);
	for (uint64_t i = 0; i < 2048; i++)
		le64_put(ram + PD_GPA + i * 8, (i << 21) | 0x87);
	memcpy(ram + CODE_GPA, floor_code, (size_t)(floor_code_end -
						    floor_code));
	le64_put(ram + FLOOR_DATA_GPA, 0x5a5a5a5a5a5a5a5aull);
	gp = CODE_GPA + (uint64_t)(floor_gp - floor_code);
	le64_put(ram + IDT_GPA + VEC_GP * 16, (gp & 0xffff) |
	      (uint64_t)SEL_KCODE << 16 | 0x8eull << 40 |
	      (gp >> 16 & 0xffff) << 48);
	le64_put(ram + IDT_GPA + VEC_GP * 16 + 8, gp >> 32);
}

static struct kvm_segment seg(uint16_t sel, uint8_t type, int dpl, int l)
{
	return (struct kvm_segment){
		.base = 0, .limit = 0xffffffff, .selector = sel, .type = type,
		.present = 1, .dpl = (uint8_t)dpl, .db = !l, .s = 1,
		.l = (uint8_t)l, .g = 1,
	};
}

static int set_mode(struct floor_vm *f, int ring)
{
	struct kvm_sregs s;

	if (ioctl(f->vcpu, KVM_GET_SREGS, &s) < 0)
		return die("KVM_GET_SREGS");
	s.cr0 = 0x80050033;		/* PE MP ET NE WP AM PG */
	s.cr3 = PML4_GPA;
	s.cr4 = 0x20;			/* PAE */
	s.efer = 0x500;			/* LME | LMA */
	s.gdt = (struct kvm_dtable){ .base = GDT_GPA, .limit = 0x37 };
	s.idt = (struct kvm_dtable){ .base = IDT_GPA, .limit = 0xfff };
	s.cs = ring ? seg(SEL_UCODE, 0xb, 3, 1) : seg(SEL_KCODE, 0xb, 0, 1);
	s.ds = ring ? seg(SEL_UDATA, 0x3, 3, 0) : seg(SEL_KDATA, 0x3, 0, 0);
	s.es = s.fs = s.gs = s.ss = s.ds;
	s.tr = (struct kvm_segment){ .base = TSS_GPA, .limit = 0x67,
		.selector = SEL_TSS, .type = 0xb, .present = 1 };
	s.ldt = (struct kvm_segment){ .type = 0x2, .present = 1,
		.unusable = 1 };
	if (ioctl(f->vcpu, KVM_SET_SREGS, &s) < 0)
		return die("KVM_SET_SREGS");
	return 0;
}

/* --- VM set-up ----------------------------------------------------------- */

static int set_slot(struct floor_vm *f, uint32_t slot, uint64_t gpa,
		    uint64_t size, void *host, uint32_t flags)
{
	struct kvm_userspace_memory_region r = {
		.slot = slot, .flags = flags, .guest_phys_addr = gpa,
		.memory_size = size, .userspace_addr = (uintptr_t)host,
	};

	return ioctl(f->vm, KVM_SET_USER_MEMORY_REGION, &r);
}

static int set_cpuid(struct floor_vm *f)
{
	size_t sz = sizeof(struct kvm_cpuid2) +
		    256 * sizeof(struct kvm_cpuid_entry2);
	struct kvm_cpuid2 *c = calloc(1, sz);
	int ret = -1;

	if (!c)
		return -1;
	c->nent = 256;
	if (ioctl(f->sys, KVM_GET_SUPPORTED_CPUID, c) == 0 &&
	    ioctl(f->vcpu, KVM_SET_CPUID2, c) == 0)
		ret = 0;
	free(c);
	return ret < 0 ? die("CPUID") : 0;
}

/* Two MSRs denied by a filter, so their accesses exit to user space. */
static int set_msr_filter(struct floor_vm *f, const struct floor_config *c)
{
	struct kvm_enable_cap cap = { .cap = KVM_CAP_X86_USER_SPACE_MSR,
		.args[0] = KVM_MSR_EXIT_REASON_FILTER };
	uint8_t deny = 0;
	struct kvm_msr_filter filt = { .flags = KVM_MSR_FILTER_DEFAULT_ALLOW };

	for (int i = 0; i < 2; i++)
		filt.ranges[i] = (struct kvm_msr_filter_range){
			.flags = KVM_MSR_FILTER_READ | KVM_MSR_FILTER_WRITE,
			.nmsrs = 1, .bitmap = &deny,
			.base = i ? c->msr_passthru : c->msr_user,
		};
	if (ioctl(f->vm, KVM_ENABLE_CAP, &cap) < 0 ||
	    ioctl(f->vm, KVM_X86_SET_MSR_FILTER, &filt) < 0)
		return die("MSR filter");
	return 0;
}

static int create_irqchip(struct floor_vm *f)
{
	struct kvm_pit_config pit = { .flags = KVM_PIT_SPEAKER_DUMMY };

	if (ioctl(f->vm, KVM_CREATE_IRQCHIP, 0) < 0 ||
	    ioctl(f->vm, KVM_CREATE_PIT2, &pit) < 0)
		return die("irqchip");
	return 0;
}

/* FLOOR_QPORT's writes queued, where KVM can: the ring is the page after
 * kvm_run.  Without the capability they exit like any port's. */
static void queue_port(struct floor_vm *f)
{
	struct kvm_coalesced_mmio_zone z = { .addr = FLOOR_QPORT, .size = 4,
					     .pio = 1 };
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (ioctl(f->vm, KVM_CHECK_EXTENSION, KVM_CAP_COALESCED_PIO) <= 0 ||
	    f->run_size < (KVM_COALESCED_MMIO_PAGE_OFFSET + 1) * page ||
	    ioctl(f->vm, KVM_REGISTER_COALESCED_MMIO, &z) < 0)
		return;
	f->ring = (struct kvm_coalesced_mmio_ring *)((uint8_t *)f->run +
		  KVM_COALESCED_MMIO_PAGE_OFFSET * page);
}

int floor_vm_create(struct floor_vm *f, const struct floor_config *o)
{
	long mmap_size;
	int khz;

	memset(f, 0, sizeof(*f));
	f->sys = f->vm = f->vcpu = -1;
	f->sys = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (f->sys < 0)
		return die("/dev/kvm");
	f->vm = ioctl(f->sys, KVM_CREATE_VM, 0);
	if (f->vm < 0)
		return die("KVM_CREATE_VM");
	ioctl(f->vm, KVM_SET_TSS_ADDR, 0xfffbd000ul);	/* VMX only */
	if (o->irqchip && create_irqchip(f) < 0)
		return -1;
	f->ram_size = o->ram_size ? o->ram_size : RAM_SIZE;
	f->ram = mmap(NULL, f->ram_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	f->rom = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f->ram == MAP_FAILED || f->rom == MAP_FAILED)
		return die("mmap");
	build_guest(f->ram);
	memset(f->rom, 0xa5, 4096);
	if (set_slot(f, 0, 0, f->ram_size, f->ram, 0) < 0 ||
	    set_slot(f, 1, FLOOR_ROM_GPA, 4096, f->rom, KVM_MEM_READONLY) < 0)
		return die("KVM_SET_USER_MEMORY_REGION");
	f->vcpu = ioctl(f->vm, KVM_CREATE_VCPU, 0);
	mmap_size = ioctl(f->sys, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (f->vcpu < 0 || mmap_size <= 0)
		return die("KVM_CREATE_VCPU");
	f->run_size = (size_t)mmap_size;
	f->run = mmap(NULL, f->run_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      f->vcpu, 0);
	if (f->run == MAP_FAILED)
		return die("mmap kvm_run");
	khz = ioctl(f->vcpu, KVM_GET_TSC_KHZ, 0);
	f->tsc_khz = khz > 0 ? (uint32_t)khz : 0;
	if (set_cpuid(f) < 0 || set_msr_filter(f, o) < 0)
		return -1;
	queue_port(f);
	return 0;
}

void floor_vm_destroy(struct floor_vm *f)
{
	if (f->run && f->run != MAP_FAILED)
		munmap(f->run, f->run_size);
	if (f->ram && f->ram != MAP_FAILED)
		munmap(f->ram, f->ram_size);
	if (f->rom && f->rom != MAP_FAILED)
		munmap(f->rom, 4096);
	if (f->vcpu >= 0)
		close(f->vcpu);
	if (f->vm >= 0)
		close(f->vm);
	if (f->sys >= 0)
		close(f->sys);
	memset(f, 0, sizeof(*f));
	f->sys = f->vm = f->vcpu = -1;
}

/* --- running one stub ----------------------------------------------------- */

/* Completes the pending doorbell write (api.rst: re-enter before touching
 * state), so the next KVM_SET_REGS is not undone. */
static int complete_pending(struct floor_vm *f)
{
	f->run->immediate_exit = 1;
	if (ioctl(f->vcpu, KVM_RUN, 0) == 0 || errno != EINTR) {
		f->run->immediate_exit = 0;
		return die("completing the doorbell exit");
	}
	f->run->immediate_exit = 0;
	return 0;
}

/* KVM_GET_MSRS / KVM_SET_MSRS of the exiting MSR: what minivmm does for
 * a policy rule "allow,count". */
static int passthru(struct floor_vm *f)
{
	struct {
		struct kvm_msrs hdr;
		struct kvm_msr_entry e;
	} m = { .hdr.nmsrs = 1, .e.index = f->run->msr.index,
		.e.data = f->run->msr.data };
	bool wr = f->run->exit_reason == KVM_EXIT_X86_WRMSR;

	if (ioctl(f->vcpu, wr ? KVM_SET_MSRS : KVM_GET_MSRS, &m) != 1) {
		f->run->msr.error = 1;
		return 0;
	}
	if (!wr)
		f->run->msr.data = m.e.data;
	return 0;
}

static int answer_msr(struct floor_vm *f)
{
	switch (f->msr_mode) {
	case FLOOR_MSR_GP:
		f->run->msr.error = 1;
		return 0;
	case FLOOR_MSR_PASSTHRU:
		return passthru(f);
	default:
		if (f->run->exit_reason == KVM_EXIT_X86_RDMSR)
			f->run->msr.data = 0;
		return 0;
	}
}

/* The whole host side of an exit: answer it and go back in.  Returns 1
 * with *delta when the stub rang the doorbell. */
static int handle_exit(struct floor_vm *f, uint64_t *delta)
{
	struct kvm_run *r = f->run;

	switch (r->exit_reason) {
	case KVM_EXIT_IO:
		return 0;	/* in: KVM hands back whatever is there */
	case KVM_EXIT_MMIO:
		if (r->mmio.is_write && r->mmio.phys_addr == DOORBELL_GPA) {
			memcpy(delta, r->mmio.data, sizeof(*delta));
			return 1;
		}
		return 0;
	case KVM_EXIT_X86_RDMSR:
	case KVM_EXIT_X86_WRMSR:
		return answer_msr(f);
	case KVM_EXIT_INTR:
		return 0;
	}
	fprintf(stderr, "kvm-floor: error: unexpected exit %u (8 = triple "
		"fault: the instruction faulted)\n", r->exit_reason);
	return -1;
}

int floor_first_exit(struct floor_vm *f)
{
	struct kvm_regs regs = {
		.rip = CODE_GPA + (uint64_t)(floor_stub_out - floor_code),
		.rsp = STACK_TOP, .rflags = 0x2, .r8 = BENCH_UNROLL,
		.rdi = FLOOR_PORT, .r10 = DOORBELL_GPA,
	};

	if (set_mode(f, 0) < 0 || ioctl(f->vcpu, KVM_SET_REGS, &regs) < 0)
		return die("setting registers");
	while (ioctl(f->vcpu, KVM_RUN, 0) < 0)
		if (errno != EINTR && errno != EAGAIN)
			return die("KVM_RUN");
	return f->run->exit_reason == KVM_EXIT_IO ? 0 : -1;
}

int floor_run_stub(struct floor_vm *f, const struct floor_case *c,
		   uint64_t iters, uint64_t *cycles)
{
	struct kvm_regs regs = {
		.rip = CODE_GPA + (uint64_t)(c->stub - floor_code),
		.rsp = STACK_TOP, .rflags = 0x2, .r8 = iters,
		.rdi = c->arg, .rsi = c->value, .rcx = c->value2,
		.r10 = DOORBELL_GPA,
	};
	int ret;

	if (set_mode(f, c->ring) < 0 || ioctl(f->vcpu, KVM_SET_REGS, &regs) < 0)
		return die("setting registers");
	f->exits = 0;
	f->msr_mode = c->msr_mode;
	for (;;) {
		if (ioctl(f->vcpu, KVM_RUN, 0) < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return die("KVM_RUN");
		}
		f->exits += f->run->exit_reason != KVM_EXIT_INTR;
		/* The least a VMM does with queued writes: take them. */
		if (f->ring)
			__atomic_store_n(&f->ring->first, __atomic_load_n(
				&f->ring->last, __ATOMIC_ACQUIRE),
				__ATOMIC_RELEASE);
		ret = handle_exit(f, cycles);
		if (ret < 0)
			return -1;
		if (ret == 1)
			break;
	}
	f->exits--;	/* the doorbell */
	return complete_pending(f);
}

