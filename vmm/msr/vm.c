// SPDX-License-Identifier: MIT
#include "vmm/msr/vm.h"
#include "vmm/x86/cpuid.h"
#include "vmm/host/host.h"
#include "vmm/kvm_compat.h"
#include "vmm/msr/cpuid_layer.h"
#include "vmm/msr/exit.h"
#include "vmm/msr/filter.h"
#include "vmm/msr/names.h"
#include "vmm/vcpu.h"
#include "vmm/vm.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define ERR_LEN	256

struct msr_vm {
	struct vm *vm;
	struct msr_policy policy;
	struct msr_filter filter;
	struct msr_stats stats;
	struct msr_host_dev host;
	bool host_open;
	struct msr_exit_ctx ctx;
	struct msr_emul_store *stores;	/* one per vCPU */
};

/* The CPUID-gated MSRs, from the CPUID the guest will get (no layer if
 * /dev/kvm cannot be asked: the VM would not start anyway). */
static int cpuid_layer(struct msr_policy *p, const struct vmm_config *cfg,
		       struct host *h, char *err, size_t errlen)
{
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	struct kvm_cpuid2 *c = fd >= 0 ?
			       cpuid_guest_table(h, fd, cfg->cpuid) : NULL;
	int r = 0;

	if (c)
		r = msr_cpuid_layer(p, c, h, err, errlen);
	free(c);
	if (fd >= 0)
		close(fd);
	return r;
}

/* A policy file's text kept in a snapshot, line by line as the file. */
static int load_text(struct msr_policy *p, const char *name,
		     const char *text, char *err, size_t errlen)
{
	unsigned int line = 1;
	char buf[1024];

	while (*text) {
		size_t n = strcspn(text, "\n");

		if (n >= sizeof(buf)) {
			snprintf(err, errlen, "%s:%u: line too long", name,
				 line);
			return -1;
		}
		memcpy(buf, text, n);
		buf[n] = 0;
		if (msr_policy_add_line(p, name, line++, buf, err, errlen))
			return -1;
		text += n + (text[n] == '\n');
	}
	return 0;
}

int msr_policy_from_config(struct msr_policy *p, const struct vmm_config *cfg,
			   struct host *h, const char *policy_file)
{
	char err[ERR_LEN];

	msr_policy_init(p);
	if (cpuid_layer(p, cfg, h, err, sizeof(err)))
		goto fail;
	if (policy_file && cfg->msr_policy_text &&
	    policy_file == cfg->msr_policy) {
		if (load_text(p, policy_file, cfg->msr_policy_text, err,
			      sizeof(err)))
			goto fail;
	} else if (policy_file &&
		   msr_policy_load(p, policy_file, err, sizeof(err))) {
		goto fail;
	}
	for (int i = 0; i < cfg->n_msr_rules; i++)
		if (msr_policy_add_line(p, "--msr", (unsigned int)i + 1,
					cfg->msr_rules[i], err, sizeof(err)))
			goto fail;
	if (cfg->msr_default &&
	    msr_policy_set_default(p, "--msr-default", cfg->msr_default, err,
				   sizeof(err)))
		goto fail;
	return 0;
fail:
	fprintf(stderr, "minivmm: %s\n", err);
	return -1;
}

int msr_policy_check(const struct vmm_config *cfg, struct host *h, FILE *out)
{
	struct msr_policy p;
	struct msr_filter f;
	char err[ERR_LEN];

	if (msr_policy_from_config(&p, cfg, h, cfg->msr_policy_check) < 0) {
		msr_policy_free(&p);
		return 2;
	}
	if (msr_filter_compile(&f, &p, err, sizeof(err)) < 0) {
		fprintf(stderr, "minivmm: %s\n", err);
		msr_policy_free(&p);
		return 2;
	}
	msr_policy_print(&p, out);
	msr_filter_print(&f, out);
	/* The fix's watches (pvm/syscall.c) need filter exits of their own. */
	if (f.silent && !f.exits && cfg->syscall_fix != SYSCALL_FIX_OFF &&
	    host_quirk_on(h, QUIRK_SYSCALL_FIX))
		fprintf(out, "# on this host the system-call fix watches "
			"LSTAR, so silent denials exit too (--syscall-fix "
			"off: they do not)\n");
	msr_filter_free(&f);
	msr_policy_free(&p);
	return 0;
}

/* --- exits ---------------------------------------------------------- */

