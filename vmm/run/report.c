// SPDX-License-Identifier: MIT
/* The failure report: what a user needs to understand why the guest
 * stopped, without a debugger.  Instruction bytes are read through
 * KVM_TRANSLATE and the bounds-checked guest-memory accessor. */
#include "vmm/run/report.h"
#include "vmm/boot/elf_syms.h"
#include "vmm/memory.h"
#include "vmm/vcpu.h"

#include <capstone/capstone.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#define EFER_LMA	(1ull << 10)
#define CR0_PE		1ull
#define INSN_MAX	15
#define STACK_WORDS	24

static const char *cpu_mode(const struct kvm_sregs *s, int *bits)
{
	if (!(s->cr0 & CR0_PE)) {
		*bits = 16;
		return "real mode";
	}
	if ((s->efer & EFER_LMA) && s->cs.l) {
		*bits = 64;
		return "64-bit long mode";
	}
	*bits = s->cs.db ? 32 : 16;
	if (s->efer & EFER_LMA)
		return *bits == 32 ? "compatibility mode (32-bit)" :
				     "compatibility mode (16-bit)";
	return *bits == 32 ? "32-bit protected mode" : "16-bit protected mode";
}

/* Reads up to max bytes at linear address la, stopping at a page that
 * does not translate or is not guest memory. */
static size_t read_linear(struct vcpu *v, struct gmem *mem, uint64_t la,
			  void *buf, size_t max)
{
	size_t n = 0;

	while (n < max) {
		struct kvm_translation tr = { .linear_address = la + n };
		uint64_t chunk = 4096 - ((la + n) & 4095);
		void *p;

		if (ioctl(v->fd, KVM_TRANSLATE, &tr) < 0 || !tr.valid)
			break;
		if (chunk > max - n)
			chunk = max - n;
		p = gmem_any_ptr(mem, tr.physical_address, chunk);
		if (!p)
			break;
		memcpy((uint8_t *)buf + n, p, chunk);
		n += chunk;
	}
	return n;
}

static void disassemble(FILE *out, const uint8_t *buf, size_t n,
			uint64_t rip, int bits)
{
	cs_mode mode = bits == 64 ? CS_MODE_64 :
		       bits == 32 ? CS_MODE_32 : CS_MODE_16;
	cs_insn *insn;
	csh h;

	if (cs_open(CS_ARCH_X86, mode, &h) != CS_ERR_OK)
		return;
	if (cs_disasm(h, buf, n, rip, 1, &insn) == 1) {
		fprintf(out, "  instruction: %s %s\n", insn->mnemonic,
			insn->op_str);
		cs_free(insn, 1);
	} else {
		fprintf(out, "  instruction: (not decodable)\n");
	}
	cs_close(&h);
}

static void print_internal(FILE *out, const struct kvm_run *run)
{
	fprintf(out, "  KVM suberror %u%s", run->internal.suberror,
		run->internal.suberror == KVM_INTERNAL_ERROR_EMULATION ?
		" (instruction emulation failed)" : "");
	for (uint32_t i = 0; i < run->internal.ndata && i < 16; i++)
		fprintf(out, "%s0x%llx", i ? " " : ", data ",
			(unsigned long long)run->internal.data[i]);
	fputc('\n', out);
}

