// SPDX-License-Identifier: MIT
/* The system-call completion in the VM: the decision, the MSR targets,
 * the hooks, the statistics (see syscall.h). */
#include "vmm/pvm/syscall.h"
#include "vmm/pvm/syscall_cpu.h"
#include "vmm/pvm/syscall_entry.h"
#include "vmm/msr/exit.h"
#include "vmm/snapshot/registry.h"
#include "vmm/vm.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

/* Where KVM's LSTAR (CSTAR) points when the guest's target is a page
 * ring 3 could run: the first of these the guest does not map for user
 * mode, so the landing faults like Linux's. */
#define TRAP_LSTAR	0xffff800000000000ull
#define TRAP_CSTAR	0xffff800000001000ull
#define TRAP_STEP	(1ull << 30)
#define TRAP_TRIES	64

static const struct msr_watch watched[] = {
	{ SC_MSR_LSTAR, true, true },
	{ SC_MSR_CSTAR, true, true },
	{ SC_MSR_STAR, false, true },
	{ SC_MSR_FMASK, false, true },
};

/* --- the targets ------------------------------------------------------- */

static bool user_executable(struct sc_fix *fx, const struct sc_state *st,
			    uint64_t la)
{
	struct pw_cpu pw = sc_pw(st, 3);
	uint64_t gpa;
	uint32_t err;

	pw.rflags &= ~(1ull << 18);	/* no SMAP games at CPL 3 */
	return pagewalk(fx->mem, &pw, la, false, &gpa, &err) == PW_OK;
}

/* KVM's value for a guest target: the target itself, or a trap address
 * when ring 3 could run the target page. */
static uint64_t hw_target(struct sc_fix *fx, const struct sc_state *st,
			  uint32_t index, uint64_t value)
{
	uint64_t la = index == SC_MSR_LSTAR ? TRAP_LSTAR : TRAP_CSTAR;

	if (!value || !user_executable(fx, st, value))
		return value;
	for (int i = 0; i < TRAP_TRIES; i++, la += TRAP_STEP) {
		struct pw_cpu pw3 = sc_pw(st, 3), pw0 = sc_pw(st, 0);
		uint64_t gpa;
		uint32_t err;

		/* Neither ring 3 nor a SYSCALL from ring 0 may run there. */
		if (pagewalk(fx->mem, &pw3, la, false, &gpa, &err) == PW_FAULT &&
		    pagewalk(fx->mem, &pw0, la, false, &gpa, &err) == PW_FAULT)
			return la;
	}
	fprintf(stderr, "minivmm: warning: syscall fix: the guest maps every "
		"trap address for user mode; SYSCALL to 0x%llx will run in "
		"ring 3\n", (unsigned long long)value);
	return value;
}

static int set_target(struct sc_fix *fx, struct vcpu *v, uint32_t index,
		      uint64_t value)
{
	struct sc_cpu *c = &fx->cpu[v->id];
	struct sc_state st = { .r = NULL };
	uint64_t hw = value;
	int rc;

	if (sc_state_load(fx, v, &st) == 0)
		hw = hw_target(fx, &st, index, value);
	rc = msr_kvm_vcpu_access(v->fd, MSR_WRITE, index, &hw);
	if (rc)
		return rc;
	if (index == SC_MSR_LSTAR) {
		c->lstar = value;
		c->hw_lstar = hw;
	} else {
		c->cstar = value;
		c->hw_cstar = hw;
	}
	if (hw != value)
		atomic_fetch_add(&fx->n.traps, 1);
	if (st.r && sc_update_arming(fx, v, &st, true) < 0)
		fprintf(stderr, "minivmm: warning: syscall fix: "
			"KVM_SET_GUEST_DEBUG on vCPU %u: %s\n", v->id,
			strerror(errno));
	return 0;
}

/* The MSR observer's access (msr/observer.h): the policy let the access
 * through to KVM; do it, and follow it. */
static int msr_access(void *ctx, unsigned int id, bool write, uint32_t index,
		      uint64_t *value)
{
	struct sc_fix *fx = ctx;
	struct sc_cpu *c = &fx->cpu[id];
	struct vcpu *v = &fx->vcpus[id];
	int rc;

	if (!write && (index == SC_MSR_LSTAR || index == SC_MSR_CSTAR)) {
		*value = index == SC_MSR_LSTAR ? c->lstar : c->cstar;
		return 0;
	}
	if (!write)
		return msr_kvm_vcpu_access(v->fd, MSR_READ, index, value);
	if (index == SC_MSR_LSTAR || index == SC_MSR_CSTAR)
		return set_target(fx, v, index, *value);
	rc = msr_kvm_vcpu_access(v->fd, MSR_WRITE, index, value);
	if (rc == 0 && index == SC_MSR_STAR)
		c->star = *value;
	else if (rc == 0 && index == SC_MSR_FMASK)
		c->fmask = *value;
	return rc;
}

