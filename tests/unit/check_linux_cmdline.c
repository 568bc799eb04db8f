// SPDX-License-Identifier: MIT
/* The Linux command line on a host that emulates ring 0
 * (vmm/pvm/linux_cmdline.c, quirk linux-cmdline): what is added, that the
 * user's own words are not duplicated, that it all fits or fails, and
 * that the announcement names each added parameter once.  The profile
 * side (nothing added on hardware) is in check_host.c. */
#include "tests/unit/unit.h"
#include "vmm/pvm/linux_cmdline.h"

static char buf[256];

START_TEST(added_first)
{
	ck_assert_int_eq(pvm_linux_cmdline("console=ttyS0 -- init-arg",
					   false, buf, sizeof(buf)), 0);
	/* Before the user's words, so never after a "--". */
	ck_assert_str_eq(buf, "noxsave clearcpuid=smap,popcnt,ssse3,erms,fsrm "
			 "noreplace-smp lapic=notscdeadline console=ttyS0 "
			 "-- init-arg");
	ck_assert_int_eq(pvm_linux_cmdline("", false, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "noxsave clearcpuid=smap,popcnt,ssse3,erms,fsrm "
			 "noreplace-smp lapic=notscdeadline");
}
END_TEST

START_TEST(user_words_kept)
{
	ck_assert_int_eq(pvm_linux_cmdline("quiet noxsave", false, buf,
					   sizeof(buf)), 0);
	ck_assert_str_eq(buf, "clearcpuid=smap,popcnt,ssse3,erms,fsrm "
			 "noreplace-smp "
			 "lapic=notscdeadline quiet noxsave");
	/* A different clearcpuid= is the user's choice: not added twice. */
	ck_assert_int_eq(pvm_linux_cmdline("clearcpuid=avx", false, buf,
					   sizeof(buf)), 0);
	ck_assert_str_eq(buf, "noxsave noreplace-smp lapic=notscdeadline "
			 "clearcpuid=avx");
	/* So is a different lapic=. */
	ck_assert_int_eq(pvm_linux_cmdline("lapic noxsave lapic=x", false,
					   buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "clearcpuid=smap,popcnt,ssse3,erms,fsrm "
			 "noreplace-smp "
			 "lapic noxsave lapic=x");
	/* Only whole words count. */
	ck_assert_int_eq(pvm_linux_cmdline("xnoxsave noxsavex", false, buf,
					   sizeof(buf)), 0);
	ck_assert_str_eq(buf, "noxsave clearcpuid=smap,popcnt,ssse3,erms,fsrm "
			 "noreplace-smp lapic=notscdeadline xnoxsave noxsavex");
}
END_TEST

START_TEST(too_long)
{
	char small[90];

	/* "noxsave clearcpuid=smap,popcnt,ssse3,erms,fsrm noreplace-smp
	 * lapic=notscdeadline " is 81 bytes. */
	ck_assert_int_eq(pvm_linux_cmdline("12345678", false, small,
					   sizeof(small)), 0);
	ck_assert_str_eq(small, "noxsave clearcpuid=smap,popcnt,ssse3,"
			 "erms,fsrm "
			 "noreplace-smp lapic=notscdeadline 12345678");
	ck_assert_int_eq(pvm_linux_cmdline("123456789", false, small,
					   sizeof(small)), -1);
	ck_assert_int_eq(pvm_linux_cmdline("", false, small, 10), -1);
}
END_TEST

/* A boot that may be snapshotted (--snapshot) also gets kvm-clock (the
 * guest TSC cannot be restored here, kvmclock can) and no async page
 * faults (a restore would wake every possible waiter). */
START_TEST(snapshot_clocksource)
{
	struct capture c;
	const char *out;

	ck_assert_int_eq(pvm_linux_cmdline("console=ttyS0", true, buf,
					   sizeof(buf)), 0);
	ck_assert_str_eq(buf, "noxsave clearcpuid=smap,popcnt,ssse3,erms,fsrm "
			 "noreplace-smp lapic=notscdeadline "
			 "clocksource=kvm-clock no-kvmapf console=ttyS0");
	/* The user's clocksource= stays, with a warning. */
	ck_assert_int_eq(pvm_linux_cmdline("clocksource=tsc", true, buf,
					   sizeof(buf)), 0);
	ck_assert_str_eq(buf, "noxsave clearcpuid=smap,popcnt,ssse3,erms,fsrm "
			 "noreplace-smp lapic=notscdeadline no-kvmapf "
			 "clocksource=tsc");
	capture_start(&c, 2);
	pvm_linux_cmdline_notes("clocksource=tsc", true);
	out = capture_end(&c);
	ck_assert_int_eq(count_lines(out), 6);
	ck_assert_ptr_nonnull(strstr(out, "warning: keeping your "
				     "clocksource=...; this host needs "
				     "'clocksource=kvm-clock'"));
	capture_start(&c, 2);
	pvm_linux_cmdline_notes("", true);
	ck_assert_ptr_nonnull(strstr(capture_end(&c), "minivmm: adding "
				     "'clocksource=kvm-clock'"));
}
END_TEST

START_TEST(notes)
{
	struct capture c;
	const char *out;

	capture_start(&c, 2);
	pvm_linux_cmdline_notes("quiet noxsave clearcpuid=avx", false);
	out = capture_end(&c);
	/* noreplace-smp and lapic= added, one kept */
	ck_assert_int_eq(count_lines(out), 3);
	ck_assert_ptr_nonnull(strstr(out, "warning: keeping your "
				     "clearcpuid="));
	ck_assert_ptr_nonnull(strstr(out, "'clearcpuid=smap,popcnt,ssse3,"
				     "erms,fsrm'"));
	capture_start(&c, 2);
	pvm_linux_cmdline_notes(NULL, false);
	out = capture_end(&c);
	ck_assert_int_eq(count_lines(out), 4);
	ck_assert_ptr_nonnull(strstr(out, "minivmm: adding "
				     "'lapic=notscdeadline'"));
	ck_assert_ptr_nonnull(strstr(out, "minivmm: adding "
				     "'noreplace-smp'"));
	ck_assert_ptr_nonnull(strstr(out, "minivmm: adding 'noxsave' to the "
				     "kernel command line: "));
	ck_assert_ptr_nonnull(strstr(out, "minivmm: adding "
				     "'clearcpuid=smap,popcnt,ssse3,erms,fsrm'"));
	/* the number of words added, for --stats */
	capture_start(&c, 2);
	ck_assert_uint_eq(pvm_linux_cmdline_notes("noxsave", true), 5);
	capture_end(&c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("linux_cmdline");
	TCase *t = tcase_create("cmdline");

	tcase_add_test(t, added_first);
	tcase_add_test(t, user_words_kept);
	tcase_add_test(t, too_long);
	tcase_add_test(t, snapshot_clocksource);
	tcase_add_test(t, notes);
	suite_add_tcase(s, t);
	return unit_run(s);
}