void vcpu_report_failure(struct vcpu *v, struct gmem *mem,
			 const char *what)
{
	struct kvm_regs r;
	struct kvm_sregs s;
	uint8_t bytes[INSN_MAX];
	FILE *out = stderr;
	size_t n;
	int bits;

	fprintf(out, "minivmm: %s on vCPU %u\n", what, v->id);
	if (v->run->exit_reason == KVM_EXIT_INTERNAL_ERROR)
		print_internal(out, v->run);
	if (v->run->exit_reason == KVM_EXIT_FAIL_ENTRY)
		fprintf(out, "  hardware entry failure reason 0x%llx\n",
			(unsigned long long)
			v->run->fail_entry.hardware_entry_failure_reason);
	if (ioctl(v->fd, KVM_GET_REGS, &r) < 0 ||
	    ioctl(v->fd, KVM_GET_SREGS, &s) < 0) {
		fprintf(out, "  (registers unavailable)\n");
		return;
	}
	fprintf(out, "  RIP 0x%llx  CS 0x%04x (base 0x%llx)  %s, CPL %u\n",
		(unsigned long long)r.rip, s.cs.selector,
		(unsigned long long)s.cs.base, cpu_mode(&s, &bits),
		s.cs.selector & 3);
	fprintf(out, "  CR0 0x%llx  CR2 0x%llx  CR3 0x%llx  CR4 0x%llx  "
		"EFER 0x%llx\n", (unsigned long long)s.cr0,
		(unsigned long long)s.cr2, (unsigned long long)s.cr3,
		(unsigned long long)s.cr4, (unsigned long long)s.efer);
	fprintf(out, "  RAX 0x%llx  RBX 0x%llx  RCX 0x%llx  RDX 0x%llx  "
		"RSP 0x%llx  RFLAGS 0x%llx\n", (unsigned long long)r.rax,
		(unsigned long long)r.rbx, (unsigned long long)r.rcx,
		(unsigned long long)r.rdx, (unsigned long long)r.rsp,
		(unsigned long long)r.rflags);
	/* In 64-bit mode the CS base is ignored. */
	n = read_linear(v, mem, bits == 64 ? r.rip : s.cs.base + r.rip, bytes,
			INSN_MAX);
	fprintf(out, "  bytes at RIP:");
	for (size_t i = 0; i < n; i++)
		fprintf(out, " %02x", bytes[i]);
	fprintf(out, n ? "\n" : " (not readable)\n");
	if (n)
		disassemble(out, bytes, n, r.rip, bits);
	fflush(out);
}

static const char *mp_name(uint32_t st)
{
	switch (st) {
	case KVM_MP_STATE_RUNNABLE:
		return "running";
	case KVM_MP_STATE_UNINITIALIZED:
		return "waiting for INIT/SIPI";
	case KVM_MP_STATE_INIT_RECEIVED:
		return "INIT received";
	case KVM_MP_STATE_HALTED:
		return "halted";
	case KVM_MP_STATE_SIPI_RECEIVED:
		return "SIPI received";
	}
	return "state ?";
}

/* The top of v's stack, 8-byte words: with the kernel's symbol map the
 * return addresses among them say what a spinning vCPU was doing. */
static void report_stack(struct vcpu *v, struct gmem *mem, uint64_t rsp)
{
	uint64_t q[STACK_WORDS];
	size_t n = read_linear(v, mem, rsp, q, sizeof(q)) / 8;

	if (!n)
		return;
	fprintf(stderr, "  stack:");
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s%llx", i % 6 ? " " : (i ? "\n    " : " "),
			(unsigned long long)q[i]);
	fputc('\n', stderr);
}

static const struct elf_syms *symbols;

void report_set_symbols(const struct elf_syms *s)
{
	symbols = s;
}

/* " (name+0xoff)" for rip, or nothing. */
static void print_symbol(uint64_t rip)
{
	uint64_t off;
	const char *name = symbols ? elf_syms_find(symbols, rip, &off) : NULL;

	if (name)
		fprintf(stderr, "minivmm: vCPU RIP 0x%llx is %s+0x%llx\n",
			(unsigned long long)rip, name, (unsigned long long)off);
}

void vcpu_report_where(struct vcpu *v, struct gmem *mem)
{
	struct kvm_regs r;
	struct kvm_sregs s;
	struct kvm_mp_state mp = { .mp_state = 0xff };
	struct kvm_vcpu_events ev;

	if (ioctl(v->fd, KVM_GET_REGS, &r) < 0 ||
	    ioctl(v->fd, KVM_GET_SREGS, &s) < 0)
		return;
	ioctl(v->fd, KVM_GET_MP_STATE, &mp);
	memset(&ev, 0, sizeof(ev));
	ioctl(v->fd, KVM_GET_VCPU_EVENTS, &ev);
	fprintf(stderr, "minivmm: vCPU %u at RIP 0x%llx CPL %u RSP 0x%llx "
		"RFLAGS 0x%llx (IF %d) CR3 0x%llx, %s%s%s%s\n", v->id,
		(unsigned long long)r.rip, s.cs.selector & 3,
		(unsigned long long)r.rsp, (unsigned long long)r.rflags,
		!!(r.rflags & 0x200), (unsigned long long)s.cr3,
		mp_name(mp.mp_state),
		ev.interrupt.injected ? ", interrupt being injected" : "",
		ev.nmi.pending || ev.nmi.injected ? ", NMI pending" : "",
		ev.interrupt.shadow ? ", interrupt shadow" : "");
	print_symbol(r.rip);
	report_stack(v, mem, r.rsp);
}
