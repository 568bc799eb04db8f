// SPDX-License-Identifier: MIT
/* The built-in MSR policies (vmm/msr/presets.c) as the parser expands
 * them, the help text, and the MSR name table (vmm/msr/names.c). */
#include "tests/unit/unit.h"
#include "tests/unit/msr_policy_check.h"
#include "vmm/msr/names.h"
#include "vmm/msr/policy.h"
#include "vmm/msr/presets.h"

#include <strings.h>

/* ---- presets --------------------------------------------------------- */

START_TEST(preset_kvm)
{
	add("default deny");
	ck_assert_int_eq(msr_policy_load(&P, "preset:kvm", err, sizeof(err)),
			 0);
	expect(0x12345678, "allow", "allow");
	ck_assert_uint_eq(P.nspans, 0);
}
END_TEST

START_TEST(preset_xen_strict)
{
	ck_assert_int_eq(msr_policy_load(&P, "preset:xen-strict", err,
					 sizeof(err)), 0);
	expect(0x12345678, "deny", "deny");		/* unknown: #GP */
	expect(0x19a, "deny", "deny");
	expect(0x1b0, "deny", "deny");
	expect(0x10, "allow", "allow");
	expect(0xc0000080, "allow", "allow");
	expect(0xc0000103, "allow", "allow");
	expect(0x277, "allow", "allow");
	expect(0x2ff, "allow", "allow");
	expect(0x26f, "allow", "allow");
	expect(0x49, "deny", "allow");			/* write-only */
	expect(0x10b, "deny", "allow");
	expect(0x10a, "allow", "deny");			/* read-only */
	expect(0x3a, "allow", "deny");
	expect(0x198, "value=0x0", "deny");		/* RAZ */
	expect(0x199, "ignore", "ignore");
	expect(0x19c, "value=0x0", "deny");
	expect(0xc0010064, "ignore", "ignore");
	expect(0x4b564d01, "allow", "allow");
	expect(0x800, "allow", "allow");
	ck_assert_str_eq(msr_policy_origin(&P, P.def.origin),
			 "preset:xen-strict:1:9");
	/* rules after a preset refine it */
	add("0x19a r value=0x10");
	expect(0x19a, "value=0x10", "deny");
}
END_TEST

START_TEST(preset_xen_relaxed)
{
	add("preset:xen-relaxed");
	expect(0x12345678, "ignore", "ignore");
	expect(0x19a, "ignore", "ignore");
	expect(0x10, "allow", "allow");
	expect(0x49, "ignore", "allow");
	expect(0x198, "value=0x0", "deny");
}
END_TEST

START_TEST(preset_therm_compat)
{
	add("PRESET:Therm-Compat");
	expect(0x19a, "host=0x0", "deny");
	expect(0x1b0, "host=0x0", "deny");
	ck_assert(rd(0x19a).flags & MSR_F_FALLBACK);
	expect(0x12345678, "deny", "deny");
	expect(0xc0000080, "allow", "allow");
	ck_assert(msr_policy_uses_host(&P));
}
END_TEST

START_TEST(preset_errors_carry_location)
{
	ck_assert_int_eq(msr_policy_load(&P, "preset:xen", err, sizeof(err)),
			 -1);
	ck_assert_str_eq(err, "--msr-policy:1:8: error: unknown preset 'xen' "
			 "(known: kvm, xen-strict, xen-relaxed, therm-compat)");
	ck_assert_int_eq(msr_policy_load(&P, "preset:", err, sizeof(err)), -1);
	ck_assert_str_eq(err, "--msr-policy:1:8: error: unknown preset '' "
			 "(known: kvm, xen-strict, xen-relaxed, therm-compat)");
}
END_TEST

