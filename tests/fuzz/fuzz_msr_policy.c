// SPDX-License-Identifier: MIT
/*
 * The MSR policy from text to answers: the parser (rule lines, defaults,
 * presets, and whole files through msr_policy_load_file), the effective
 * table, the KVM filter compiler, the printers, and msr_exit_handle() on
 * accesses the input chooses.
 *
 * Input: "TEXT\0ACCESSES": TEXT is a policy file (also tried line by line
 * as --msr rules and --msr-default values); ACCESSES are 9-byte records
 * (direction, MSR index, value) for the exit handler.
 *
 * Checked:
 *   - the effective table covers 0..0xffffffff in order without gaps and
 *     agrees with msr_policy_lookup() at both ends of every span;
 *   - when the filter compiles, KVM's decision (msr_filter_allows) equals
 *     the policy's (msr_entry_in_kernel) at every span edge and at every
 *     accessed MSR, and the filter respects KVM's limits;
 *   - exit answers follow the action: deny faults, ignore reads 0, value=V
 *     reads V, emulate reads back this vCPU's last write.
 */
#include "tests/fuzz/fuzz_util.h"
#include "vmm/msr/exit.h"
#include "vmm/msr/filter.h"
#include "vmm/msr/policy.h"

#include <sys/mman.h>

#define MAX_TEXT	8192
#define MAX_ACCESSES	256
#define ERR_LEN		256

static FILE *devnull;

static int fake_host(void *opaque, int vcpu, uint32_t index, uint64_t *v)
{
	(void)opaque;
	(void)vcpu;
	if (index & 1)
		return -5;	/* EIO: the fallback path */
	*v = 0x1000 + index;
	return 0;
}

static int fake_kvm(void *opaque, int vcpu, enum msr_dir dir, uint32_t index,
		    uint64_t *v)
{
	(void)opaque;
	(void)vcpu;
	(void)dir;
	if (index & 2)
		return -1;
	if (dir == MSR_READ)
		*v = index;
	return 0;
}

static void fake_log(void *opaque, const struct msr_log_event *ev)
{
	char line[256];

	(void)opaque;
	msr_log_format(line, sizeof(line), ev);
	FZ_CHECK(strlen(line) < sizeof(line), "log line");
}

/* Loads text as a file, the way --msr-policy FILE does. */
static int load_as_file(struct msr_policy *p, const char *text, size_t len,
			char *err)
{
	char path[64];
	int fd = memfd_create("policy", MFD_CLOEXEC), rc;

	FZ_CHECK(fd >= 0, "memfd_create");
	FZ_CHECK(write(fd, text, len) == (ssize_t)len, "write");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rc = msr_policy_load(p, path, err, ERR_LEN);
	close(fd);
	return rc;
}

static void check_effective(const struct msr_policy *p)
{
	struct msr_span *v;
	size_t n = msr_policy_effective(p, &v);
	uint64_t next = 0;

	FZ_CHECK(n > 0, "no effective table");
	for (size_t i = 0; i < n; i++) {
		FZ_CHECK(v[i].first == next && v[i].last >= v[i].first,
			 "span %zu is 0x%x-0x%x after 0x%llx", i, v[i].first,
			 v[i].last, (unsigned long long)next);
		for (int d = 0; d < 2; d++) {
			struct msr_entry a = msr_policy_lookup(p, v[i].first,
							       (enum msr_dir)d);
			struct msr_entry b = msr_policy_lookup(p, v[i].last,
							       (enum msr_dir)d);

			FZ_CHECK(v[i].e[d].action != MSR_ACT_NONE,
				 "NONE in the effective table");
			FZ_CHECK(msr_entry_same(&a, &v[i].e[d]) &&
				 msr_entry_same(&b, &v[i].e[d]),
				 "span 0x%x-0x%x disagrees with lookups",
				 v[i].first, v[i].last);
		}
		next = v[i].last + 1ull;
	}
	FZ_CHECK(next == 1ull << 32, "table ends at 0x%llx",
		 (unsigned long long)next);
	free(v);
}

static void check_one(const struct msr_filter *f, const struct msr_policy *p,
		      uint32_t index)
{
	for (int d = 0; d < 2; d++) {
		struct msr_entry e = msr_policy_lookup(p, index,
						       (enum msr_dir)d);

		FZ_CHECK(msr_filter_allows(f, index, (enum msr_dir)d) ==
			 msr_entry_in_kernel(&e),
			 "MSR 0x%x %s: filter and policy disagree", index,
			 d ? "write" : "read");
		/* Without filter exits KVM answers a denial with #GP: only
		 * a silent deny may then be denied. */
		if (!msr_entry_in_kernel(&e))
			FZ_CHECK(f->exits || (e.action == MSR_ACT_DENY &&
				 !(e.flags & (MSR_F_LOG | MSR_F_COUNT)) &&
				 f->silent),
				 "MSR 0x%x %s: '%s' denied without an exit",
				 index, d ? "write" : "read",
				 msr_action_name((enum msr_action)e.action));
	}
}

