// SPDX-License-Identifier: MIT
/* The page walker against page tables built in a guest-memory reservation
 * without KVM: 4 KiB, 2 MiB and 1 GiB leaves, 5-level paging, the
 * permission checks (WP, U/S, SMAP with and without AC), A/D updates, and
 * the refusals (not present, reserved PS, tables outside RAM, legacy
 * paging, non-canonical addresses). */
#include "tests/unit/unit.h"
#include "vmm/layout.h"
#include "vmm/x86/pagewalk.h"

#define P	0x1ull
#define RW	0x2ull
#define US	0x4ull
#define A	0x20ull
#define D	0x40ull
#define PS	0x80ull

#define CR0_PG	(1ull << 31)
#define CR0_WP	(1ull << 16)
#define CR4_LA57 (1ull << 12)
#define CR4_SMAP (1ull << 21)
#define EFER_LMA (1ull << 10)

/* Tables at 1 MiB: PML5 0x100000, PML4 0x101000, PDPT 0x102000,
 * PD 0x103000, PT 0x104000. */
#define T(n)	(0x100000ull + (n) * 0x1000ull)

static struct gmem mem;
static struct pw_cpu cpu;

static uint64_t *entry(uint64_t table, unsigned int idx)
{
	return gmem_ptr(&mem, table + idx * 8ull, 8);
}

/* la 0x40201000 (PML4 0, PDPT 1, PD 1, PT 1) -> 0x300000. */
#define LA	0x40201000ull

static void setup(void)
{
	ck_assert_int_eq(gmem_init(&mem, -1, 16 * MiB), 0);
	*entry(T(1), 0) = T(2) | P | RW | US;
	*entry(T(2), 1) = T(3) | P | RW | US;
	*entry(T(3), 1) = T(4) | P | RW | US;
	*entry(T(4), 1) = 0x300000 | P | RW;
	cpu = (struct pw_cpu){
		.cr0 = CR0_PG | CR0_WP | 1, .cr3 = T(1), .cr4 = 0,
		.efer = EFER_LMA, .cpl = 0,
	};
}

static void teardown(void)
{
	gmem_destroy(&mem);
}

static enum pw_result walk(uint64_t la, bool write, uint64_t *gpa,
			   uint32_t *err)
{
	*gpa = ~0ull;
	*err = ~0u;
	return pagewalk(&mem, &cpu, la, write, gpa, err);
}

START_TEST(four_level_4k)
{
	uint64_t gpa;
	uint32_t err;

	ck_assert_int_eq(walk(LA + 0x123, false, &gpa, &err), PW_OK);
	ck_assert_uint_eq(gpa, 0x300123);
	/* A on every level, D only after a write and only on the leaf. */
	ck_assert(*entry(T(1), 0) & A);
	ck_assert(*entry(T(4), 1) & A);
	ck_assert(!(*entry(T(4), 1) & D));
	ck_assert_int_eq(walk(LA + 8, true, &gpa, &err), PW_OK);
	ck_assert(*entry(T(4), 1) & D);
	ck_assert(!(*entry(T(3), 1) & D));
}
END_TEST

START_TEST(large_pages)
{
	uint64_t gpa;
	uint32_t err;

	/* 2 MiB leaf in PD[2] with the PAT bit (12) set: not address. */
	*entry(T(3), 2) = 0x600000 | P | RW | PS | 0x1000;
	ck_assert_int_eq(walk(0x40400000ull + 0x12345, true, &gpa, &err),
			 PW_OK);
	ck_assert_uint_eq(gpa, 0x600000 + 0x12345);
	ck_assert(*entry(T(3), 2) & D);
	/* 1 GiB leaf in PDPT[2]. */
	*entry(T(2), 2) = 0x40000000ull | P | RW | PS;
	ck_assert_int_eq(walk(0x80000000ull + 0x2345678, false, &gpa, &err),
			 PW_OK);
	ck_assert_uint_eq(gpa, 0x40000000ull + 0x2345678);
	/* PS in a PML4 entry is reserved. */
	*entry(T(1), 1) = 0x0 | P | RW | PS;
	ck_assert_int_eq(walk(1ull << 39, false, &gpa, &err), PW_FAULT);
	ck_assert_uint_eq(err, PF_PRESENT | PF_RSVD);
}
END_TEST

