// SPDX-License-Identifier: MIT
#include "vmm/msr/exit.h"
#include "vmm/kvm_compat.h"
#include "vmm/msr/names.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysinfo.h>
#include <unistd.h>

/* ---- emulated values ------------------------------------------------ */

void msr_emul_store_init(struct msr_emul_store *s)
{
	memset(s, 0, sizeof(*s));
}

void msr_emul_store_free(struct msr_emul_store *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* The position of index in s->v, or where it would go. */
static size_t store_pos(const struct msr_emul_store *s, uint32_t index)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool msr_emul_store_get(const struct msr_emul_store *s, uint32_t index,
			uint64_t *value)
{
	size_t i = store_pos(s, index);

	if (i == s->n || s->v[i].index != index)
		return false;
	*value = s->v[i].value;
	return true;
}

int msr_emul_store_set(struct msr_emul_store *s, uint32_t index,
		       uint64_t value)
{
	size_t i = store_pos(s, index);

	if (i < s->n && s->v[i].index == index) {
		s->v[i].value = value;
		return 0;
	}
	if (s->n == MSR_EMUL_MAX)
		return -1;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 8;
		struct msr_emul_val *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	memmove(&s->v[i + 1], &s->v[i], (s->n - i) * sizeof(*s->v));
	s->v[i].index = index;
	s->v[i].value = value;
	s->n++;
	return 0;
}

/* ---- statistics ----------------------------------------------------- */

void msr_stats_init(struct msr_stats *s)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
}

void msr_stats_destroy(struct msr_stats *s)
{
	pthread_mutex_destroy(&s->lock);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

void msr_stats_for_each(struct msr_stats *s,
			void (*fn)(const struct msr_stat *st, void *ctx),
			void *ctx)
{
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n; i++)
		fn(&s->v[i], ctx);
	pthread_mutex_unlock(&s->lock);
}

void msr_stats_totals(struct msr_stats *s, struct msr_stats_totals *out)
{
	pthread_mutex_lock(&s->lock);
	*out = s->t;
	pthread_mutex_unlock(&s->lock);
}

/* The stat for index, created on first use; NULL if the table is full. */
static struct msr_stat *stat_get(struct msr_stats *s,
				 const struct msr_policy *p, uint32_t index)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->n && s->v[lo].index == index)
		return &s->v[lo];
	if (s->n == MSR_STATS_MAX)
		return NULL;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32;
		struct msr_stat *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		s->v = v;
		s->cap = cap;
	}
	memmove(&s->v[lo + 1], &s->v[lo], (s->n - lo) * sizeof(*s->v));
	memset(&s->v[lo], 0, sizeof(*s->v));
	s->v[lo].index = index;
	s->v[lo].name = msr_name(index);
	s->v[lo].rd = msr_policy_lookup(p, index, MSR_READ);
	s->v[lo].wr = msr_policy_lookup(p, index, MSR_WRITE);
	s->n++;
	return &s->v[lo];
}

/* Counts one exit; returns true if it is the MSR's first unattributed one
 * (those are logged once, not every time). */
static bool record(const struct msr_exit_ctx *ctx,
		   const struct msr_exit_req *req, bool gp, bool unattributed)
{
	struct msr_stats *s = ctx->stats;
	struct msr_stat *st;
	bool first = unattributed;

	if (!s)
		return first;
	pthread_mutex_lock(&s->lock);
	s->t.exits++;
	s->t.gp += gp;
	s->t.unattributed += unattributed;
	st = stat_get(s, ctx->policy, req->index);
	if (st) {
		if (req->dir == MSR_READ)
			st->reads++;
		else
			st->writes++;
		st->gp += gp;
		st->unattributed += unattributed;
		first = unattributed && st->unattributed == 1;
	} else {
		s->t.untracked++;
		first = false;
	}
	pthread_mutex_unlock(&s->lock);
	return first;
}

/* ---- the handler ---------------------------------------------------- */

