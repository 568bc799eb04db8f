// SPDX-License-Identifier: MIT
/* The MSR policy: every action and modifier, directions, ranges, names,
 * comments, error messages with FILE:LINE:COLUMN, precedence (checked
 * against a brute-force model), the effective table.  Presets and names:
 * check_msr_presets.c. */
#include "tests/unit/unit.h"
#include "vmm/msr/names.h"
#include "vmm/msr/arch.h"
#include "vmm/msr/policy.h"
#include "vmm/msr/presets.h"

#include <errno.h>
#include <libgen.h>
#include <strings.h>
#include <sys/stat.h>

#include "tests/unit/msr_policy_check.h"

/* ---- actions, modifiers, directions -------------------------------- */

START_TEST(every_action)
{
	add("0x10 allow");
	add("0x11 deny");
	add("0x12 ignore");
	add("0x13 value=0x1234");
	add("0x14 emulate");
	add("0x15 emulate=77");
	add("0x16 host");
	add("0x17 host=0x5");
	add("0x18 value=0x10,wgp");
	add("0x19 ignore,wgp");
	add("0x1a host,wgp");
	expect(0x10, "allow", "allow");
	expect(0x11, "deny", "deny");
	expect(0x12, "ignore", "ignore");
	expect(0x13, "value=0x1234", "ignore");
	expect(0x14, "emulate", "emulate");
	expect(0x15, "emulate=0x4d", "emulate=0x4d");
	ck_assert_uint_eq(rd(0x15).value, 77);
	expect(0x16, "host", "ignore");
	ck_assert(!(rd(0x16).flags & MSR_F_FALLBACK));
	expect(0x17, "host=0x5", "ignore");
	ck_assert(rd(0x17).flags & MSR_F_FALLBACK);
	expect(0x18, "value=0x10", "deny");
	expect(0x19, "ignore", "deny");
	expect(0x1a, "host", "deny");
	/* unnamed neighbours keep the built-in default */
	expect(0x0f, "allow", "allow");
	ck_assert(rd(0x0f).flags & MSR_F_DEFAULT);
	ck_assert(!(rd(0x10).flags & MSR_F_DEFAULT));
}
END_TEST

START_TEST(modifiers_on_any_action)
{
	add("0x10 allow,log");
	add("0x11 count,deny");
	add("0x12 ignore,log,count");
	add("0x13 log,value=1,count,log");
	add("0x14 emulate=2,count");
	add("0x15 HOST=3,LOG");
	expect(0x10, "allow,log", "allow,log");
	expect(0x11, "deny,count", "deny,count");
	expect(0x12, "ignore,log,count", "ignore,log,count");
	expect(0x13, "value=0x1,log,count", "ignore,log,count");
	expect(0x14, "emulate=0x2,count", "emulate=0x2,count");
	expect(0x15, "host=0x3,log", "ignore,log");
	ck_assert(!msr_entry_in_kernel(&(struct msr_entry){ .action =
		  MSR_ACT_ALLOW, .flags = MSR_F_COUNT }));
	ck_assert(msr_entry_in_kernel(&(struct msr_entry){ .action =
		  MSR_ACT_ALLOW }));
}
END_TEST

START_TEST(directions)
{
	add("default deny");
	add("0x30 r allow");
	add("0x31 w allow");
	add("0x32 rw allow");
	add("0x33 wr allow");
	add("0x34 R value=9");
	add("0x35 allow");
	expect(0x30, "allow", "deny");
	expect(0x31, "deny", "allow");
	expect(0x32, "allow", "allow");
	expect(0x33, "allow", "allow");
	expect(0x34, "value=0x9", "deny");
	expect(0x35, "allow", "allow");
	ck_assert(wr(0x34).flags & MSR_F_DEFAULT);
}
END_TEST

