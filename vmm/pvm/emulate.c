// SPDX-License-Identifier: MIT
/* Completing, in the VMM, the guest instructions the host's emulator
 * rejects (see emulate.h for the list and the reasons). */
#include "vmm/pvm/emulate.h"
#include "vmm/pvm/emulate_sys.h"
#include "vmm/pvm/insn_decode.h"
#include "vmm/host/quirks.h"
#include "vmm/x86/pagewalk.h"
#include "vmm/memory.h"
#include "vmm/run/stats.h"
#include "vmm/vcpu.h"

#include <cjson/cJSON.h>
#include <linux/kvm.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#define EFER_LMA	(1ull << 10)
#define RFLAGS_ZF	(1ull << 6)
#define RFLAGS_AC	(1ull << 18)
#define VEC_BP		3
#define VEC_NM		7
#define VEC_MF		16
#define CR0_MP		(1ull << 1)
#define CR0_TS		(1ull << 3)
#define FSW_ES		(1u << 7)
#define VEC_GP		13
#define VEC_PF		14

/* One VM per process: counters for --stats. */
static atomic_uint_least64_t n_int3, n_cmpxchg16b, n_ac, n_popcnt, n_fwait;
static atomic_uint_least64_t n_faults;
static atomic_bool reporter_added;

/* --- guest state ------------------------------------------------------- */

struct cpu_state {
	struct kvm_regs r;
	struct kvm_sregs s;
	struct pw_cpu pw;
	bool long64;		/* 64-bit code segment */
	struct gmem *mem;
};

static int get_state(const struct quirk_ctx *e, struct vcpu *v,
		     struct cpu_state *st)
{
	st->mem = e->mem;
	if (ioctl(v->fd, KVM_GET_REGS, &st->r) < 0 ||
	    ioctl(v->fd, KVM_GET_SREGS, &st->s) < 0)
		return -1;
	st->pw = (struct pw_cpu){
		.cr0 = st->s.cr0, .cr3 = st->s.cr3, .cr4 = st->s.cr4,
		.efer = st->s.efer, .rflags = st->r.rflags,
		.cpl = st->s.cs.selector & 3,
	};
	st->long64 = (st->s.efer & EFER_LMA) && st->s.cs.l;
	return 0;
}

/* A kvm_regs field by x86 register number. */
static __u64 *gpr(struct kvm_regs *r, int n)
{
	__u64 *const p[16] = {
		&r->rax, &r->rcx, &r->rdx, &r->rbx, &r->rsp, &r->rbp, &r->rsi,
		&r->rdi, &r->r8, &r->r9, &r->r10, &r->r11, &r->r12, &r->r13,
		&r->r14, &r->r15,
	};

	return p[n & 15];
}

static void gprs_from(struct kvm_regs *r, uint64_t g[16])
{
	for (int i = 0; i < 16; i++)
		g[i] = *gpr(r, i);
}

/* Reads len bytes of guest memory at la (a data read): PW_OK, PW_FAULT
 * with *la_fault and *err set, or PW_UNSUPPORTED (not RAM, e.g. MMIO). */
static enum pw_result read_linear(struct gmem *mem,
				  const struct pw_cpu *pw,
				  uint64_t la, void *buf, size_t len,
				  uint64_t *la_fault, uint32_t *err)
{
	return pw_copy(mem, pw, la, buf, len, false, la_fault, err);
}

/* Queues exception vec for delivery at the next entry (RIP as set). */
static int inject(struct vcpu *v, unsigned int vec, bool has_err,
		  uint32_t err)
{
	struct kvm_vcpu_events ev;

	if (ioctl(v->fd, KVM_GET_VCPU_EVENTS, &ev) < 0)
		return -1;
	if (ev.exception.injected || ev.exception.pending)
		return -1;	/* would need a double fault: not ours */
	ev.exception.injected = 1;
	ev.exception.nr = (uint8_t)vec;
	ev.exception.has_error_code = has_err;
	ev.exception.error_code = err;
	ev.flags = 0;
	return ioctl(v->fd, KVM_SET_VCPU_EVENTS, &ev);
}

static bool inject_pf(struct vcpu *v, struct cpu_state *st, uint64_t la,
		      uint32_t err)
{
	st->s.cr2 = la;
	if (ioctl(v->fd, KVM_SET_SREGS, &st->s) < 0)
		return false;
	atomic_fetch_add(&n_faults, 1);
	return inject(v, VEC_PF, true, err) == 0;
}

/* --- fetching the instruction ----------------------------------------- */

/* The instruction bytes: those KVM reports with the failure, else read
 * from guest memory through the guest's page tables. */
