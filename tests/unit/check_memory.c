// SPDX-License-Identifier: MIT
/* Guest memory without KVM (vm_fd = -1): the bounds of every translation,
 * the split of RAM around the 32-bit hole, guard pages, and regions. */
#include "tests/unit/unit.h"
#include "vmm/layout.h"
#include "vmm/memory.h"

#include <errno.h>
#include <sys/mman.h>

static struct gmem mem;

static void setup_256m(void)
{
	ck_assert_int_eq(gmem_init(&mem, -1, 256 * MiB), 0);
}

static void setup_4g(void)
{
	ck_assert_int_eq(gmem_init(&mem, -1, 4 * GiB), 0);
}

static void teardown(void)
{
	gmem_destroy(&mem);
}

/* A page-aligned host buffer for a non-RAM region. */
static uint8_t *host_pages(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert(p != MAP_FAILED);
	return p;
}

/* Permissions ("rw-p", "---p"...) of the host mapping holding addr, or ""
 * if none does. */
static const char *host_prot(const void *addr, char perms[5])
{
	uintptr_t a = (uintptr_t)addr;
	unsigned long lo, hi;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	ck_assert_ptr_nonnull(f);
	perms[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 &&
		    a >= lo && a < hi)
			break;
		perms[0] = '\0';
	}
	fclose(f);
	return perms;
}

START_TEST(init_small)
{
	ck_assert_int_eq(mem.vm_fd, -1);
	ck_assert_uint_eq(mem.ram_size, 256 * MiB);
	ck_assert_uint_eq(mem.low_ram_end, 256 * MiB);
	ck_assert_uint_eq(mem.high_ram_end, 4 * GiB);	/* no high RAM */
	ck_assert_int_eq(mem.n, 1);
	ck_assert(mem.regions[0].is_ram);
	ck_assert(mem.regions[0].mapped);
	ck_assert_uint_eq(mem.regions[0].gpa, 0);
	ck_assert_uint_eq(mem.regions[0].size, 256 * MiB);
}
END_TEST

START_TEST(ptr_bounds)
{
	const uint64_t end = 256 * MiB;
	uint8_t *base = gmem_ptr(&mem, 0, 1);

	ck_assert_ptr_nonnull(base);
	ck_assert_ptr_eq(gmem_ptr(&mem, 0, end), base);
	ck_assert_ptr_eq(gmem_ptr(&mem, 0x1234, 16), base + 0x1234);
	ck_assert_ptr_eq(gmem_ptr(&mem, end - 1, 1), base + end - 1);
	ck_assert_ptr_eq(gmem_ptr(&mem, end - 4096, 4096), base + end - 4096);
	ck_assert_ptr_null(gmem_ptr(&mem, end - 1, 2));
	ck_assert_ptr_null(gmem_ptr(&mem, end, 1));
	ck_assert_ptr_null(gmem_ptr(&mem, 0, end + 1));
	ck_assert_ptr_null(gmem_ptr(&mem, 1, end));
	ck_assert_ptr_null(gmem_ptr(&mem, 4 * GiB, 1));
}
END_TEST

START_TEST(ptr_zero_and_wrap)
{
	ck_assert_ptr_null(gmem_ptr(&mem, 0, 0));
	ck_assert_ptr_null(gmem_ptr(&mem, 0x1000, 0));
	ck_assert_ptr_null(gmem_ptr(&mem, UINT64_MAX, 1));
	ck_assert_ptr_null(gmem_ptr(&mem, UINT64_MAX, 2));	/* wraps to 0 */
	ck_assert_ptr_null(gmem_ptr(&mem, UINT64_MAX - 0xfff, 0x2000));
	ck_assert_ptr_null(gmem_ptr(&mem, 0x10, UINT64_MAX));
	ck_assert_ptr_null(gmem_ptr(&mem, 1, UINT64_MAX));
	ck_assert_ptr_null(gmem_ptr(&mem, 0, UINT64_MAX));
	ck_assert_ptr_null(gmem_any_ptr(&mem, UINT64_MAX - 0xfff, 0x2000));
	ck_assert_ptr_null(gmem_any_ptr(&mem, 0x10, UINT64_MAX));
}
END_TEST