START_TEST(ranges_numbers_names)
{
	add("0xc0010000-0xc00100ff ignore,count");
	add("100-102 deny");				/* decimal */
	add("010 value=010");				/* not octal */
	add("ia32_mtrr_physbase0-IA32_MTRR_PHYSMASK7 deny");
	add("MSR_EFER r deny");
	add("mtrrDefType value=0xc06");
	add("IA32_CLOCK_MODULATION r value=0x10");
	add("0XFFFFFFFF deny");
	expect(0xc0010000, "ignore,count", "ignore,count");
	expect(0xc00100ff, "ignore,count", "ignore,count");
	expect(0xc0010100, "allow", "allow");
	expect(99, "allow", "allow");
	expect(100, "deny", "deny");
	expect(102, "deny", "deny");
	expect(103, "allow", "allow");
	expect(10, "value=0xa", "ignore");
	expect(0x1ff, "allow", "allow");
	expect(0x200, "deny", "deny");
	expect(0x20f, "deny", "deny");
	expect(0x210, "allow", "allow");
	expect(0xc0000080, "deny", "allow");
	expect(0x2ff, "value=0xc06", "ignore");
	expect(0x19a, "value=0x10", "allow");
	expect(0xffffffff, "deny", "deny");
	expect(0xfffffffe, "allow", "allow");
	expect(0, "allow", "allow");
}
END_TEST

START_TEST(comments_and_blanks)
{
	add("");
	add("   \t ");
	add("# just a comment");
	add("  0x10 deny   # trailing comment with 0x11 allow");
	add("0x11 deny# no space before the comment");
	add("\t0x12\tr\tdeny\r\n");
	expect(0x10, "deny", "deny");
	expect(0x11, "deny", "deny");
	expect(0x12, "deny", "allow");
	expect(0x13, "allow", "allow");
	/* two rules, so two origins, but one row of the effective table */
	struct msr_span *v;

	ck_assert_uint_eq(P.nspans, 3);
	ck_assert_uint_eq(msr_policy_effective(&P, &v), 6);
	ck_assert_uint_eq(v[1].first, 0x10);
	ck_assert_uint_eq(v[1].last, 0x11);
	free(v);
}
END_TEST

START_TEST(origins_name_the_rule)
{
	ck_assert_int_eq(msr_policy_add_line(&P, "pol.msr", 7,
					     "  0x10-0x20 r deny", err,
					     sizeof(err)), 0);
	ck_assert_str_eq(msr_policy_origin(&P, rd(0x15).origin),
			 "pol.msr:7:3");
	ck_assert_str_eq(msr_policy_origin(&P, wr(0x15).origin),
			 "built-in default");
	ck_assert_int_eq(msr_policy_set_default(&P, "--msr-default", "deny",
						err, sizeof(err)), 0);
	ck_assert_str_eq(msr_policy_origin(&P, wr(0x15).origin),
			 "--msr-default:1:1");
	ck_assert_str_eq(msr_policy_origin(&P, rd(0x800).origin),
			 "x2APIC, always handled by KVM");
	expect(0x800, "allow", "allow");	/* default deny or not */
	ck_assert_str_eq(msr_policy_origin(&P, 1000000), "?");
}
END_TEST

/* ---- errors ---------------------------------------------------------- */