/* --- the hooks --------------------------------------------------------- */

static bool debug_exit(void *ctx, struct vcpu *v)
{
	return sc_debug_exit(ctx, v);
}

/* Every exit: the gates may have moved since (a new IDT, or a gate
 * rewritten), or a gate to ring 3 been opened; IDTR and CR3 are in the
 * sync registers. */
static bool exit_seen(void *ctx, struct vcpu *v)
{
	struct sc_fix *fx = ctx;
	struct sc_state st;

	if (v->run->exit_reason == KVM_EXIT_DEBUG)
		return true;
	sc_state_load(fx, v, &st);
	return sc_update_arming(fx, v, &st, false) >= 0;
}

/* --- stats ------------------------------------------------------------- */

#define N(f)	((unsigned long long)atomic_load(&fx->n.f))

static void print_stats(void *ctx, FILE *out)
{
	struct sc_fix *fx = ctx;

	fprintf(out, "system calls completed by minivmm (--syscall-fix):\n"
		"  syscall %llu  compat syscall %llu  int $0x80 %llu  other int "
		"n %llu  faults passed on %llu (skipped %llu, pushes done "
		"%llu, single-steps %llu)  re-arms %llu  trap targets %llu\n",
		N(syscalls), N(compat), N(int80), N(int_other), N(passed),
		N(nop_skips), N(pushes), N(steps), N(rearms), N(traps));
}

static void json_stats(void *ctx, cJSON *root)
{
	struct sc_fix *fx = ctx;
	cJSON *o = cJSON_AddObjectToObject(root, "syscall_fix");

	cJSON_AddNumberToObject(o, "syscalls", (double)N(syscalls));
	cJSON_AddNumberToObject(o, "compat_syscalls", (double)N(compat));
	cJSON_AddNumberToObject(o, "int80", (double)N(int80));
	cJSON_AddNumberToObject(o, "int_other", (double)N(int_other));
	cJSON_AddNumberToObject(o, "faults_passed", (double)N(passed));
	cJSON_AddNumberToObject(o, "nop_skips", (double)N(nop_skips));
	cJSON_AddNumberToObject(o, "pushes_done", (double)N(pushes));
	cJSON_AddNumberToObject(o, "single_steps", (double)N(steps));
	cJSON_AddNumberToObject(o, "rearms", (double)N(rearms));
	cJSON_AddNumberToObject(o, "trap_targets", (double)N(traps));
}

#undef N

/* --- snapshots --------------------------------------------------------- */

/* A vCPU's section: what the guest wrote to LSTAR, CSTAR, STAR, FMASK,
 * then what KVM holds for LSTAR and CSTAR (its own MSRs are the vCPU
 * section's), u64 each. */
struct snap_ctx {
	struct sc_fix *fx;
	unsigned int id;
};

static int snap_save(void *ctx, struct snap_buf *out)
{
	const struct snap_ctx *s = ctx;
	const struct sc_cpu *c = &s->fx->cpu[s->id];
	const uint64_t v[] = { c->lstar, c->cstar, c->star, c->fmask,
			       c->hw_lstar, c->hw_cstar };

	for (size_t i = 0; i < 6; i++)
		snap_put_u64(out, v[i]);
	return 0;
}

/* After the vCPU's registers and MSRs: the breakpoints go back on the
 * handlers its IDT names. */