static size_t fetch(struct vcpu *v, const struct cpu_state *st,
		    uint8_t buf[INSN_MAX_LEN])
{
	const struct kvm_run *run = v->run;
	uint64_t la = st->r.rip + (st->long64 ? 0 : st->s.cs.base);
	size_t n = 0;

	if ((run->emulation_failure.flags &
	     KVM_INTERNAL_ERROR_EMULATION_FLAG_INSTRUCTION_BYTES) &&
	    run->emulation_failure.ndata >= 3 &&
	    run->emulation_failure.insn_size) {
		n = run->emulation_failure.insn_size;
		if (n > INSN_MAX_LEN)
			n = INSN_MAX_LEN;
		memcpy(buf, run->emulation_failure.insn_bytes, n);
		return n;
	}
	while (n < INSN_MAX_LEN) {
		uint64_t gpa, chunk = 4096 - ((la + n) & 4095);
		uint32_t err;
		void *p;

		if (pagewalk(st->mem, &st->pw, la + n, false, &gpa,
			     &err) != PW_OK)
			break;
		if (chunk > INSN_MAX_LEN - n)
			chunk = INSN_MAX_LEN - n;
		p = gmem_any_ptr(st->mem, gpa, chunk);
		if (!p)
			break;
		memcpy(buf + n, p, chunk);
		n += chunk;
	}
	return n;
}

/* --- the instructions ------------------------------------------------- */

/* int3 is a trap: the handler sees RIP after the int3. */
static bool do_int3(struct vcpu *v, struct cpu_state *st)
{
	st->r.rip += 1;
	if (ioctl(v->fd, KVM_SET_REGS, &st->r) < 0)
		return false;
	if (inject(v, VEC_BP, false, 0) < 0) {
		st->r.rip -= 1;		/* leave the state as reported */
		ioctl(v->fd, KVM_SET_REGS, &st->r);
		return false;
	}
	atomic_fetch_add(&n_int3, 1);
	return true;
}

/* fwait: #NM if CR0.TS and CR0.MP, #MF if an unmasked x87 exception is
 * pending (FSW.ES), else nothing.  The x87 state is the vCPU's own. */
static bool do_fwait(struct vcpu *v, struct cpu_state *st)
{
	struct kvm_fpu fpu;
	unsigned int vec = 0;

	if ((st->s.cr0 & CR0_TS) && (st->s.cr0 & CR0_MP))
		vec = VEC_NM;
	else if (ioctl(v->fd, KVM_GET_FPU, &fpu) < 0)
		return false;
	else if (fpu.fsw & FSW_ES)
		vec = VEC_MF;
	if (vec) {
		atomic_fetch_add(&n_faults, 1);
		return inject(v, vec, false, 0) == 0;
	}
	st->r.rip += 1;
	if (ioctl(v->fd, KVM_SET_REGS, &st->r) < 0)
		return false;
	atomic_fetch_add(&n_fwait, 1);
	return true;
}

/* clac/stac (SMAP): ring 0 only; the emulator runs nothing else. */
static bool do_ac(struct vcpu *v, struct cpu_state *st, const struct insn *in)
{
	if (st->pw.cpl != 0)
		return false;
	if (in->op == INSN_STAC)
		st->r.rflags |= RFLAGS_AC;
	else
		st->r.rflags &= ~RFLAGS_AC;
	st->r.rip += in->len;
	if (ioctl(v->fd, KVM_SET_REGS, &st->r) < 0)
		return false;
	atomic_fetch_add(&n_ac, 1);
	return true;
}

#define RFLAGS_ARITH	0x8d5ull	/* OF SF ZF AF PF CF */

/* popcnt: the count of the source's set bits; ZF if it was zero, the
 * other arithmetic flags clear.  A 32-bit destination is zero-extended,
 * a 16-bit one merged, as on the CPU. */
static bool do_popcnt(struct vcpu *v, struct cpu_state *st,
		      const struct insn *in)
{
	uint64_t src = 0, g[16], la, la_fault = 0;
	__u64 *dst;
	uint64_t mask = in->opsize == 8 ? ~0ull : (1ull << (in->opsize * 8)) - 1;
	uint32_t err;
	unsigned int cnt;

	if (in->rm_reg != GPR_NONE) {
		src = *gpr(&st->r, in->rm_reg);
	} else {
		gprs_from(&st->r, g);
		la = insn_linear_address(in, g, st->r.rip, st->s.fs.base,
					 st->s.gs.base);
		switch (read_linear(st->mem, &st->pw, la, &src, in->opsize,
				    &la_fault, &err)) {
		case PW_OK:
			break;
		case PW_FAULT:
			return inject_pf(v, st, la_fault, err);
		default:
			return false;
		}
	}
	src &= mask;
	cnt = (unsigned int)__builtin_popcountll(src);
	dst = gpr(&st->r, in->reg);
	if (in->opsize == 2)
		*dst = (*dst & ~0xffffull) | cnt;
	else
		*dst = cnt;
	st->r.rflags &= ~RFLAGS_ARITH;
	if (!src)
		st->r.rflags |= RFLAGS_ZF;
	st->r.rip += in->len;
	if (ioctl(v->fd, KVM_SET_REGS, &st->r) < 0)
		return false;
	atomic_fetch_add(&n_popcnt, 1);
	return true;
}

/* The host instruction on the host mapping of the same guest memory: as
 * atomic against the other vCPUs as the guest's own would be.  Returns
 * true (ZF) if *p held {*lo, *hi} and now holds {nlo, nhi}; else the old
 * value is in {*lo, *hi}. */