static const struct {
	const char *rule, *msg;
} bad[] = {
	{ "0x10 frobnicate", "--msr:1:6: error: unknown action 'frobnicate' "
	  "(expected allow, deny, ignore, value=V, emulate[=V], host[=V], "
	  "log, count or wgp)" },
	{ "0x1g deny", "--msr:1:1: error: malformed number '0x1g'" },
	{ "0x deny", "--msr:1:1: error: malformed number '0x'" },
	{ "12ab deny", "--msr:1:1: error: malformed number '12ab'" },
	{ "0x10-0x2z deny", "--msr:1:6: error: malformed number '0x2z'" },
	{ "0x20-0x10 deny", "--msr:1:1: error: range end 0x10 is below its "
	  "start 0x20" },
	{ "0x100000000 deny", "--msr:1:1: error: MSR index '0x100000000' "
	  "does not fit in 32 bits" },
	{ "0x10-4294967296 deny", "--msr:1:6: error: MSR index '4294967296' "
	  "does not fit in 32 bits" },
	{ "99999999999999999999999 deny", "--msr:1:1: error: MSR index "
	  "'99999999999999999999999' does not fit in 32 bits" },
	{ "IA32_NOPE deny", "--msr:1:1: error: unknown MSR name 'IA32_NOPE'" },
	{ "efer-bogus deny", "--msr:1:6: error: unknown MSR name 'bogus'" },
	{ "-0x10 deny", "--msr:1:1: error: missing MSR number or name" },
	{ "0x10- deny", "--msr:1:6: error: missing MSR number or name" },
	{ "preset:bogus", "--msr:1:8: error: unknown preset 'bogus' (known: "
	  "kvm, xen-strict, xen-relaxed, therm-compat)" },
	{ "0x10", "--msr:1:5: error: missing action after '0x10'" },
	{ "  0x10 rw  ", "--msr:1:10: error: missing action after 'rw'" },
	{ "0x10 x deny", "--msr:1:6: error: unknown direction 'x' (expected "
	  "r, w or rw)" },
	{ "0x10 r deny log", "--msr:1:13: error: unexpected 'log' (one rule "
	  "per line)" },
	{ "0x10 deny,allow", "--msr:1:11: error: second action 'allow' after "
	  "'deny'" },
	{ "0x10 log,count", "--msr:1:6: error: no action in 'log,count' "
	  "(expected allow, deny, ignore, value=V, emulate[=V], host[=V], "
	  "log, count or wgp)" },
	{ "0x10 deny,,log", "--msr:1:11: error: empty item in the action "
	  "list" },
	{ "0x10 deny,", "--msr:1:11: error: empty item in the action list" },
	{ "0x10 value", "--msr:1:6: error: 'value' needs a number: value=V" },
	{ "0x10 value=", "--msr:1:12: error: malformed number ''" },
	{ "0x10 value=0x1q", "--msr:1:12: error: malformed number '0x1q'" },
	{ "0x10 emulate=0x10000000000000000", "--msr:1:14: error: number "
	  "'0x10000000000000000' does not fit in 64 bits" },
	{ "0x10 deny=1", "--msr:1:6: error: 'deny' takes no value" },
	{ "0x10 log=1,deny", "--msr:1:6: error: 'log' takes no value" },
	{ "0x10 deny,wgp", "--msr:1:11: error: 'wgp' only applies to ignore, "
	  "value and host (the actions that drop writes)" },
	{ "0x10 emulate,wgp", "--msr:1:14: error: 'wgp' only applies to "
	  "ignore, value and host (the actions that drop writes)" },
	{ "0x10 r value=1,wgp", "--msr:1:16: error: 'wgp' needs a rule that "
	  "covers writes (w or rw)" },
	{ "default", "--msr:1:8: error: 'default' needs an action: allow, "
	  "deny or ignore" },
	{ "default value=3", "--msr:1:9: error: the default must be allow, "
	  "deny or ignore" },
	{ "default host", "--msr:1:9: error: the default must be allow, deny "
	  "or ignore" },
	{ "default allow,log", "--msr:1:9: error: 'default allow' cannot log "
	  "or count: every MSR access would have to exit" },
	{ "default ignore,wgp", "--msr:1:16: error: 'wgp' does not apply to "
	  "the default" },
	{ "default deny deny", "--msr:1:14: error: unexpected 'deny' (one "
	  "rule per line)" },
	{ "default r deny", "--msr:1:11: error: unexpected 'deny' (one rule "
	  "per line)" },
	{ "preset:kvm extra", "--msr:1:12: error: unexpected 'extra' (one "
	  "rule per line)" },
};

START_TEST(error_messages)
{
	int rc = msr_policy_add_line(&P, "--msr", 1, bad[_i].rule, err,
				     sizeof(err));

	ck_assert_msg(rc == -1, "\"%s\" was accepted", bad[_i].rule);
	ck_assert_str_eq(err, bad[_i].msg);
	ck_assert_ptr_null(strchr(err, '\n'));
}
END_TEST