/* Accesses an observer watches go through it (observer.h). */
static int kvm_access(void *opaque, int vcpu, enum msr_dir dir,
		      uint32_t index, uint64_t *value)
{
	struct vm *vm = opaque;
	const struct msr_observer *o = &vm->msr_observer;
	bool wr = dir == MSR_WRITE;

	if (vcpu < 0 || (unsigned int)vcpu >= vm->ncpus)
		return -1;
	if (o->access && msr_observer_watches(o, index, wr))
		return o->access(o->ctx, (unsigned int)vcpu, wr, index, value);
	return msr_kvm_vcpu_access(vm->vcpus[vcpu].fd, dir, index, value);
}

static void log_event(void *opaque, const struct msr_log_event *ev)
{
	char line[256];

	(void)opaque;
	msr_log_format(line, sizeof(line), ev);	/* starts with "msr: " */
	fprintf(stderr, "minivmm: %s\n", line);
}

static bool handle_exit(void *opaque, struct vcpu *v)
{
	struct msr_vm *m = opaque;
	struct kvm_run *run = v->run;
	enum msr_dir dir = run->exit_reason == KVM_EXIT_X86_WRMSR ?
			   MSR_WRITE : MSR_READ;
	struct msr_exit_req req;
	struct msr_exit_res res;
	uint64_t rip = 0;

	/* RIP costs a KVM_GET_REGS; only logs need it. */
	if (msr_exit_wants_rip(&m->ctx, dir, run->msr.index)) {
		struct kvm_regs regs;

		if (ioctl(v->fd, KVM_GET_REGS, &regs) == 0)
			rip = regs.rip;
	}
	req = msr_exit_req_from_run(run, (int)v->id, rip);
	res = msr_exit_handle(&m->ctx, &m->stores[v->id], &req);
	msr_exit_complete_run(run, &req, &res);
	return true;
}

/* --- stats ---------------------------------------------------------- */

static void print_stat(const struct msr_stat *st, void *ctx)
{
	char rd[64], wr[64];

	msr_entry_format(rd, sizeof(rd), &st->rd);
	msr_entry_format(wr, sizeof(wr), &st->wr);
	fprintf(ctx, "  0x%08x %-26s %9llu %9llu %7llu  r:%s w:%s\n",
		st->index, st->name ? st->name : "-",
		(unsigned long long)st->reads, (unsigned long long)st->writes,
		(unsigned long long)st->gp, rd, wr);
}

/* Silent denials KVM answers itself, unseen by the statistics. */
static bool in_kernel_denials(const struct msr_vm *m)
{
	return m->filter.silent && !m->filter.exits;
}

static void print_msrs(void *ctx, FILE *out)
{
	struct msr_vm *m = ctx;
	struct msr_stats_totals t;

	msr_stats_totals(&m->stats, &t);
	fprintf(out, "MSRs the guest touched with exits to user space (plain "
		"allow stays in KVM, unseen;\nadd ',count' to see it):\n"
		"  %-10s %-26s %9s %9s %7s  actions\n", "index", "name",
		"rd exits", "wr exits", "#GP");
	msr_stats_for_each(&m->stats, print_stat, out);
	fprintf(out, "  total exits %llu, #GP %llu, unattributed %llu, "
		"untracked %llu\n", (unsigned long long)t.exits,
		(unsigned long long)t.gp, (unsigned long long)t.unattributed,
		(unsigned long long)t.untracked);
	if (in_kernel_denials(m))
		fprintf(out, "  silent denials (deny without log or count): "
			"#GP from KVM's filter without an exit, not counted "
			"(KVM keeps no count); add ',count' to count them\n");
}

static void json_stat(const struct msr_stat *st, void *ctx)
{
	cJSON *o = cJSON_CreateObject();
	char buf[64];

	cJSON_AddNumberToObject(o, "index", st->index);
	cJSON_AddStringToObject(o, "name", st->name ? st->name : "");
	cJSON_AddNumberToObject(o, "reads", (double)st->reads);
	cJSON_AddNumberToObject(o, "writes", (double)st->writes);
	cJSON_AddNumberToObject(o, "gp", (double)st->gp);
	cJSON_AddNumberToObject(o, "unattributed", (double)st->unattributed);
	msr_entry_format(buf, sizeof(buf), &st->rd);
	cJSON_AddStringToObject(o, "read_action", buf);
	msr_entry_format(buf, sizeof(buf), &st->wr);
	cJSON_AddStringToObject(o, "write_action", buf);
	cJSON_AddItemToArray(ctx, o);
}

static void json_msrs(void *ctx, cJSON *root)
{
	struct msr_vm *m = ctx;
	cJSON *a = cJSON_AddArrayToObject(root, "msrs");
	struct msr_stats_totals t;

	msr_stats_for_each(&m->stats, json_stat, a);
	msr_stats_totals(&m->stats, &t);
	cJSON *o = cJSON_AddObjectToObject(root, "msr_totals");
	cJSON_AddNumberToObject(o, "exits", (double)t.exits);
	cJSON_AddNumberToObject(o, "gp", (double)t.gp);
	cJSON_AddNumberToObject(o, "unattributed", (double)t.unattributed);
	cJSON_AddNumberToObject(o, "untracked", (double)t.untracked);
	/* True: silent denials never exit, so they are not in "msrs". */
	cJSON_AddBoolToObject(o, "silent_denials_in_kvm",
			      in_kernel_denials(m));
}

