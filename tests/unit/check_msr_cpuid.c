// SPDX-License-Identifier: MIT
/* The CPUID side of the MSR policy: the CPUID-gated MSRs follow a given
 * CPUID table (msr/cpuid_layer.c), before and under the user's rules; and
 * --cpuid's feature names (cpuid_flags.c). */
#include "tests/unit/unit.h"
#include "vmm/cli/cpuid_flags.h"
#include "vmm/host/host.h"
#include "vmm/msr/cpuid_layer.h"
#include "vmm/msr/policy.h"

#include <linux/kvm.h>

static struct msr_policy P;
static char err[256];

/* A table with leaf 7 EDX and leaf 0x80000008 EBX as given. */
static struct kvm_cpuid2 *table(uint32_t l7_edx, uint32_t ext_ebx)
{
	struct kvm_cpuid2 *c = calloc(1, sizeof(*c) + 3 * sizeof(c->entries[0]));

	c->nent = 3;
	c->entries[0] = (struct kvm_cpuid_entry2){ .function = 1 };
	c->entries[1] = (struct kvm_cpuid_entry2){ .function = 7,
						   .edx = l7_edx };
	c->entries[2] = (struct kvm_cpuid_entry2){ .function = 0x80000008u,
						   .ebx = ext_ebx };
	return c;
}

static const char *act(uint32_t msr, enum msr_dir d)
{
	static char buf[64];
	struct msr_entry e = msr_policy_lookup(&P, msr, d);

	msr_entry_format(buf, sizeof(buf), &e);
	return buf;
}

static void layer(uint32_t l7_edx, uint32_t ext_ebx, bool pvm)
{
	struct kvm_cpuid2 *c = table(l7_edx, ext_ebx);
	struct host h;

	host_from_facts(&h, &(struct host_facts){ .kvm_pvm = pvm,
						  .kvm_intel = !pvm,
						  .ring0_override = -1 });
	msr_policy_init(&P);
	ck_assert_int_eq(msr_cpuid_layer(&P, c, &h, err, sizeof(err)), 0);
	free(c);
}

#define SPEC_CTRL	0x48
#define PRED_CMD	0x49
#define ARCH_CAP	0x10a
#define FLUSH_CMD	0x10b

START_TEST(intel_all_present)
{
	/* IBRS/IBPB, STIBP, L1D_FLUSH, ARCH_CAPABILITIES, SSBD */
	layer(1u << 26 | 1u << 27 | 1u << 28 | 1u << 29 | 1u << 31, 0, false);
	ck_assert_str_eq(act(SPEC_CTRL, MSR_WRITE), "allow");
	ck_assert_str_eq(act(PRED_CMD, MSR_WRITE), "allow");
	ck_assert_str_eq(act(FLUSH_CMD, MSR_WRITE), "allow");
	ck_assert_str_eq(act(ARCH_CAP, MSR_READ), "allow");
	msr_policy_free(&P);
	/* this host's case: the writes must stick, so minivmm keeps them */
	layer(1u << 26 | 1u << 27 | 1u << 28 | 1u << 29 | 1u << 31, 0, true);
	ck_assert_str_eq(act(SPEC_CTRL, MSR_READ), "emulate");
	ck_assert_str_eq(act(SPEC_CTRL, MSR_WRITE), "emulate");
	ck_assert_str_eq(act(PRED_CMD, MSR_WRITE), "allow");
	msr_policy_free(&P);
}
END_TEST

START_TEST(hidden_features_fault)
{
	/* the development host (docs/hosts.md): CPUID without them, so #GP as on hardware */
	layer(0, 0, true);
	ck_assert_str_eq(act(SPEC_CTRL, MSR_READ), "deny");
	ck_assert_str_eq(act(SPEC_CTRL, MSR_WRITE), "deny");
	ck_assert_str_eq(act(PRED_CMD, MSR_WRITE), "deny");
	ck_assert_str_eq(act(FLUSH_CMD, MSR_WRITE), "deny");
	ck_assert_str_eq(act(ARCH_CAP, MSR_READ), "deny");
	/* the user's rules come later and win */
	ck_assert_int_eq(msr_policy_add_line(&P, "--msr", 1,
					     "IA32_SPEC_CTRL allow", err,
					     sizeof(err)), 0);
	ck_assert_str_eq(act(SPEC_CTRL, MSR_WRITE), "allow");
	ck_assert_str_eq(msr_policy_origin(&P, msr_policy_lookup(&P, FLUSH_CMD,
			 MSR_WRITE).origin), "cpuid:3:1");
	msr_policy_free(&P);
	/* AMD's bits count too: IBPB (12), IBRS (14) */
	layer(0, 1u << 12 | 1u << 14, false);
	ck_assert_str_eq(act(SPEC_CTRL, MSR_WRITE), "allow");
	ck_assert_str_eq(act(PRED_CMD, MSR_WRITE), "allow");
	msr_policy_free(&P);
}
END_TEST

START_TEST(feature_names)
{
	struct cpuid_edits ed;
	char e[CPUID_ERR_MAX];

	ck_assert_int_eq(cpuid_flags_parse("+x2apic,-pcid,+tsc-deadline", &ed,
					   e), 0);
	ck_assert_int_eq(ed.n, 3);
	ck_assert_str_eq(ed.e[1].f->name, "pcid");
	ck_assert(!ed.e[1].set);
	ck_assert_uint_eq(ed.e[2].f->leaf, 1);
	ck_assert_uint_eq(ed.e[2].f->bit, 24);
	ck_assert_int_eq(cpuid_flags_parse(NULL, &ed, e), 0);
	ck_assert_int_eq(ed.n, 0);
	ck_assert_int_eq(cpuid_flags_parse("x2apic", &ed, e), -1);
	ck_assert(strstr(e, "expected +name or -name"));
	ck_assert_int_eq(cpuid_flags_parse("+frobnicate", &ed, e), -1);
	ck_assert(strstr(e, "'frobnicate': unknown CPUID feature"));
	ck_assert_int_eq(cpuid_flags_parse("+x2apic,", &ed, e), -1);
	ck_assert_int_eq(cpuid_flags_parse("+", &ed, e), -1);
	ck_assert_int_eq(cpuid_flags_parse("+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
					   "aaaaaaaaaaaaaaaa", &ed, e), -1);
	ck_assert_ptr_nonnull(cpuid_feature_find("invpcid"));
	ck_assert_ptr_null(cpuid_feature_find("INVPCID"));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("msr_cpuid");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, intel_all_present);
	tcase_add_test(tc, hidden_features_fault);
	tcase_add_test(tc, feature_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