START_TEST(error_quotes_are_bounded)
{
	char rule[600], *p = rule;

	p += sprintf(p, "0x10 ");
	memset(p, 'z', 500);
	p[500] = '\0';
	ck_assert_int_eq(msr_policy_add_line(&P, "--msr", 1, rule, err,
					     sizeof(err)), -1);
	ck_assert(strlen(err) < 250);
	ck_assert_ptr_nonnull(strstr(err, "--msr:1:6: error: unknown action"));
	/* a tiny or absent buffer is not written past */
	char small[8] = "xxxxxxx";

	ck_assert_int_eq(msr_policy_add_line(&P, "--msr", 1, "0x1g deny",
					     small, 4), -1);
	ck_assert_str_eq(small, "--m");
	ck_assert_int_eq(msr_policy_add_line(&P, "--msr", 1, "0x1g deny",
					     NULL, 0), -1);
}
END_TEST

START_TEST(set_default_errors)
{
	ck_assert_int_eq(msr_policy_set_default(&P, "--msr-default", "nope",
						err, sizeof(err)), -1);
	ck_assert_str_eq(err, "--msr-default:1:1: error: unknown action "
			 "'nope' (expected allow, deny, ignore, value=V, "
			 "emulate[=V], host[=V], log, count or wgp)");
	ck_assert_int_eq(msr_policy_set_default(&P, "--msr-default", "",
						err, sizeof(err)), -1);
	ck_assert_str_eq(err, "--msr-default:1:1: error: empty default "
			 "(expected allow, deny or ignore)");
	ck_assert_int_eq(msr_policy_set_default(&P, "--msr-default",
						"ignore,count", err,
						sizeof(err)), 0);
	expect(0x1234, "ignore,count", "ignore,count");
}
END_TEST

/* ---- files ----------------------------------------------------------- */

static int load_text(const char *text, char *path)
{
	int rc;

	tmpfile_with(path, text, strlen(text));
	rc = msr_policy_load(&P, path, err, sizeof(err));
	unlink(path);
	return rc;
}

START_TEST(file_rules_and_locations)
{
	char path[PATH_MAX], want[PATH_MAX + 128];

	ck_assert_int_eq(load_text("# header\n\ndefault deny\r\n"
				   "EFER allow   # KVM's\n"
				   "0x19a r value=0x10\n", path), 0);
	expect(0xc0000080, "allow", "allow");
	expect(0x19a, "value=0x10", "deny");
	snprintf(want, sizeof(want), "%s:3:9", path);
	ck_assert_str_eq(msr_policy_origin(&P, P.def.origin), want);
	snprintf(want, sizeof(want), "%s:5:1", path);
	ck_assert_str_eq(msr_policy_origin(&P, rd(0x19a).origin), want);

	ck_assert_int_eq(load_text("0x10 deny\n\n  # c\n\t0x11  r  bogus\n",
				   path), -1);
	snprintf(want, sizeof(want), "%s:4:11: error: unknown action 'bogus'",
		 path);
	ck_assert_msg(!strncmp(err, want, strlen(want)), "%s", err);

	/* no newline at the end of the last line */
	msr_policy_free(&P);
	msr_policy_init(&P);
	ck_assert_int_eq(load_text("0x12 deny\n0x13 w deny", path), 0);
	expect(0x13, "allow", "deny");
}
END_TEST

START_TEST(file_unreadable)
{
	char path[PATH_MAX], want[PATH_MAX + 128];
	const char text[] = "0x10 deny\n0x11 de\0ny\n";

	ck_assert_int_eq(msr_policy_load(&P, "/nonexistent/minivmm.msr", err,
					 sizeof(err)), -1);
	ck_assert_str_eq(err, "/nonexistent/minivmm.msr:1:1: error: cannot "
			 "read the MSR policy file: No such file or directory");
	ck_assert_int_eq(msr_policy_load(&P, "/", err, sizeof(err)), -1);
	ck_assert_str_eq(err, "/:1:1: error: cannot read the MSR policy "
			 "file: Is a directory");

	tmpfile_with(path, text, sizeof(text) - 1);
	ck_assert_int_eq(msr_policy_load(&P, path, err, sizeof(err)), -1);
	unlink(path);
	snprintf(want, sizeof(want), "%s:2:8: error: NUL byte in the line",
		 path);
	ck_assert_str_eq(err, want);
}
END_TEST

