// SPDX-License-Identifier: MIT
/* The boot page tables the VMM writes (vmm/boot/boot_pt.c) walked as the
 * CPU walks them (vmm/x86/pagewalk.c): identity 0..4 GiB, the top 1 GiB
 * alias of 3..4 GiB the firmware's 64-bit code runs at, nothing else;
 * user access allowed (the firmware's ring-3 calls); no walk writes an
 * entry (A/D preset: nested paging must never see a write it could not
 * do); a range that is not RAM is refused. */
#include "tests/unit/unit.h"
#include "firmware/lib/abi.h"
#include "vmm/boot/boot_pt.h"
#include "vmm/layout.h"
#include "vmm/x86/pagewalk.h"

#define CR0_PG		(1ull << 31)
#define CR0_WP		(1ull << 16)
#define EFER_LMA	(1ull << 10)
#define PT_SIZE		(ABI_BOOT_PT_END - ABI_BOOT_PT_BASE)

static struct gmem mem;

static void setup(void)
{
	ck_assert_int_eq(gmem_init(&mem, -1, 16 * MiB), 0);
}

static void teardown(void)
{
	gmem_destroy(&mem);
}

static enum pw_result walk(uint64_t la, unsigned int cpl, bool write,
			   uint64_t *gpa)
{
	const struct pw_cpu cpu = {
		.cr0 = CR0_PG | CR0_WP | 1, .cr3 = ABI_BOOT_PT_BASE,
		.efer = EFER_LMA, .cpl = cpl,
	};
	uint32_t err;

	*gpa = ~0ull;
	return pagewalk(&mem, &cpu, la, write, gpa, &err);
}

static void maps(uint64_t la, uint64_t want)
{
	uint64_t gpa;

	for (unsigned int cpl = 0; cpl <= 3; cpl += 3) {
		ck_assert_int_eq(walk(la, cpl, false, &gpa), PW_OK);
		ck_assert_uint_eq(gpa, want);
		ck_assert_int_eq(walk(la, cpl, true, &gpa), PW_OK);
		ck_assert_uint_eq(gpa, want);
	}
}

START_TEST(layout)
{
	uint64_t gpa;

	ck_assert_int_eq(boot_pt_write(&mem), 0);
	maps(0, 0);
	maps(0x12345678, 0x12345678);
	maps(ABI_BOOT_PT_BASE + 8, ABI_BOOT_PT_BASE + 8);
	maps(0xfffffff0, 0xfffffff0);			/* reset vector */
	maps(0xffffffffc0000000ull, 0xc0000000);	/* the ROM alias */
	maps(0xfffffffffffe03b2ull, 0xfffe03b2);
	ck_assert_int_eq(walk(4ull << 30, 0, false, &gpa), PW_FAULT);
	ck_assert_int_eq(walk(0xffffffff80000000ull, 0, false, &gpa),
			 PW_FAULT);
	ck_assert_int_eq(walk(1ull << 39, 0, false, &gpa), PW_FAULT);
}
END_TEST

START_TEST(never_written)
{
	static uint8_t before[PT_SIZE];
	uint8_t *pt = gmem_ptr(&mem, ABI_BOOT_PT_BASE, PT_SIZE);
	uint64_t gpa;

	ck_assert_int_eq(boot_pt_write(&mem), 0);
	memcpy(before, pt, PT_SIZE);
	for (uint64_t la = 0; la < 4ull << 30; la += 0x1234567)
		ck_assert_int_eq(walk(la, 3, true, &gpa), PW_OK);
	for (uint64_t la = 0xffffffffc0000000ull; la != 0; la += 0x1234567)
		if (walk(la, 0, true, &gpa) != PW_OK)
			break;
	ck_assert_int_eq(memcmp(before, pt, PT_SIZE), 0);
}
END_TEST

START_TEST(rewrite)
{
	uint8_t *pt = gmem_ptr(&mem, ABI_BOOT_PT_BASE, PT_SIZE);
	uint64_t gpa;

	memset(pt, 0xff, PT_SIZE);
	ck_assert_int_eq(boot_pt_write(&mem), 0);
	maps(0x200000, 0x200000);
	ck_assert_int_eq(walk(1ull << 39, 0, false, &gpa), PW_FAULT);
}
END_TEST

START_TEST(no_ram)
{
	struct gmem small;
	struct capture c;

	ck_assert_int_eq(gmem_init(&small, -1, 0x20000), 0);
	capture_start(&c, 2);
	ck_assert_int_eq(boot_pt_write(&small), -1);
	ck_assert_ptr_nonnull(strstr(capture_end(&c), "boot page tables"));
	gmem_destroy(&small);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("boot_pt");
	TCase *t = tcase_create("tables");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, layout);
	tcase_add_test(t, never_written);
	tcase_add_test(t, rewrite);
	tcase_add_test(t, no_ram);
	suite_add_tcase(s, t);
	return unit_run(s);
}