static int snap_load(void *ctx, const uint8_t *data, size_t len, char *err,
		     size_t errlen)
{
	const struct snap_ctx *s = ctx;
	struct sc_cpu *c = &s->fx->cpu[s->id];
	struct vcpu *v = &s->fx->vcpus[s->id];
	uint64_t *dst[] = { &c->lstar, &c->cstar, &c->star, &c->fmask,
			    &c->hw_lstar, &c->hw_cstar };
	struct sc_state st = { .r = &st.rbuf, .s = &st.sbuf };
	struct snap_rd r;

	snap_rd_init(&r, data, len);
	for (size_t i = 0; i < 6; i++)
		*dst[i] = snap_get_u64(&r);
	if (!snap_rd_done(&r)) {
		snprintf(err, errlen, "malformed section");
		return -1;
	}
	c->pf_handler = c->ud_handler = 0;
	if (ioctl(v->fd, KVM_GET_REGS, st.r) < 0 ||
	    ioctl(v->fd, KVM_GET_SREGS, st.s) < 0 ||
	    sc_update_arming(s->fx, v, &st, true) < 0) {
		snprintf(err, errlen, "cannot re-arm the breakpoints: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}

static int register_snapshot(struct vm *vm, struct sc_fix *fx)
{
	struct snap_ctx *ctx = calloc(vm->ncpus, sizeof(*ctx));

	fx->snap = ctx;
	for (unsigned int i = 0; ctx && i < vm->ncpus; i++) {
		struct snap_state_ops o = { SNAP_SEC_SYSCALL, i,
			SNAP_PHASE_VCPU_LATE, snap_save, snap_load, &ctx[i] };

		ctx[i] = (struct snap_ctx){ fx, i };
		if (snap_add_state(&vm->snap_reg, &o) < 0)
			return -1;
	}
	return ctx ? 0 : -1;
}

/* --- set-up ------------------------------------------------------------ */

/* The fix and gdb's stub both live on KVM's guest-debug exits and debug
 * registers (gdb/server.c refuses the pair).  Left to auto, a new VM run
 * under --gdb gives them to the debugger: what --gdb asks for.  A restore
 * keeps what its snapshot ran with. */
static bool gdb_takes_debug(const struct vmm_config *cfg)
{
	return cfg->syscall_fix == SYSCALL_FIX_AUTO && cfg->gdb &&
	       !cfg->restore;
}

void syscall_fix_prepare(struct vm *vm)
{
	struct msr_observer *o = &vm->msr_observer;

	if (vm->cfg->syscall_fix == SYSCALL_FIX_OFF ||
	    gdb_takes_debug(vm->cfg))
		return;
	memcpy(o->watch, watched, sizeof(watched));
	o->nwatch = sizeof(watched) / sizeof(watched[0]);
	o->access = msr_access;
}

/* The guest's starting values (KVM's). */
static void read_msrs(struct sc_cpu *c, int fd)
{
	uint64_t *dst[] = { &c->lstar, &c->cstar, &c->star, &c->fmask };
	const uint32_t idx[] = { SC_MSR_LSTAR, SC_MSR_CSTAR, SC_MSR_STAR,
				 SC_MSR_FMASK };

	for (int i = 0; i < 4; i++)
		if (msr_kvm_vcpu_access(fd, MSR_READ, idx[i], dst[i]))
			*dst[i] = 0;
	c->hw_lstar = c->lstar;
	c->hw_cstar = c->cstar;
}

static void probe_kvm(struct sc_fix *fx, int vm_fd)
{
	const int both = KVM_SYNC_X86_REGS | KVM_SYNC_X86_SREGS;
	int sync = ioctl(vm_fd, KVM_CHECK_EXTENSION, KVM_CAP_SYNC_REGS);
	int dbg = ioctl(vm_fd, KVM_CHECK_EXTENSION, KVM_CAP_SET_GUEST_DEBUG2);

	fx->sync_regs = sync > 0 && (sync & both) == both;
	/* No interrupt may sneak into a single step. */
	if (dbg > 0 && (dbg & KVM_GUESTDBG_BLOCKIRQ))
		fx->step_flags = KVM_GUESTDBG_BLOCKIRQ;
}

int syscall_fix_install(struct vm *vm)
{
	struct sc_fix *fx;

	if (!vm->msr_observer.nwatch)
		return 0;	/* --syscall-fix off */
	fx = calloc(1, sizeof(*fx));
	if (fx)
		fx->cpu = calloc(vm->ncpus, sizeof(*fx->cpu));
	if (!fx || !fx->cpu) {
		free(fx);
		return -1;
	}
	vm->syscall_state = fx;
	fx->mem = &vm->mem;
	fx->log = vm->quirk_ctx.log;
	fx->vcpus = vm->vcpus;
	fx->ncpus = vm->ncpus;
	probe_kvm(fx, vm->kvm.vm_fd);
	for (unsigned int i = 0; i < vm->ncpus; i++) {
		read_msrs(&fx->cpu[i], vm->vcpus[i].fd);
		if (fx->sync_regs)
			vm->vcpus[i].run->kvm_valid_regs =
				KVM_SYNC_X86_REGS | KVM_SYNC_X86_SREGS;
	}
	if (register_snapshot(vm, fx) < 0)
		return -1;
	vm->msr_observer.ctx = fx;
	vm->exits.debug = (struct vcpu_hook){ debug_exit, fx };
	if (fx->sync_regs)
		vm->exits.exit_seen = (struct vcpu_hook){ exit_seen, fx };
	stats_add_reporter(&vm->stats, (struct stats_reporter){
		print_stats, json_stats, fx });
	return 0;
}

void syscall_fix_announce(const struct vm *vm)
{
	if (gdb_takes_debug(vm->cfg))
		fprintf(stderr, "minivmm: note: syscall fix off under --gdb: "
			"both need this host's debug exits; guest user-mode "
			"SYSCALL and int $0x80 stay undone, as the host leaves "
			"them (docs/debugging.md)\n");
	if (!vm->syscall_state)
		return;
	fprintf(stderr, "minivmm: note: syscall fix on: this host's KVM (PVM) "
		"leaves guest user-mode SYSCALL and int $0x80 undone; minivmm "
		"completes them (--syscall-fix off: as the host does)\n");
}

void syscall_fix_destroy(struct vm *vm)
{
	struct sc_fix *fx = vm->syscall_state;

	if (!fx)
		return;
	free(fx->snap);
	free(fx->cpu);
	free(fx);
	vm->syscall_state = NULL;
}