START_TEST(file_from_data_dir)
{
	char path[PATH_MAX], dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", __FILE__);
	snprintf(path, sizeof(path), "%s/data/msr_example.policy",
		 dirname(dir));
	ck_assert_msg(msr_policy_load(&P, path, err, sizeof(err)) == 0,
		      "%s", err);
	expect(0x10, "allow", "allow");			/* xen-strict */
	expect(0x19a, "value=0x10", "deny");
	expect(0x1b0, "deny,log", "deny,log");
	expect(0xc0010000, "ignore,count", "ignore,count");
	expect(0x277, "emulate=0x7040600070406", "emulate=0x7040600070406");
	expect(0x35, "value=0x10001", "deny");
	expect(0x12345, "deny", "deny");
	/* the --msr strings come after the file and win */
	add("0x19a r host=0");
	expect(0x19a, "host=0x0", "deny");
}
END_TEST

/* ---- precedence ------------------------------------------------------ */

START_TEST(later_rule_wins_per_direction)
{
	add("0x10-0x1f deny");
	add("0x14-0x17 r value=5");
	add("0x16-0x30 w ignore");
	add("0x18 allow,log");
	expect(0x0f, "allow", "allow");
	expect(0x10, "deny", "deny");
	expect(0x14, "value=0x5", "deny");
	expect(0x16, "value=0x5", "ignore");
	expect(0x17, "value=0x5", "ignore");
	expect(0x18, "allow,log", "allow,log");
	expect(0x19, "deny", "ignore");
	expect(0x20, "allow", "ignore");
	expect(0x30, "allow", "ignore");
	expect(0x31, "allow", "allow");
	/* an earlier wide rule does not beat a later narrow one and v.v. */
	add("0-0xffffffff w deny");
	expect(0x14, "value=0x5", "deny");
	expect(0xffffffff, "allow", "deny");
	add("0x10 rw emulate");
	expect(0x10, "emulate", "emulate");
}
END_TEST

START_TEST(default_applies_only_to_unnamed)
{
	add("0x30 r deny");
	add("default ignore");
	expect(0x30, "deny", "ignore");
	expect(0x31, "ignore", "ignore");
	add("default deny,log");
	expect(0x30, "deny", "deny,log");
	add("0x30 w allow");
	expect(0x30, "deny", "allow");
	/* but not to what the architecture covers (msr/arch.h) */
	expect(0xc0000080, "allow", "allow");
	ck_assert_uint_eq(rd(0xc0000080).origin, MSR_ORIGIN_ARCH);
	add("EFER w deny");
	expect(0xc0000080, "allow", "deny");
	add("default allow");
	ck_assert(rd(0x10).flags & MSR_F_DEFAULT);
}
END_TEST

/* A brute-force model over indices 0..N-1: the same rules applied MSR by
 * MSR.  The policy must agree with it everywhere. */
#define N	48

struct model {
	struct msr_entry e[N][2];	/* action NONE: default */
	struct msr_entry def;
};

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint32_t rnd(uint32_t n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng >> 33) % n;
}

static void random_rule(struct model *m, char *buf, size_t len)
{
	static const char *const acts[] = { "allow", "deny", "ignore",
					    "value", "emulate", "host" };
	static const char *const dirs[] = { "r", "w", "rw", "" };
	uint32_t a = rnd(N), b = a + rnd(N - a), act = rnd(6), dir = rnd(4);
	uint8_t flags = (uint8_t)rnd(4);	/* LOG | COUNT */
	uint64_t v = rnd(3) ? rnd(1000) : 0;
	bool arg = act == 3 || (act >= 4 && rnd(2));
	bool wgp = (act == 2 || act == 3 || act == 5) && dir != 0 && rnd(3) == 0;
	struct msr_entry e[2] = { { 0 } };
	int n;

	if (rnd(10) == 0) {
		act = rnd(3);
		snprintf(buf, len, "default %s%s", acts[act],
			 act && (flags & 1) ? ",log" : "");
		memset(&m->def, 0, sizeof(m->def));
		m->def.action = (uint8_t)(MSR_ACT_ALLOW + act);
		m->def.flags = act && (flags & 1) ? MSR_F_LOG : 0;
		return;
	}
	n = snprintf(buf, len, "%u-%u %s %s", a, b, dirs[dir], acts[act]);
	if (arg)
		n += snprintf(buf + n, len - n, "=%llu", (unsigned long long)v);
	snprintf(buf + n, len - n, "%s%s%s", flags & 1 ? ",log" : "",
		 flags & 2 ? ",count" : "", wgp ? ",wgp" : "");
	e[0].action = (uint8_t)(MSR_ACT_ALLOW + act);
	e[0].flags = flags;
	e[0].value = arg ? v : 0;
	if (act == 5 && arg)
		e[0].flags |= MSR_F_FALLBACK;
	e[1] = e[0];
	if (act == 3 || act == 5) {		/* value, host: drop writes */
		e[1].action = MSR_ACT_IGNORE;
		e[1].value = 0;
		e[1].flags = flags;
	}
	if (wgp)
		e[1].action = MSR_ACT_DENY;
	for (uint32_t i = a; i <= b; i++)
		for (int d = 0; d < 2; d++)
			if (dir == 3 || dir == 2 || (int)dir == d)
				m->e[i][d] = e[d];
}

