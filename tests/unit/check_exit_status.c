// SPDX-License-Identifier: MIT
/* Exit statuses: the mapping of test-exit values, firmware failure codes,
 * and the descriptions. */
#include "tests/unit/unit.h"
#include "firmware/lib/abi.h"
#include "vmm/run/exit_status.h"

static int from(uint32_t value, uint32_t *reason)
{
	*reason = 0xdeadbeef;
	return exit_status_from_test_exit(value, reason);
}

START_TEST(test_exit_values)
{
	uint32_t reason;

	ck_assert_int_eq(from(0, &reason), 0);
	ck_assert_uint_eq(reason, 0);
	ck_assert_int_eq(from(1, &reason), 1);
	ck_assert_uint_eq(reason, 0);
	ck_assert_int_eq(from(3, &reason), 3);
	ck_assert_int_eq(from(124, &reason), 124);
	ck_assert_int_eq(from(0xff, &reason), 0xff);
	/* Only the low byte counts. */
	ck_assert_int_eq(from(0x100, &reason), 0);
	ck_assert_int_eq(from(0x1ff, &reason), 0xff);
	ck_assert_int_eq(from(0x12345678, &reason), 0x78);
	ck_assert_int_eq(from(0xffffffff, &reason), 0xff);
	ck_assert_uint_eq(reason, 0);
	/* Near misses of the firmware magic are ordinary values. */
	ck_assert_int_eq(from(ABI_FW_FAIL_MAGIC ^ 0x10000, &reason), 0);
	ck_assert_int_eq(from(0x4d450003, &reason), 3);
	ck_assert_int_eq(from(0x0000464d, &reason), 0x4d);
	ck_assert_uint_eq(reason, 0);
}
END_TEST

/* --exit-style qemu: QEMU's isa-debug-exit status, (V << 1) | 1. */
START_TEST(qemu_style)
{
	uint32_t reason = 7;

	ck_assert_int_eq(exit_status_qemu_style(0, &reason), 1);
	ck_assert_uint_eq(reason, 0);
	ck_assert_int_eq(exit_status_qemu_style(1, &reason), 3);
	ck_assert_int_eq(exit_status_qemu_style(38, &reason), 77);
	ck_assert_int_eq(exit_status_qemu_style(63, &reason), 127);
	ck_assert_int_eq(exit_status_qemu_style(0xff, &reason), 0xff);
	ck_assert_int_eq(exit_status_qemu_style(0x80, &reason), 1);
	ck_assert_int_eq(exit_status_qemu_style(ABI_FW_FAIL_MAGIC |
						ABI_FW_FAIL_CPUS, &reason),
			 EXIT_FIRMWARE);
	ck_assert_uint_eq(reason, ABI_FW_FAIL_CPUS);
}
END_TEST

START_TEST(firmware_failures)
{
	static const uint32_t reasons[] = {
		ABI_FW_FAIL_FDT, ABI_FW_FAIL_PAYLOAD, ABI_FW_FAIL_WINDOW,
		ABI_FW_FAIL_CPUS, ABI_FW_FAIL_MTRR, ABI_FW_FAIL_INTERNAL,
		0, 0xffff, 0x100,
	};
	uint32_t reason;

	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		ck_assert_int_eq(from(ABI_FW_FAIL_MAGIC | reasons[i], &reason),
				 EXIT_FIRMWARE);
		ck_assert_uint_eq(reason, reasons[i]);
	}
}
END_TEST

START_TEST(statuses_fit_a_byte)
{
	uint32_t reason;
	uint64_t bad = 0;

	for (uint64_t v = 0; v <= UINT32_MAX; v += 0x10001) {
		int s = from((uint32_t)v, &reason);

		if (s < 0 || s > 255)
			bad = v | 1ull << 32;
	}
	ck_assert_msg(!bad, "status out of range for 0x%llx",
		      (unsigned long long)(uint32_t)bad);
}
END_TEST

START_TEST(describe)
{
	static const int own[] = {
		EXIT_POWEROFF, EXIT_VMM_ERROR, EXIT_USAGE, EXIT_GUEST_RESET,
		EXIT_TRIPLE_FAULT, EXIT_EMULATION, EXIT_FIRMWARE,
		EXIT_USER_QUIT, EXIT_TIMEOUT,
	};
	const size_t n = sizeof(own) / sizeof(own[0]);

	/* Each of our own statuses has its own description. */
	for (size_t i = 0; i < n; i++) {
		const char *d = exit_status_describe(own[i]);

		ck_assert_ptr_nonnull(d);
		ck_assert_uint_gt(strlen(d), 3);
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(d, exit_status_describe(own[j]));
	}
	ck_assert(strstr(exit_status_describe(EXIT_TIMEOUT), "timeout"));
	ck_assert(strstr(exit_status_describe(EXIT_USER_QUIT), "Ctrl-A"));
	for (int sig = 1; sig < 32; sig++)
		ck_assert(strstr(exit_status_describe(EXIT_SIGNAL_BASE + sig),
				 "signal"));
	ck_assert(strstr(exit_status_describe(42), "test-exit"));
	ck_assert(strstr(exit_status_describe(255), "test-exit"));
	ck_assert_ptr_nonnull(exit_status_describe(-1));
	ck_assert_ptr_nonnull(exit_status_describe(100000));
}
END_TEST

static Suite *exit_status_suite(void)
{
	Suite *s = suite_create("exit_status");
	TCase *tc = tcase_create("map");

	tcase_add_test(tc, test_exit_values);
	tcase_add_test(tc, firmware_failures);
	tcase_add_test(tc, qemu_style);
	tcase_add_test(tc, statuses_fit_a_byte);
	tcase_add_test(tc, describe);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(exit_status_suite());
}