/* --- snapshots ------------------------------------------------------ */

/* A vCPU's emulate store: u32 count, then (u32 index, u32 0, u64 value)
 * in ascending index order. */
static int store_save(void *ctx, struct snap_buf *out)
{
	const struct msr_emul_store *st = ctx;

	snap_put_u32(out, (uint32_t)st->n);
	for (size_t i = 0; i < st->n; i++) {
		snap_put_u32(out, st->v[i].index);
		snap_put_u32(out, 0);
		snap_put_u64(out, st->v[i].value);
	}
	return 0;
}

static int store_load(void *ctx, const uint8_t *data, size_t len, char *err,
		      size_t errlen)
{
	struct msr_emul_store *st = ctx;
	struct snap_rd r;
	uint32_t n, prev = 0;

	snap_rd_init(&r, data, len);
	n = snap_get_u32(&r);
	if (n > MSR_EMUL_MAX || len != 4 + (size_t)n * 16)
		goto bad;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t index = snap_get_u32(&r);

		if (snap_get_u32(&r) || (i && index <= prev) ||
		    msr_emul_store_set(st, index, snap_get_u64(&r)) < 0)
			goto bad;
		prev = index;
	}
	if (snap_rd_done(&r))
		return 0;
bad:
	snprintf(err, errlen, "MSR emulate section is malformed");
	return -1;
}

static int register_snapshot(struct vm *vm, struct msr_vm *m)
{
	for (unsigned int i = 0; i < vm->ncpus; i++) {
		struct snap_state_ops o = { SNAP_SEC_MSR_EMUL, i,
			SNAP_PHASE_DEVICES, store_save, store_load,
			&m->stores[i] };

		if (snap_add_state(&vm->snap_reg, &o) < 0)
			return -1;
	}
	return 0;
}

/* --- set-up --------------------------------------------------------- */

/* FILTER must be enabled before the filter is installed (api.rst), and
 * only when a denied access needs an answer from the table: without it
 * KVM answers silent denials with #GP itself (filter.h).  UNKNOWN and
 * INVAL always, so every MSR the guest touches that KVM would refuse is
 * seen, counted and answered by the table (#GP by default). */
static int enable_exits(struct vm *vm, const struct msr_filter *f)
{
	struct kvm_enable_cap cap = {
		.cap = KVM_CAP_X86_USER_SPACE_MSR,
		.args[0] = (f->exits ? KVM_MSR_EXIT_REASON_FILTER : 0) |
			   KVM_MSR_EXIT_REASON_UNKNOWN |
			   KVM_MSR_EXIT_REASON_INVAL,
	};

	return ioctl(vm->kvm.vm_fd, KVM_ENABLE_CAP, &cap);
}