static void check_against(const struct model *m)
{
	for (uint32_t i = 0; i < N + 2; i++) {
		for (int d = 0; d < 2; d++) {
			struct msr_entry want = i < N && m->e[i][d].action ?
						m->e[i][d] : m->def;
			struct msr_entry got = msr_policy_lookup(&P, i, d);

			/* A deny/ignore default leaves the architectural
			 * MSRs (arch.h) to KVM. */
			if (!(i < N && m->e[i][d].action) &&
			    m->def.action != MSR_ACT_ALLOW &&
			    msr_arch_covers(i))
				want = (struct msr_entry){
					.action = MSR_ACT_ALLOW };

			ck_assert_msg(msr_entry_same(&want, &got),
				      "MSR %u dir %d: got %s want %s", i, d,
				      fmt(got), fmt(want));
		}
	}
}

/* What besides behaviour keeps two rows apart: default vs rule, x2APIC. */
static unsigned int label(const struct msr_span *s)
{
	return (s->e[0].flags & MSR_F_DEFAULT ? 1 : 0) |
	       (s->e[1].flags & MSR_F_DEFAULT ? 2 : 0) |
	       (s->e[0].origin == MSR_ORIGIN_X2APIC ? 4 : 0) |
	       (s->e[1].origin == MSR_ORIGIN_X2APIC ? 8 : 0);
}

/* The effective view covers 0..2^32-1 in order, agrees with lookups at
 * both ends of each span, and never leaves two equal neighbours. */
static void check_effective(void)
{
	struct msr_span *v;
	size_t n = msr_policy_effective(&P, &v);
	uint64_t next = 0;

	ck_assert_uint_gt(n, 0);
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_eq(v[i].first, next);
		ck_assert_uint_ge(v[i].last, v[i].first);
		for (int d = 0; d < 2; d++) {
			struct msr_entry a = msr_policy_lookup(&P, v[i].first,
							       d);
			struct msr_entry b = msr_policy_lookup(&P, v[i].last,
							       d);

			ck_assert(v[i].e[d].action != MSR_ACT_NONE);
			ck_assert(msr_entry_same(&a, &v[i].e[d]));
			ck_assert(msr_entry_same(&b, &v[i].e[d]));
		}
		if (i && msr_entry_same(&v[i - 1].e[0], &v[i].e[0]) &&
		    msr_entry_same(&v[i - 1].e[1], &v[i].e[1]))
			ck_assert(label(&v[i - 1]) != label(&v[i]));
		next = v[i].last + 1ull;
	}
	ck_assert_uint_eq(next, 1ull << 32);
	free(v);
}

START_TEST(random_rules_match_model)
{
	struct model m;
	char rule[128];

	memset(&m, 0, sizeof(m));
	m.def.action = MSR_ACT_ALLOW;
	rng += (uint64_t)_i * 0x9e3779b97f4a7c15ull;
	for (int k = 0; k < 40; k++) {
		random_rule(&m, rule, sizeof(rule));
		add(rule);
		check_against(&m);
	}
	check_effective();
	/* spans stay sorted, disjoint and coalesced */
	for (size_t i = 1; i < P.nspans; i++)
		ck_assert_uint_gt(P.spans[i].first, P.spans[i - 1].last);
}
END_TEST