static struct msr_exit_res do_emulate(struct msr_emul_store *store,
				      const struct msr_entry *e,
				      const struct msr_exit_req *req)
{
	struct msr_exit_res res = { 0, false };

	if (req->dir == MSR_WRITE)
		res.gp = msr_emul_store_set(store, req->index, req->value) != 0;
	else if (!msr_emul_store_get(store, req->index, &res.value))
		res.value = e->value;
	return res;
}

static struct msr_exit_res do_host(const struct msr_exit_ctx *ctx,
				   const struct msr_entry *e,
				   const struct msr_exit_req *req)
{
	struct msr_exit_res res = { 0, false };
	int rc = -ENODEV;

	if (req->dir == MSR_WRITE)
		return res;		/* never written to the host */
	if (ctx->host_read)
		rc = ctx->host_read(ctx->host_opaque, req->vcpu, req->index,
				    &res.value);
	if (rc == 0)
		return res;
	res.value = e->flags & MSR_F_FALLBACK ? e->value : 0;
	res.gp = !(e->flags & MSR_F_FALLBACK);
	return res;
}

static struct msr_exit_res do_kvm(const struct msr_exit_ctx *ctx,
				  const struct msr_exit_req *req)
{
	struct msr_exit_res res = { 0, false };
	uint64_t v = req->dir == MSR_WRITE ? req->value : 0;

	if (!ctx->kvm_access ||
	    ctx->kvm_access(ctx->kvm_opaque, req->vcpu, req->dir, req->index,
			    &v) != 0) {
		res.gp = true;
		return res;
	}
	if (req->dir == MSR_READ)
		res.value = v;
	return res;
}

static struct msr_exit_res answer(const struct msr_exit_ctx *ctx,
				  struct msr_emul_store *store,
				  const struct msr_entry *e,
				  const struct msr_exit_req *req,
				  bool *unattributed)
{
	struct msr_exit_res res = { 0, false };
	bool read = req->dir == MSR_READ;

	*unattributed = false;
	switch (e->action) {
	case MSR_ACT_DENY:
		res.gp = true;
		return res;
	case MSR_ACT_IGNORE:
		return res;
	case MSR_ACT_VALUE:
		res.value = read ? e->value : 0;
		return res;
	case MSR_ACT_EMULATE:
		return do_emulate(store, e, req);
	case MSR_ACT_HOST:
		return do_host(ctx, e, req);
	case MSR_ACT_ALLOW:
		/* Only log/count, or an observer's watch, make an allowed
		 * MSR exit by our filter. */
		if (req->reason == KVM_MSR_EXIT_REASON_FILTER &&
		    (!msr_entry_in_kernel(e) ||
		     msr_observer_watches(ctx->observer, req->index,
					  req->dir == MSR_WRITE)))
			return do_kvm(ctx, req);
		break;
	}
	*unattributed = true;
	res.gp = true;
	return res;
}

struct msr_exit_res msr_exit_handle(const struct msr_exit_ctx *ctx,
				    struct msr_emul_store *store,
				    const struct msr_exit_req *req)
{
	struct msr_entry e = msr_policy_lookup(ctx->policy, req->index,
					       req->dir);
	bool unattributed, first;
	struct msr_exit_res res = answer(ctx, store, &e, req, &unattributed);

	first = record(ctx, req, res.gp, unattributed);
	if (ctx->log && ((e.flags & MSR_F_LOG) || first)) {
		struct msr_log_event ev = {
			.vcpu = req->vcpu, .rip = req->rip, .dir = req->dir,
			.index = req->index, .name = msr_name(req->index),
			.value = req->dir == MSR_READ ? res.value : req->value,
			.gp = res.gp, .unattributed = unattributed,
			.reason = req->reason, .entry = e,
		};

		ctx->log(ctx->log_opaque, &ev);
	}
	return res;
}

bool msr_exit_wants_rip(const struct msr_exit_ctx *ctx, enum msr_dir dir,
			uint32_t index)
{
	struct msr_entry e = msr_policy_lookup(ctx->policy, index, dir);

	return ctx->log && ((e.flags & MSR_F_LOG) || msr_entry_in_kernel(&e));
}