START_TEST(five_level)
{
	uint64_t gpa;
	uint32_t err;

	cpu.cr4 |= CR4_LA57;
	cpu.cr3 = T(0);
	*entry(T(0), 0) = T(1) | P | RW;
	ck_assert_int_eq(walk(LA, false, &gpa, &err), PW_OK);
	ck_assert_uint_eq(gpa, 0x300000);
	/* Canonical at 57 bits but not at 48: fine with LA57 only. */
	ck_assert_int_eq(walk(1ull << 48, false, &gpa, &err), PW_FAULT);
	cpu.cr4 &= ~CR4_LA57;
	cpu.cr3 = T(1);
	ck_assert_int_eq(walk(1ull << 48, false, &gpa, &err), PW_UNSUPPORTED);
}
END_TEST

START_TEST(not_present)
{
	uint64_t gpa;
	uint32_t err;

	ck_assert_int_eq(walk(LA + 0x1000, true, &gpa, &err), PW_FAULT);
	ck_assert_uint_eq(err, PF_WRITE);
	cpu.cpl = 3;
	ck_assert_int_eq(walk(LA + 0x1000, false, &gpa, &err), PW_FAULT);
	ck_assert_uint_eq(err, PF_USER);
	/* A fault sets no A bit on the way. */
	*entry(T(1), 0) &= ~A;
	ck_assert_int_eq(walk(LA + 0x1000, false, &gpa, &err), PW_FAULT);
	ck_assert(!(*entry(T(1), 0) & A));
}
END_TEST

START_TEST(write_protect)
{
	uint64_t gpa;
	uint32_t err;

	*entry(T(4), 1) &= ~RW;
	ck_assert_int_eq(walk(LA, false, &gpa, &err), PW_OK);
	ck_assert_int_eq(walk(LA, true, &gpa, &err), PW_FAULT);
	ck_assert_uint_eq(err, PF_PRESENT | PF_WRITE);
	ck_assert(!(*entry(T(4), 1) & D));
	/* CR0.WP clear: ring 0 writes through read-only pages. */
	cpu.cr0 &= ~CR0_WP;
	ck_assert_int_eq(walk(LA, true, &gpa, &err), PW_OK);
	/* RW cleared higher up counts too. */
	cpu.cr0 |= CR0_WP;
	*entry(T(4), 1) |= RW;
	*entry(T(2), 1) &= ~RW;
	ck_assert_int_eq(walk(LA, true, &gpa, &err), PW_FAULT);
}
END_TEST

START_TEST(user_and_smap)
{
	uint64_t gpa;
	uint32_t err;

	/* The leaf is supervisor-only: user access faults. */
	cpu.cpl = 3;
	ck_assert_int_eq(walk(LA, false, &gpa, &err), PW_FAULT);
	ck_assert_uint_eq(err, PF_PRESENT | PF_USER);
	*entry(T(4), 1) |= US;
	ck_assert_int_eq(walk(LA, true, &gpa, &err), PW_OK);
	/* Ring 0 on a user page: fine without SMAP, or with AC set. */
	cpu.cpl = 0;
	ck_assert_int_eq(walk(LA, true, &gpa, &err), PW_OK);
	cpu.cr4 |= CR4_SMAP;
	ck_assert_int_eq(walk(LA, true, &gpa, &err), PW_FAULT);
	ck_assert_uint_eq(err, PF_PRESENT | PF_WRITE);
	cpu.rflags |= 1ull << 18;
	ck_assert_int_eq(walk(LA, true, &gpa, &err), PW_OK);
}
END_TEST

START_TEST(unsupported)
{
	uint64_t gpa;
	uint32_t err;

	/* A table outside guest RAM. */
	*entry(T(3), 1) = 0xfee00000ull | P | RW;
	ck_assert_int_eq(walk(LA, false, &gpa, &err), PW_UNSUPPORTED);
	/* Legacy (non-long-mode) paging. */
	cpu.efer = 0;
	ck_assert_int_eq(walk(LA, false, &gpa, &err), PW_UNSUPPORTED);
	/* Paging off: linear is physical. */
	cpu.cr0 = 1;
	ck_assert_int_eq(walk(0x1234, false, &gpa, &err), PW_OK);
	ck_assert_uint_eq(gpa, 0x1234);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pagewalk");
	TCase *t = tcase_create("walk");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, four_level_4k);
	tcase_add_test(t, large_pages);
	tcase_add_test(t, five_level);
	tcase_add_test(t, not_present);
	tcase_add_test(t, write_protect);
	tcase_add_test(t, user_and_smap);
	tcase_add_test(t, unsupported);
	suite_add_tcase(s, t);
	return unit_run(s);
}