static void check_filter(const struct msr_filter *f,
			 const struct msr_policy *p)
{
	FZ_CHECK(f->nranges <= KVM_MSR_FILTER_MAX_RANGES, "%u ranges",
		 f->nranges);
	for (unsigned int i = 0; i < f->nranges; i++) {
		const struct kvm_msr_filter_range *r = &f->kvm.ranges[i];

		FZ_CHECK(r->nmsrs > 0 && r->nmsrs <= MSR_FILTER_RANGE_MAX &&
			 (uint64_t)r->base + r->nmsrs <= 0xffffffffull &&
			 r->bitmap && r->flags,
			 "range %u: base 0x%x, %u MSRs, flags %u", i, r->base,
			 r->nmsrs, r->flags);
	}
	for (size_t i = 0; i < p->nspans; i++) {
		const struct msr_span *s = &p->spans[i];

		check_one(f, p, s->first);
		check_one(f, p, s->last);
		if (s->first)
			check_one(f, p, s->first - 1);
		if (s->last != UINT32_MAX)
			check_one(f, p, s->last + 1);
	}
	check_one(f, p, 0);
	check_one(f, p, UINT32_MAX);
}

static void check_answer(const struct msr_entry *e,
			 const struct msr_exit_req *req,
			 const struct msr_exit_res *res, bool wrote,
			 uint64_t last)
{
	bool rd = req->dir == MSR_READ;

	switch (e->action) {
	case MSR_ACT_DENY:
		FZ_CHECK(res->gp, "deny without #GP");
		break;
	case MSR_ACT_IGNORE:
		FZ_CHECK(!res->gp && (!rd || res->value == 0), "ignore");
		break;
	case MSR_ACT_VALUE:
		FZ_CHECK(rd && !res->gp && res->value == e->value, "value=");
		break;
	case MSR_ACT_EMULATE:
		if (rd)
			FZ_CHECK(!res->gp && res->value ==
				 (wrote ? last : e->value), "emulate read");
		break;
	}
}

static void format_stat(const struct msr_stat *st, void *ctx)
{
	char rd[64], wr[64];

	(void)ctx;
	msr_entry_format(rd, sizeof(rd), &st->rd);
	msr_entry_format(wr, sizeof(wr), &st->wr);
	FZ_CHECK(st->gp <= st->reads + st->writes, "more #GP than exits");
}

static void run_exits(const struct msr_policy *p, struct fz *in)
{
	struct msr_stats stats;
	struct msr_exit_ctx ctx = {
		.policy = p, .stats = &stats, .host_read = fake_host,
		.kvm_access = fake_kvm, .log = fake_log,
	};
	struct msr_emul_store store;

	msr_stats_init(&stats);
	msr_emul_store_init(&store);
	for (int i = 0; i < MAX_ACCESSES && in->n >= 9; i++) {
		uint8_t sel = fz_u8(in);
		struct msr_exit_req req = {
			.vcpu = 0, .dir = sel & 1 ? MSR_WRITE : MSR_READ,
			.index = fz_u32(in), .reason = (sel >> 1) & 3,
		};
		struct msr_entry e;
		struct msr_exit_res res;
		uint64_t last = 0;
		bool wrote;

		if (sel & 0x80 && p->nspans)	/* aim at a rule */
			req.index = p->spans[req.index % p->nspans].first;
		e = msr_policy_lookup(p, req.index, req.dir);
		wrote = msr_emul_store_get(&store, req.index, &last);
		req.value = fz_u32(in) | (uint64_t)(sel & 0x70) << 56;
		res = msr_exit_handle(&ctx, &store, &req);
		check_answer(&e, &req, &res, wrote, last);
	}
	msr_stats_for_each(&stats, format_stat, NULL);
	msr_emul_store_free(&store);
	msr_stats_destroy(&stats);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	return 0;
}

/* Each line of text as a --msr rule (and as a --msr-default value). */
static void as_rules(struct msr_policy *p, char *text)
{
	char err[ERR_LEN];
	unsigned int line = 1;

	for (char *s = strtok(text, "\n"); s; s = strtok(NULL, "\n"))
		if (msr_policy_add_line(p, "--msr", line++, s, err,
					sizeof(err)))
			msr_policy_set_default(p, "--msr-default", s, err,
					       sizeof(err));
}

/* The syscall fix's watch list (pvm/syscall.c): watched accesses exit,
 * the MSRs around them keep what the table says. */
static void check_watched(const struct msr_policy *p)
{
	static const struct msr_watch w[] = {
		{ 0xc0000082, true, true }, { 0xc0000083, true, true },
		{ 0xc0000081, false, true }, { 0xc0000084, false, true },
	};
	struct msr_filter f;
	char err[ERR_LEN];

	if (msr_filter_compile_watch(&f, p, w, 4, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < 4; i++)
			for (int d = 0; d < 2; d++)
				if (d ? w[i].write : w[i].read)
					FZ_CHECK(!msr_filter_allows(&f,
						 w[i].index, (enum msr_dir)d),
						 "watched MSR 0x%x allowed",
						 w[i].index);
		check_one(&f, p, 0xc0000080);
		check_one(&f, p, 0xc0000085);
	}
	msr_filter_free(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz in = { data, size };
	char *text = fz_str(&in, MAX_TEXT), err[ERR_LEN];
	struct msr_policy p;
	struct msr_filter f;

	msr_policy_init(&p);
	if (load_as_file(&p, text, strlen(text), err) < 0) {
		FZ_CHECK(memchr(err, 0, sizeof(err)) && strstr(err, "error"),
			 "a failed load left no message");
		msr_policy_free(&p);
		msr_policy_init(&p);
		as_rules(&p, text);
	}
	check_effective(&p);
	if (msr_filter_compile(&f, &p, err, sizeof(err)) == 0) {
		check_filter(&f, &p);
		msr_filter_print(&f, devnull);
	}
	msr_filter_free(&f);
	check_watched(&p);
	msr_policy_print(&p, devnull);
	run_exits(&p, &in);
	msr_policy_free(&p);
	free(text);
	return 0;
}