START_TEST(help_mentions_everything)
{
	const char *h = msr_policy_help();
	const char *words[] = { "kvm", "xen-strict", "xen-relaxed",
				"therm-compat", "allow", "deny", "ignore",
				"value=V", "emulate", "host", "log", "count",
				"wgp", "0x800-0x8ff", "default" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		ck_assert_msg(strstr(h, words[i]), "help lacks %s", words[i]);
}
END_TEST

/* ---- names ----------------------------------------------------------- */

START_TEST(names_round_trip)
{
	for (size_t i = 0; i < msr_name_count(); i++) {
		uint32_t index, got;
		bool alias;
		const char *n = msr_name_at(i, &index, &alias);

		ck_assert_ptr_nonnull(n);
		ck_assert_msg(msr_lookup_name(n, strlen(n), &got), "%s", n);
		ck_assert_msg(got == index, "%s -> 0x%x, want 0x%x", n, got,
			      index);
		ck_assert_ptr_nonnull(msr_name(index));
		if (!alias)
			ck_assert_str_eq(msr_name(index), n);
		/* names are unique (case-insensitively) */
		for (size_t j = 0; j < i; j++)
			ck_assert_msg(strcasecmp(msr_name_at(j, NULL, NULL),
						 n), "duplicate %s", n);
	}
	ck_assert_ptr_null(msr_name_at(msr_name_count(), NULL, NULL));
	ck_assert_ptr_null(msr_name(0x12345678));
}
END_TEST

START_TEST(names_required)
{
	static const struct { const char *n; uint32_t i; } want[] = {
		{ "IA32_THERM_CONTROL", 0x19a }, { "IA32_CLOCK_MODULATION", 0x19a },
		{ "IA32_ENERGY_PERF_BIAS", 0x1b0 }, { "MTRRcap", 0xfe },
		{ "MTRRdefType", 0x2ff }, { "IA32_MTRR_PHYSBASE7", 0x20e },
		{ "IA32_MTRR_PHYSMASK0", 0x201 }, { "MTRRfix64K_00000", 0x250 },
		{ "MTRRfix16K_A0000", 0x259 }, { "MTRRfix4K_F8000", 0x26f },
		{ "IA32_MISC_ENABLE", 0x1a0 }, { "IA32_PAT", 0x277 },
		{ "IA32_APIC_BASE", 0x1b }, { "IA32_TSC", 0x10 },
		{ "EFER", 0xc0000080 }, { "STAR", 0xc0000081 },
		{ "LSTAR", 0xc0000082 }, { "CSTAR", 0xc0000083 },
		{ "SFMASK", 0xc0000084 }, { "FS_BASE", 0xc0000100 },
		{ "GS_BASE", 0xc0000101 }, { "KERNEL_GS_BASE", 0xc0000102 },
		{ "TSC_AUX", 0xc0000103 }, { "SPEC_CTRL", 0x48 },
		{ "PRED_CMD", 0x49 }, { "FLUSH_CMD", 0x10b },
		{ "ARCH_CAPABILITIES", 0x10a }, { "PLATFORM_INFO", 0xce },
		{ "PERF_STATUS", 0x198 }, { "PERF_CTL", 0x199 },
		{ "THERM_STATUS", 0x19c }, { "FEATURE_CONTROL", 0x3a },
		{ "TSC_ADJUST", 0x3b }, { "TSC_DEADLINE", 0x6e0 },
		{ "XSS", 0xda0 }, { "SYSENTER_CS", 0x174 },
		{ "SYSENTER_ESP", 0x175 }, { "SYSENTER_EIP", 0x176 },
		{ "MCG_CAP", 0x179 }, { "MCG_STATUS", 0x17a },
		{ "MCG_CTL", 0x17b }, { "HWCR", 0xc0010015 },
		{ "K8_PSTATE_LIMIT", 0xc0010061 }, { "K8_PSTATE7", 0xc001006b },
		{ "KVM_SYSTEM_TIME_NEW", 0x4b564d01 },
		{ "KVM_WALL_CLOCK", 0x11 }, { "msr_ia32_tsc", 0x10 },
		{ "Msr_Efer", 0xc0000080 },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint32_t got = 0;

		ck_assert_msg(msr_lookup_name(want[i].n, strlen(want[i].n),
					      &got), "no %s", want[i].n);
		ck_assert_msg(got == want[i].i, "%s -> 0x%x", want[i].n, got);
	}
	ck_assert_str_eq(msr_name(0x19a), "IA32_THERM_CONTROL");
	ck_assert_str_eq(msr_name(0xc0000080), "IA32_EFER");
	ck_assert(!msr_lookup_name("MSR_", 4, &(uint32_t){ 0 }));
	ck_assert(!msr_lookup_name("IA32_TS", 7, &(uint32_t){ 0 }));
	ck_assert(!msr_lookup_name("IA32_TSCX", 9, &(uint32_t){ 0 }));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("msr_presets");
	TCase *t = tcase_create("core");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, preset_kvm);
	tcase_add_test(t, preset_xen_strict);
	tcase_add_test(t, preset_xen_relaxed);
	tcase_add_test(t, preset_therm_compat);
	tcase_add_test(t, preset_errors_carry_location);
	tcase_add_test(t, help_mentions_everything);
	tcase_add_test(t, names_round_trip);
	tcase_add_test(t, names_required);
	suite_add_tcase(s, t);
	return unit_run(s);
}