static int setup_kvm(struct msr_vm *m)
{
	struct vm *vm = m->vm;

	if (enable_exits(vm, &m->filter) < 0) {
		fprintf(stderr, "minivmm: error: enabling user-space MSR "
			"exits: %s\n", strerror(errno));
		return -1;
	}
	if (msr_filter_needed(&m->filter) &&
	    ioctl(vm->kvm.vm_fd, KVM_X86_SET_MSR_FILTER, &m->filter.kvm) < 0) {
		fprintf(stderr, "minivmm: error: KVM_X86_SET_MSR_FILTER: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

static int open_host(struct msr_vm *m)
{
	char err[ERR_LEN];

	if (!msr_policy_uses_host(&m->policy))
		return 0;
	if (msr_host_dev_open(&m->host, NULL, &m->policy, err, sizeof(err))) {
		fprintf(stderr, "minivmm: %s\n", err);
		msr_host_dev_close(&m->host);	/* frees a partial open */
		return -1;
	}
	m->host_open = true;
	if (m->host.warning[0])
		fprintf(stderr, "minivmm: %s\n", m->host.warning);
	m->ctx.host_read = msr_host_dev_read;
	m->ctx.host_opaque = &m->host;
	return 0;
}

int msr_vm_prepare(struct vm *vm)
{
	struct msr_vm *m = calloc(1, sizeof(*m));
	char err[ERR_LEN];

	if (!m)
		return -1;
	m->vm = vm;
	vm->msr_state = m;
	msr_stats_init(&m->stats);
	if (msr_policy_from_config(&m->policy, vm->cfg, vm->host,
				   vm->cfg->msr_policy))
		return -1;
	if (msr_filter_compile_watch(&m->filter, &m->policy,
				     vm->msr_observer.watch,
				     vm->msr_observer.nwatch, err,
				     sizeof(err))) {
		fprintf(stderr, "minivmm: %s\n", err);
		return -1;
	}
	return open_host(m);
}

int msr_vm_install(struct vm *vm)
{
	struct msr_vm *m = vm->msr_state;

	m->stores = calloc(vm->ncpus, sizeof(*m->stores));
	if (!m->stores)
		return -1;
	for (unsigned int i = 0; i < vm->ncpus; i++)
		msr_emul_store_init(&m->stores[i]);
	m->ctx = (struct msr_exit_ctx){
		.policy = &m->policy, .stats = &m->stats,
		.host_read = m->ctx.host_read, .host_opaque = m->ctx.host_opaque,
		.kvm_access = kvm_access, .kvm_opaque = vm,
		.log = log_event, .log_opaque = m,
		.observer = &vm->msr_observer,
	};
	if (setup_kvm(m) < 0 || register_snapshot(vm, m) < 0)
		return -1;
	vm->exits.msr = (struct vcpu_hook){ handle_exit, m };
	stats_add_reporter(&vm->stats, (struct stats_reporter){
		print_msrs, json_msrs, m });
	return 0;
}

/* --- run-time flags (QMP) ------------------------------------------- */

static void set_flag(uint8_t *flags, uint8_t bit, int on)
{
	if (on > 0)
		*flags |= bit;
	else if (!on)
		*flags &= (uint8_t)~bit;
}

static void set_entry(struct msr_entry *e, int log, int count)
{
	set_flag(&e->flags, MSR_F_LOG, log);
	set_flag(&e->flags, MSR_F_COUNT, count);
}

/* KVM takes a new filter at any time (every vCPU reloads it); the exit
 * mask only grows, so no access that exited stops being answered. */
static int reinstall(struct msr_vm *m, struct msr_filter *f, char *err,
		     size_t errlen)
{
	struct vm *vm = m->vm;
	bool exits = f->exits || m->filter.exits;
	struct msr_filter old = m->filter;

	f->exits = exits;
	if (enable_exits(vm, f) < 0 ||
	    ((msr_filter_needed(f) || msr_filter_needed(&old)) &&
	     ioctl(vm->kvm.vm_fd, KVM_X86_SET_MSR_FILTER, &f->kvm) < 0)) {
		snprintf(err, errlen, "KVM_X86_SET_MSR_FILTER: %s",
			 strerror(errno));
		return -1;
	}
	m->filter = *f;
	msr_filter_free(&old);
	return 0;
}

int msr_vm_set_flags(struct vm *vm, int log, int count, bool *log_now,
		     bool *count_now, char *err, size_t errlen)
{
	struct msr_vm *m = vm->msr_state;
	struct msr_policy *p = &m->policy;
	struct msr_policy saved = *p;
	struct msr_span *spans = malloc((p->nspans ? p->nspans : 1) *
					sizeof(*spans));
	struct msr_filter f;

	if (!spans) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(spans, p->spans, p->nspans * sizeof(*spans));
	set_entry(&p->def, log, count);
	for (size_t i = 0; i < p->nspans; i++) {
		/* x2APIC rules can only be plain allows (filter.h). */
		if (p->spans[i].first >= MSR_X2APIC_FIRST &&
		    p->spans[i].last <= MSR_X2APIC_LAST)
			continue;
		set_entry(&p->spans[i].e[MSR_READ], log, count);
		set_entry(&p->spans[i].e[MSR_WRITE], log, count);
	}
	if (msr_filter_compile_watch(&f, p, vm->msr_observer.watch,
				     vm->msr_observer.nwatch, err, errlen) ||
	    reinstall(m, &f, err, errlen)) {
		msr_filter_free(&f);	/* never installed */
		memcpy(p->spans, spans, p->nspans * sizeof(*spans));
		p->def = saved.def;
		free(spans);
		return -1;
	}
	free(spans);
	*log_now = p->def.flags & MSR_F_LOG;
	*count_now = p->def.flags & MSR_F_COUNT;
	return 0;
}

void msr_vm_destroy(struct vm *vm)
{
	struct msr_vm *m = vm->msr_state;

	if (!m)
		return;
	for (unsigned int i = 0; m->stores && i < vm->ncpus; i++)
		msr_emul_store_free(&m->stores[i]);
	free(m->stores);
	if (m->host_open)
		msr_host_dev_close(&m->host);
	msr_filter_free(&m->filter);
	msr_policy_free(&m->policy);
	msr_stats_destroy(&m->stats);
	free(m);
	vm->msr_state = NULL;
}