struct msr_exit_req msr_exit_req_from_run(const struct kvm_run *run, int vcpu,
					  uint64_t rip)
{
	struct msr_exit_req req = {
		.vcpu = vcpu, .rip = rip,
		.dir = run->exit_reason == KVM_EXIT_X86_WRMSR ? MSR_WRITE :
								MSR_READ,
		.index = run->msr.index, .reason = run->msr.reason,
	};

	if (req.dir == MSR_WRITE)
		req.value = run->msr.data;
	return req;
}

void msr_exit_complete_run(struct kvm_run *run, const struct msr_exit_req *req,
			   const struct msr_exit_res *res)
{
	run->msr.error = res->gp ? 1 : 0;
	if (req->dir == MSR_READ && !res->gp)
		run->msr.data = res->value;
}

static const char *reason_name(uint32_t reason)
{
	switch (reason) {
	case KVM_MSR_EXIT_REASON_FILTER:
		return "filter";
	case KVM_MSR_EXIT_REASON_UNKNOWN:
		return "unknown to KVM";
	case KVM_MSR_EXIT_REASON_INVAL:
		return "invalid";
	}
	return "unexpected";
}

void msr_log_format(char *buf, size_t len, const struct msr_log_event *ev)
{
	char act[48], val[24], why[64] = "";
	bool rd = ev->dir == MSR_READ;

	if (!len)
		return;
	msr_entry_format(act, sizeof(act), &ev->entry);
	if (rd && ev->gp)
		snprintf(val, sizeof(val), "#GP");
	else
		snprintf(val, sizeof(val), "0x%llx",
			 (unsigned long long)ev->value);
	if (ev->unattributed)
		snprintf(why, sizeof(why), " no rule explains this exit "
			 "(KVM: %s)", reason_name(ev->reason));
	snprintf(buf, len, "msr: vcpu %d rip 0x%llx %s 0x%x%s%s %s %s [%s]%s%s",
		 ev->vcpu, (unsigned long long)ev->rip, rd ? "rdmsr" : "wrmsr",
		 ev->index, ev->name ? " " : "", ev->name ? ev->name : "",
		 rd ? "->" : "<-", val, act, !rd && ev->gp ? " #GP" : "", why);
}

/* ---- the system side ------------------------------------------------ */

__attribute__((format(printf, 3, 4)))
static void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* The first host rule without a fallback (a failure there is fatal), or
 * else the first host rule. */
static const struct msr_span *host_rule(const struct msr_policy *p,
					bool *fatal)
{
	const struct msr_span *any = NULL;

	for (size_t i = 0; i < p->nspans; i++) {
		const struct msr_entry *e = &p->spans[i].e[MSR_READ];

		if (e->action != MSR_ACT_HOST)
			continue;
		if (!(e->flags & MSR_F_FALLBACK)) {
			*fatal = true;
			return &p->spans[i];
		}
		any = any ? any : &p->spans[i];
	}
	*fatal = false;
	return any;
}

static const char *open_hint(int e)
{
	if (e == ENOENT || e == ENXIO || e == ENODEV)
		return " (is the msr driver loaded? modprobe msr)";
	if (e == EACCES || e == EPERM)
		return " (needs root or CAP_SYS_RAWIO)";
	return "";
}

/* Reports a host problem against rule s: error if fatal, else warning. */
static int host_problem(struct msr_host_dev *dev, const struct msr_policy *p,
			const struct msr_span *s, bool fatal, const char *what,
			char *err, size_t errlen)
{
	const struct msr_entry *e = &s->e[MSR_READ];

	if (fatal) {
		say(err, errlen, "%s: error: host MSR reads: %s",
		    msr_policy_origin(p, e->origin), what);
		return -1;
	}
	say(dev->warning, sizeof(dev->warning), "%s: warning: host MSR "
	    "reads: %s; reads return the rule's fallback",
	    msr_policy_origin(p, e->origin), what);
	return 0;
}