static bool host_cmpxchg16b(void *p, __u64 *lo, __u64 *hi, __u64 nlo,
			    __u64 nhi)
{
	bool zf;

	__asm__ volatile("lock cmpxchg16b %1"
			 : "=@ccz"(zf), "+m"(*(volatile __int128 *)p),
			   "+a"(*lo), "+d"(*hi)
			 : "b"(nlo), "c"(nhi)
			 : "memory");
	return zf;
}

static bool do_cmpxchg16b(struct vcpu *v, struct cpu_state *st,
			  const struct insn *in)
{
	uint64_t g[16], la, gpa;
	uint32_t err;
	void *p;

	gprs_from(&st->r, g);
	la = insn_linear_address(in, g, st->r.rip, st->s.fs.base,
				 st->s.gs.base);
	if (la & 15) {		/* the CPU requires 16-byte alignment */
		atomic_fetch_add(&n_faults, 1);
		return inject(v, VEC_GP, true, 0) == 0;
	}
	switch (pagewalk(st->mem, &st->pw, la, true, &gpa, &err)) {
	case PW_OK:
		break;
	case PW_FAULT:
		return inject_pf(v, st, la, err);
	default:
		return false;
	}
	p = gmem_ptr(st->mem, gpa, 16);	/* RAM only: not MMIO */
	if (!p)
		return false;
	if (host_cmpxchg16b(p, &st->r.rax, &st->r.rdx, st->r.rbx, st->r.rcx))
		st->r.rflags |= RFLAGS_ZF;
	else
		st->r.rflags &= ~RFLAGS_ZF;
	st->r.rip += in->len;
	if (ioctl(v->fd, KVM_SET_REGS, &st->r) < 0)
		return false;
	atomic_fetch_add(&n_cmpxchg16b, 1);
	return true;
}

/* --- stats ---------------------------------------------------------- */

static void print_stats(void *ctx, FILE *out)
{
	(void)ctx;
	fprintf(out, "instructions completed by minivmm (host emulator "
		"failures):\n  int3 %llu  cmpxchg16b %llu  clac/stac %llu  "
		"popcnt %llu  fwait %llu  faults injected %llu\n",
		(unsigned long long)atomic_load(&n_int3),
		(unsigned long long)atomic_load(&n_cmpxchg16b),
		(unsigned long long)atomic_load(&n_ac),
		(unsigned long long)atomic_load(&n_popcnt),
		(unsigned long long)atomic_load(&n_fwait),
		(unsigned long long)atomic_load(&n_faults));
}

static void json_stats(void *ctx, cJSON *root)
{
	cJSON *o = cJSON_AddObjectToObject(root, "emulated");

	(void)ctx;
	cJSON_AddNumberToObject(o, "int3", (double)atomic_load(&n_int3));
	cJSON_AddNumberToObject(o, "cmpxchg16b",
				(double)atomic_load(&n_cmpxchg16b));
	cJSON_AddNumberToObject(o, "clac_stac", (double)atomic_load(&n_ac));
	cJSON_AddNumberToObject(o, "popcnt", (double)atomic_load(&n_popcnt));
	cJSON_AddNumberToObject(o, "fwait", (double)atomic_load(&n_fwait));
	cJSON_AddNumberToObject(o, "faults", (double)atomic_load(&n_faults));
}

/* Registered on the first handled failure, so runs without any keep
 * their --stats unchanged. */
static void add_reporter(struct stats *stats)
{
	bool no = false;

	if (atomic_compare_exchange_strong(&reporter_added, &no, true))
		stats_add_reporter(stats, (struct stats_reporter){
			print_stats, json_stats, NULL });
}

bool emulate_failure(void *ctx, struct vcpu *v)
{
	const struct quirk_ctx *e = ctx;
	uint8_t bytes[INSN_MAX_LEN];
	struct cpu_state st;
	struct insn in;
	size_t n;
	bool ok = false;

	if (v->run->internal.suberror != KVM_INTERNAL_ERROR_EMULATION ||
	    get_state(e, v, &st) < 0)
		return false;
	n = fetch(v, &st, bytes);
	if (!n)
		return false;
	switch (insn_decode64(bytes, n, &in)) {
	case INSN_INT3:
		ok = do_int3(v, &st);
		break;
	case INSN_CLAC:
	case INSN_STAC:
		ok = do_ac(v, &st, &in);
		break;
	case INSN_CMPXCHG16B:
		ok = st.long64 && do_cmpxchg16b(v, &st, &in);
		break;
	case INSN_POPCNT:
		ok = st.long64 && do_popcnt(v, &st, &in);
		break;
	case INSN_FWAIT:
		ok = do_fwait(v, &st);
		break;
	case INSN_OTHER:
	case INSN_NOP:		/* never a failure to complete */
		break;
	default:	/* emulate_sys.h */
		ok = emulate_sys(&(struct sys_insn){ e->mem, e->stats, v, &st.r,
			&st.s, st.pw, st.long64 }, &in);
		break;
	}
	if (ok) {
		add_reporter(e->stats);
		quirk_acted(e->log, QUIRK_INSN_COMPLETE, 1);
	}
	return ok;
}