START_TEST(read_write)
{
	uint8_t buf[64], back[64];
	const uint64_t end = 256 * MiB;

	for (int i = 0; i < 64; i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	ck_assert_int_eq(gmem_write(&mem, 0x5000, buf, 64), 0);
	ck_assert_mem_eq(gmem_ptr(&mem, 0x5000, 64), buf, 64);
	ck_assert_int_eq(gmem_read(&mem, 0x5000, back, 64), 0);
	ck_assert_mem_eq(back, buf, 64);
	ck_assert_int_eq(gmem_write(&mem, end - 64, buf, 64), 0);
	/* Past the end: refused, and nothing is written. */
	memset(gmem_ptr(&mem, end - 32, 32), 0, 32);
	ck_assert_int_eq(gmem_write(&mem, end - 32, buf, 64), -1);
	ck_assert_int_eq(gmem_read(&mem, end - 32, back, 64), -1);
	for (int i = 0; i < 32; i++)
		ck_assert_uint_eq(((uint8_t *)gmem_ptr(&mem, end - 32, 32))[i],
				  0);
	ck_assert_int_eq(gmem_read(&mem, UINT64_MAX - 8, back, 16), -1);
}
END_TEST

START_TEST(guard_pages_small)
{
	const uint64_t end = 256 * MiB;
	uint8_t *last = gmem_ptr(&mem, end - 1, 1);
	uint8_t *first = gmem_ptr(&mem, 0, 1);
	char perms[5];

	ck_assert_ptr_nonnull(last);
	ck_assert_str_eq(host_prot(last, perms), "rw-p");
	ck_assert_str_eq(host_prot(last + 1, perms), "---p");
	ck_assert_str_eq(host_prot(first, perms), "rw-p");
	ck_assert_str_eq(host_prot(first - 1, perms), "---p");
	/* One byte past the end really faults (and the last one does not). */
	ck_assert_int_eq(poke_in_child(last), 0);
	ck_assert_int_eq(poke_in_child(last + 1), SIGSEGV);
	ck_assert_int_eq(poke_in_child(first - 1), SIGSEGV);
}
END_TEST

START_TEST(init_above_3g)
{
	ck_assert_uint_eq(mem.ram_size, 4 * GiB);
	ck_assert_uint_eq(mem.low_ram_end, 3 * GiB);
	ck_assert_uint_eq(mem.high_ram_end, 5 * GiB);
	ck_assert_int_eq(mem.n, 2);
	ck_assert(mem.regions[1].is_ram);
	ck_assert_uint_eq(mem.regions[1].gpa, 4 * GiB);
	ck_assert_uint_eq(mem.regions[1].size, 1 * GiB);
	ck_assert_uint_ne(mem.regions[0].slot, mem.regions[1].slot);
}
END_TEST

START_TEST(ptr_bounds_above_3g)
{
	const uint64_t low = 3 * GiB, high = 5 * GiB;

	ck_assert_ptr_nonnull(gmem_ptr(&mem, low - 1, 1));
	ck_assert_ptr_null(gmem_ptr(&mem, low - 1, 2));	/* into the hole */
	ck_assert_ptr_null(gmem_ptr(&mem, low, 1));
	ck_assert_ptr_null(gmem_ptr(&mem, LAYOUT_ECAM_BASE, 4));
	ck_assert_ptr_null(gmem_ptr(&mem, 4 * GiB - 1, 1));
	ck_assert_ptr_null(gmem_ptr(&mem, 4 * GiB - 1, 2));	/* into high */
	ck_assert_ptr_nonnull(gmem_ptr(&mem, 4 * GiB, 1));
	ck_assert_ptr_nonnull(gmem_ptr(&mem, 4 * GiB, 1 * GiB));
	ck_assert_ptr_nonnull(gmem_ptr(&mem, high - 1, 1));
	ck_assert_ptr_null(gmem_ptr(&mem, high - 1, 2));
	ck_assert_ptr_null(gmem_ptr(&mem, high, 1));
	ck_assert_ptr_null(gmem_ptr(&mem, 0, 4 * GiB));	/* spans the hole */
	ck_assert_ptr_eq((uint8_t *)gmem_ptr(&mem, 4 * GiB + 4096, 1),
			 (uint8_t *)gmem_ptr(&mem, 4 * GiB, 1) + 4096);
}
END_TEST

START_TEST(read_write_above_3g)
{
	uint32_t v = 0xdeadbeef, back = 0;

	ck_assert_int_eq(gmem_write(&mem, 5 * GiB - 4, &v, 4), 0);
	ck_assert_int_eq(gmem_read(&mem, 5 * GiB - 4, &back, 4), 0);
	ck_assert_uint_eq(back, v);
	ck_assert_int_eq(gmem_write(&mem, 3 * GiB - 2, &v, 4), -1);
	/* Low and high are distinct memory. */
	ck_assert_int_eq(gmem_write(&mem, 4 * GiB, &v, 4), 0);
	ck_assert_int_eq(gmem_read(&mem, 0, &back, 4), 0);
	ck_assert_uint_ne(back, v);
}
END_TEST

START_TEST(guard_pages_above_3g)
{
	uint8_t *low_last = gmem_ptr(&mem, 3 * GiB - 1, 1);
	uint8_t *high_first = gmem_ptr(&mem, 4 * GiB, 1);
	uint8_t *high_last = gmem_ptr(&mem, 5 * GiB - 1, 1);
	char perms[5];

	ck_assert_str_eq(host_prot(low_last + 1, perms), "---p");
	ck_assert_str_eq(host_prot(high_first - 1, perms), "---p");
	ck_assert_str_eq(host_prot(high_last, perms), "rw-p");
	ck_assert_str_eq(host_prot(high_last + 1, perms), "---p");
	ck_assert_int_eq(poke_in_child(low_last + 1), SIGSEGV);
	ck_assert_int_eq(poke_in_child(high_last + 1), SIGSEGV);
	ck_assert_int_eq(poke_in_child(high_last), 0);
}
END_TEST

START_TEST(init_exactly_3g)
{
	struct gmem m;

	ck_assert_int_eq(gmem_init(&m, -1, 3 * GiB), 0);
	ck_assert_int_eq(m.n, 1);
	ck_assert_uint_eq(m.low_ram_end, 3 * GiB);
	ck_assert_uint_eq(m.high_ram_end, 4 * GiB);
	ck_assert_ptr_null(gmem_ptr(&m, 4 * GiB, 1));
	gmem_destroy(&m);
}
END_TEST

START_TEST(init_too_big)
{
	struct gmem m;

	errno = 0;
	ck_assert_int_eq(gmem_init(&m, -1, UINT64_MAX), -1);
	ck_assert_int_eq(errno, ENOMEM);
	errno = 0;
	ck_assert_int_eq(gmem_init(&m, -1, UINT64_MAX - 4 * MiB), -1);
	ck_assert_int_eq(errno, ENOMEM);
	errno = 0;
	ck_assert_int_eq(gmem_init(&m, -1, 1ull << 62), -1);
	ck_assert_int_eq(errno, ENOMEM);
}
END_TEST

START_TEST(destroy)
{
	struct gmem m;

	ck_assert_int_eq(gmem_init(&m, -1, 16 * MiB), 0);
	gmem_destroy(&m);
	ck_assert_ptr_null(gmem_ptr(&m, 0, 1));
	gmem_destroy(&m);	/* twice is harmless */
}
END_TEST

START_TEST(rom_region)
{
	const uint64_t gpa = 4 * GiB - 8192;
	uint8_t *rom = host_pages(8192);
	int idx;

	rom[8191] = 0x5a;
	idx = gmem_add_region(&mem, gpa, 8192, rom, true, "rom");
	ck_assert_int_eq(idx, 1);
	ck_assert(mem.regions[idx].readonly);
	ck_assert(!mem.regions[idx].is_ram);
	ck_assert(mem.regions[idx].mapped);
	ck_assert_uint_ne(mem.regions[idx].slot, mem.regions[0].slot);
	/* Not RAM: only the VMM-internal lookup reaches it. */
	ck_assert_ptr_null(gmem_ptr(&mem, gpa, 1));
	ck_assert_ptr_null(gmem_ptr(&mem, 4 * GiB - 1, 1));
	ck_assert_ptr_eq(gmem_any_ptr(&mem, gpa, 8192), rom);
	ck_assert_ptr_eq(gmem_any_ptr(&mem, 4 * GiB - 1, 1), rom + 8191);
	ck_assert_ptr_null(gmem_any_ptr(&mem, 4 * GiB - 1, 2));
	ck_assert_ptr_null(gmem_any_ptr(&mem, gpa - 1, 2));
	ck_assert_int_eq(gmem_read(&mem, 4 * GiB - 1, rom, 1), -1);
	/* RAM is still reachable both ways. */
	ck_assert_ptr_eq(gmem_any_ptr(&mem, 0x1000, 1),
			 gmem_ptr(&mem, 0x1000, 1));
	ck_assert(gmem_overlaps(&mem, 4 * GiB - 1, 1));
	ck_assert(!gmem_overlaps(&mem, 256 * MiB, 4 * GiB - 8192 - 256 * MiB));
}
END_TEST

START_TEST(add_region_rejects)
{
	uint8_t *h = host_pages(3 * 4096);

	errno = 0;
	ck_assert_int_eq(gmem_add_region(&mem, 0x10000000, 4096, h + 1, true,
					 "x"), -1);	/* host misaligned */
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(gmem_add_region(&mem, 0x10000100, 4096, h, true, "x"),
			 -1);			/* gpa misaligned */
	ck_assert_int_eq(gmem_add_region(&mem, 0x10000000, 100, h, true, "x"),
			 -1);			/* size misaligned */
	ck_assert_int_eq(gmem_add_region(&mem, 0x10000000, 0, h, true, "x"),
			 -1);
	ck_assert_int_eq(gmem_add_region(&mem, 0xff000, 4096, h, true, "x"),
			 -1);			/* inside RAM */
	ck_assert_int_eq(gmem_add_region(&mem, 256 * MiB - 4096, 8192, h, true,
					 "x"), -1);	/* straddles RAM end */
	ck_assert_int_eq(gmem_add_region(&mem, UINT64_MAX - 4095, 8192, h,
					 true, "x"), -1);	/* wraps */
	ck_assert_int_eq(mem.n, 1);
	ck_assert_int_eq(gmem_add_region(&mem, 256 * MiB, 4096, h, true, "x"),
			 1);			/* touching RAM is fine */
	ck_assert_int_eq(gmem_add_region(&mem, 256 * MiB, 4096, h + 4096,
					 false, "y"), -1);
}
END_TEST

START_TEST(add_region_table_full)
{
	uint8_t *h = host_pages(4096);
	int i;

	for (i = mem.n; i < GMEM_MAX_REGIONS; i++)
		ck_assert_int_eq(gmem_add_region(&mem, 0x20000000 +
						 (uint64_t)i * 4096, 4096, h,
						 false, "r"), i);
	errno = 0;
	ck_assert_int_eq(gmem_add_region(&mem, 0x30000000, 4096, h, false, "r"),
			 -1);
	ck_assert_int_eq(errno, ENOSPC);
	ck_assert_int_eq(mem.n, GMEM_MAX_REGIONS);
}
END_TEST

START_TEST(place_region)
{
	uint8_t *h = host_pages(8192);
	const uint64_t a = 0x40000000, b = 0x50000000;
	int idx = gmem_add_region(&mem, a, 8192, h, false, "bar");

	ck_assert_int_ge(idx, 0);
	ck_assert_int_eq(gmem_place_region(&mem, idx, b, true), 0);
	ck_assert_ptr_null(gmem_any_ptr(&mem, a, 1));
	ck_assert_ptr_eq(gmem_any_ptr(&mem, b + 4096, 1), h + 4096);
	ck_assert_uint_eq(mem.regions[idx].gpa, b);
	/* Unmapped: unreachable, and no longer in the way. */
	ck_assert_int_eq(gmem_place_region(&mem, idx, b, false), 0);
	ck_assert(!mem.regions[idx].mapped);
	ck_assert_ptr_null(gmem_any_ptr(&mem, b, 1));
	ck_assert(!gmem_overlaps(&mem, b, 8192));
	ck_assert_int_eq(gmem_add_region(&mem, b, 4096, h, false, "other"),
			 idx + 1);
	/* ... so mapping it back over "other" is refused, and it stays out. */
	ck_assert_int_eq(gmem_place_region(&mem, idx, b, true), -1);
	ck_assert(!mem.regions[idx].mapped);
	ck_assert_int_eq(gmem_place_region(&mem, idx, a, true), 0);
	ck_assert(mem.regions[idx].mapped);
	ck_assert_ptr_eq(gmem_any_ptr(&mem, a, 1), h);
	/* Sliding over its own current place is allowed. */
	ck_assert_int_eq(gmem_place_region(&mem, idx, a + 4096, true), 0);
	ck_assert_ptr_eq(gmem_any_ptr(&mem, a + 4096, 1), h);
	ck_assert_ptr_null(gmem_any_ptr(&mem, a, 1));
}
END_TEST

START_TEST(add_unmapped)
{
	uint8_t *h = host_pages(8192);
	const uint64_t a = 0x40000000;
	int idx = gmem_add_unmapped(&mem, 8192, h, "bar");

	ck_assert_int_ge(idx, 0);
	ck_assert(!mem.regions[idx].mapped);
	/* Nothing of it is reachable: address 0 is still guest RAM. */
	ck_assert_ptr_ne(gmem_any_ptr(&mem, 0, 1), h);
	ck_assert(!gmem_overlaps(&mem, a, 8192));
	ck_assert_int_eq(gmem_place_region(&mem, idx, a, true), 0);
	ck_assert(gmem_overlaps(&mem, a, 8192));
	ck_assert_ptr_eq(gmem_any_ptr(&mem, a + 4096, 1), h + 4096);
	/* Same size and alignment rules as gmem_add_region. */
	ck_assert_int_eq(gmem_add_unmapped(&mem, 100, h, "x"), -1);
	ck_assert_int_eq(gmem_add_unmapped(&mem, 4096, h + 1, "x"), -1);
	ck_assert_int_eq(gmem_add_unmapped(&mem, 0, h, "x"), -1);
}
END_TEST

START_TEST(place_region_rejects)
{
	uint8_t *h = host_pages(8192);
	const uint64_t a = 0x40000000;
	int idx = gmem_add_region(&mem, a, 8192, h, false, "bar");

	ck_assert_int_ge(idx, 0);
	/* Over RAM, misaligned, wrapping; RAM itself never moves. */
	ck_assert_int_eq(gmem_place_region(&mem, idx, 0x1000, true), -1);
	ck_assert_int_eq(gmem_place_region(&mem, idx, a + 1, true), -1);
	ck_assert_int_eq(gmem_place_region(&mem, idx, UINT64_MAX - 4095, true),
			 -1);
	ck_assert_int_eq(gmem_place_region(&mem, 0, 0x80000000, true), -1);
	ck_assert_int_eq(gmem_place_region(&mem, 0, 0, false), -1);
	ck_assert_int_eq(gmem_place_region(&mem, -1, a, true), -1);
	ck_assert_int_eq(gmem_place_region(&mem, mem.n, a, true), -1);
	ck_assert_int_eq(gmem_place_region(&mem, GMEM_MAX_REGIONS, a, true),
			 -1);
	/* Every failure left it where it was. */
	ck_assert_uint_eq(mem.regions[idx].gpa, a);
	ck_assert(mem.regions[idx].mapped);
	ck_assert_ptr_eq(gmem_any_ptr(&mem, a, 1), h);
	ck_assert_ptr_nonnull(gmem_ptr(&mem, 0, 256 * MiB));
}
END_TEST

static Suite *memory_suite(void)
{
	Suite *s = suite_create("memory");
	TCase *tc = tcase_create("small");

	tcase_add_checked_fixture(tc, setup_256m, teardown);
	tcase_add_test(tc, init_small);
	tcase_add_test(tc, ptr_bounds);
	tcase_add_test(tc, ptr_zero_and_wrap);
	tcase_add_test(tc, read_write);
	tcase_add_test(tc, guard_pages_small);
	tcase_add_test(tc, rom_region);
	tcase_add_test(tc, add_region_rejects);
	tcase_add_test(tc, add_region_table_full);
	tcase_add_test(tc, place_region);
	tcase_add_test(tc, add_unmapped);
	tcase_add_test(tc, place_region_rejects);
	suite_add_tcase(s, tc);

	tc = tcase_create("large");	/* MAP_NORESERVE: cheap */
	tcase_add_checked_fixture(tc, setup_4g, teardown);
	tcase_add_test(tc, init_above_3g);
	tcase_add_test(tc, ptr_bounds_above_3g);
	tcase_add_test(tc, read_write_above_3g);
	tcase_add_test(tc, guard_pages_above_3g);
	suite_add_tcase(s, tc);

	tc = tcase_create("init");
	tcase_add_test(tc, init_exactly_3g);
	tcase_add_test(tc, init_too_big);
	tcase_add_test(tc, destroy);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(memory_suite());
}