/* ---- effective table and printout ----------------------------------- */

START_TEST(effective_merges)
{
	struct msr_span *v;
	size_t n;

	add("0x10-0x1f deny");
	add("0x20-0x2f deny");		/* adjacent, same behaviour */
	add("0x30 r deny");
	n = msr_policy_effective(&P, &v);
	ck_assert_uint_eq(n, 6);	/* ..f, 10-2f, 30, 31-7ff, x2apic, 900- */
	ck_assert_uint_eq(v[1].first, 0x10);
	ck_assert_uint_eq(v[1].last, 0x2f);
	ck_assert_uint_eq(v[2].first, 0x30);
	ck_assert_uint_eq(v[2].last, 0x30);
	ck_assert_uint_eq(v[4].first, 0x800);
	ck_assert_uint_eq(v[4].last, 0x8ff);
	ck_assert_uint_eq(v[5].last, 0xffffffff);
	free(v);
	ck_assert(!msr_policy_uses_host(&P));
	add("0x40 w host");			/* write side: ignore */
	ck_assert(!msr_policy_uses_host(&P));
	add("0x40 r host");
	ck_assert(msr_policy_uses_host(&P));
}
END_TEST

START_TEST(print_table)
{
	struct capture c;
	const char *out;

	add("default deny");
	add("IA32_TSC allow");
	add("0x19a r value=0x10,log");
	add("0xc0010000-0xc00100ff ignore,count");
	capture_start(&c, 1);
	msr_policy_print(&P, stdout);
	out = capture_end(&c);
	ck_assert_ptr_nonnull(strstr(out, "# MSR policy: default deny "
				     "(--msr:1:9)"));
	ck_assert_ptr_nonnull(strstr(out, "\n0x00000000-0x0000000f  deny"));
	ck_assert_ptr_nonnull(strstr(out, "\n0x00000010             allow  "
				     "                allow                  "
				     "IA32_TSC\n"));
	ck_assert_ptr_nonnull(strstr(out, "\n0x0000019a             "
				     "value=0x10,log         deny          "
				     "         IA32_THERM_CONTROL\n"));
	ck_assert_ptr_nonnull(strstr(out, "0xc0010000-0xc00100ff  "
				     "ignore,count           ignore,count  "
				     "         \n"));
	ck_assert_ptr_nonnull(strstr(out, "0x00000800-0x000008ff  allow"));
	ck_assert_ptr_nonnull(strstr(out, "(x2APIC: always KVM)"));
	ck_assert_ptr_nonnull(strstr(out, "(default)\n"));
	/* The deny default leaves the architectural MSRs to KVM. */
	ck_assert_ptr_nonnull(strstr(out, "\n0xc0000080-0xc0000084  allow"));
	ck_assert_ptr_nonnull(strstr(out, "(architectural) IA32_EFER..SFMASK\n"));
	ck_assert_int_eq(count_lines(out), 2 + 9 + 35);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("msr_policy");
	TCase *t = tcase_create("core");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, every_action);
	tcase_add_test(t, modifiers_on_any_action);
	tcase_add_test(t, directions);
	tcase_add_test(t, ranges_numbers_names);
	tcase_add_test(t, comments_and_blanks);
	tcase_add_test(t, origins_name_the_rule);
	tcase_add_loop_test(t, error_messages, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(t, error_quotes_are_bounded);
	tcase_add_test(t, set_default_errors);
	tcase_add_test(t, file_rules_and_locations);
	tcase_add_test(t, file_unreadable);
	tcase_add_test(t, file_from_data_dir);
	tcase_add_test(t, later_rule_wins_per_direction);
	tcase_add_test(t, default_applies_only_to_unnamed);
	tcase_add_loop_test(t, random_rules_match_model, 0, 30);
	tcase_add_test(t, effective_merges);
	tcase_add_test(t, print_table);
	suite_add_tcase(s, t);
	return unit_run(s);
}