static int open_all(struct msr_host_dev *dev, const char *root,
		    char *what, size_t len)
{
	cpu_set_t mine;
	int bad = -1, bad_errno = 0;

	dev->ncpus = get_nprocs_conf() > 0 ? get_nprocs_conf() : 1;
	dev->fds = malloc(dev->ncpus * sizeof(int));
	if (!dev->fds) {
		dev->ncpus = 0;
		say(what, len, "out of memory");
		return -1;
	}
	if (sched_getaffinity(0, sizeof(mine), &mine))
		CPU_ZERO(&mine);
	for (int cpu = 0; cpu < dev->ncpus; cpu++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%d/msr", root, cpu);
		dev->fds[cpu] = open(path, O_RDONLY | O_CLOEXEC);
		/* Offline CPUs may lack a device; CPUs we may run on may not. */
		if (dev->fds[cpu] < 0 && bad < 0 &&
		    (CPU_ISSET(cpu, &mine) || CPU_COUNT(&mine) == 0)) {
			bad = cpu;
			bad_errno = errno;
		}
	}
	if (bad < 0)
		return 0;
	say(what, len, "cannot open %s/%d/msr: %s%s", root, bad,
	    strerror(bad_errno), open_hint(bad_errno));
	return -1;
}

int msr_host_dev_open(struct msr_host_dev *dev, const char *root,
		      const struct msr_policy *p, char *err, size_t errlen)
{
	const struct msr_span *rule;
	char what[512];
	bool fatal;
	int cpu;

	memset(dev, 0, sizeof(*dev));
	rule = host_rule(p, &fatal);
	if (!rule)
		return 0;
	if (open_all(dev, root ? root : "/dev/cpu", what, sizeof(what)))
		return host_problem(dev, p, rule, fatal, what, err, errlen);
	cpu = sched_getcpu();
	for (size_t i = 0; i < p->nspans; i++) {
		const struct msr_span *s = &p->spans[i];
		uint64_t v;
		int rc;

		if (s->e[MSR_READ].action != MSR_ACT_HOST)
			continue;
		rc = msr_host_dev_read(dev, 0, s->first, &v);
		if (rc == 0)
			continue;
		snprintf(what, sizeof(what), "MSR 0x%x%s%s is not readable on "
			 "host CPU %d: %s", s->first, msr_name(s->first) ?
			 " " : "", msr_name(s->first) ? msr_name(s->first) :
			 "", cpu, strerror(-rc));
		if (host_problem(dev, p, s, !(s->e[MSR_READ].flags &
					       MSR_F_FALLBACK), what, err,
				 errlen))
			return -1;
	}
	return 0;
}

void msr_host_dev_close(struct msr_host_dev *dev)
{
	for (int i = 0; dev->fds && i < dev->ncpus; i++)
		if (dev->fds[i] >= 0)
			close(dev->fds[i]);
	free(dev->fds);
	memset(dev, 0, sizeof(*dev));
}

int msr_host_dev_read(void *opaque, int vcpu, uint32_t index, uint64_t *value)
{
	const struct msr_host_dev *dev = opaque;
	int cpu = sched_getcpu();
	ssize_t n;

	(void)vcpu;
	if (!dev || cpu < 0 || cpu >= dev->ncpus || dev->fds[cpu] < 0)
		return -ENODEV;
	n = pread(dev->fds[cpu], value, sizeof(*value), (off_t)index);
	if (n == (ssize_t)sizeof(*value))
		return 0;
	return n < 0 ? -errno : -EIO;	/* short: a fake device, say */
}

int msr_kvm_vcpu_access(int vcpu_fd, enum msr_dir dir, uint32_t index,
			uint64_t *value)
{
	union {
		struct kvm_msrs hdr;
		unsigned char buf[sizeof(struct kvm_msrs) +
				  sizeof(struct kvm_msr_entry)];
	} u;
	int rc;

	memset(&u, 0, sizeof(u));
	u.hdr.nmsrs = 1;
	u.hdr.entries[0].index = index;
	u.hdr.entries[0].data = dir == MSR_WRITE ? *value : 0;
	rc = ioctl(vcpu_fd, dir == MSR_WRITE ? KVM_SET_MSRS : KVM_GET_MSRS,
		   &u.hdr);
	if (rc < 0)
		return -errno;
	if (rc != 1)
		return -EIO;		/* KVM refused the MSR */
	if (dir == MSR_READ)
		*value = u.hdr.entries[0].data;
	return 0;
}
