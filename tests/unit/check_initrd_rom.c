// SPDX-License-Identifier: MIT
/* The initrd and firmware ROM loaders (vmm/boot/loader.c): initrd_load and
 * rom_load from temporary files into guest memory without KVM, with every
 * bad file they must refuse. */
#include "tests/unit/unit.h"
#include "vmm/layout.h"
#include "vmm/boot/loader.h"

#include <sys/mman.h>

static struct gmem mem;
static char path[PATH_MAX];

/* Temporary files are removed right after the call that reads them, so a
 * failing assertion (which ends the test at once) leaves none behind. */
static void setup(void)
{
	ck_assert_int_eq(gmem_init(&mem, -1, 256 * MiB), 0);
}

static void teardown(void)
{
	gmem_destroy(&mem);
}

/* ---- initrd ---- */

static int load_initrd(const char *file, struct payload *p,
		       struct capture *cap)
{
	int r;

	capture_start(cap, STDERR_FILENO);
	r = initrd_load(&mem, file, p);
	capture_end(cap);
	return r;
}

/* initrd_load from a temporary file of size bytes (data, or a hole). */
static int load_initrd_tmp(const void *data, off_t size, struct payload *p,
			   struct capture *cap)
{
	int r;

	if (data)
		tmpfile_with(path, data, (size_t)size);
	else
		tmpfile_sized(path, size);
	r = load_initrd(path, p, cap);
	unlink(path);
	return r;
}

START_TEST(initrd_basic)
{
	static uint8_t data[5000];
	struct payload p = { .kind = PAYLOAD_PVH, .entry = 0x100000,
			     .start = 0x100000, .size = 0x3000 };
	struct capture cap;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 13 + 5);
	ck_assert_msg(load_initrd_tmp(data, sizeof(data), &p, &cap) == 0, "%s",
		      cap.text);
	ck_assert_str_eq(cap.text, "");
	ck_assert_uint_eq(p.initrd_size, sizeof(data));
	ck_assert_uint_eq(p.initrd_start % 4096, 0);
	ck_assert_uint_ge(p.initrd_start, p.start + p.size);
	ck_assert_uint_le(p.initrd_start + p.initrd_size, mem.low_ram_end);
	ck_assert_mem_eq(gmem_ptr(&mem, p.initrd_start, sizeof(data)), data,
			 sizeof(data));
	ck_assert_uint_eq(p.entry, 0x100000);	/* payload untouched */
}
END_TEST

START_TEST(initrd_too_big)
{
	struct payload p = { 0 };
	struct capture cap;

	gmem_destroy(&mem);
	ck_assert_int_eq(gmem_init(&mem, -1, 32 * MiB), 0);
	/* More than RAM, all of RAM, dipping below 1 MiB. */
	ck_assert_int_eq(load_initrd_tmp(NULL, 32 * MiB + 1, &p, &cap), -1);
	assert_one_line(cap.text, "--initrd", path);
	ck_assert_int_eq(load_initrd_tmp(NULL, 32 * MiB, &p, &cap), -1);
	assert_one_line(cap.text, "--initrd", path);
	ck_assert_int_eq(load_initrd_tmp(NULL, 31 * MiB + 1, &p, &cap), -1);
	assert_one_line(cap.text, "--initrd", path);
	ck_assert_uint_eq(p.initrd_size, 0);
	/* Just fits. */
	ck_assert_msg(load_initrd_tmp(NULL, 31 * MiB, &p, &cap) == 0, "%s",
		      cap.text);
	ck_assert_uint_eq(p.initrd_start, 1 * MiB);
}
END_TEST

START_TEST(initrd_above_kernel)
{
	struct payload p = { .kind = PAYLOAD_PVH, .entry = 0x100000,
			     .start = 0x100000, .size = 200 * MiB };
	struct capture cap;

	/* 60 MiB would overlap the kernel; 40 MiB fits above it. */
	ck_assert_int_eq(load_initrd_tmp(NULL, 60 * MiB, &p, &cap), -1);
	assert_one_line(cap.text, "--initrd", "kernel");
	ck_assert_msg(load_initrd_tmp(NULL, 40 * MiB, &p, &cap) == 0, "%s",
		      cap.text);
	ck_assert_uint_ge(p.initrd_start, 201 * MiB);
}
END_TEST

START_TEST(initrd_bad_files)
{
	struct payload p = { 0 };
	struct capture cap;

	ck_assert_int_eq(load_initrd_tmp("", 0, &p, &cap), -1);
	assert_one_line(cap.text, "--initrd", path);
	ck_assert_int_eq(load_initrd("/nonexistent/initrd", &p, &cap), -1);
	assert_one_line(cap.text, "--initrd", "/nonexistent/initrd");
	ck_assert_int_eq(load_initrd(unit_tmpdir(), &p, &cap), -1);
	assert_one_line(cap.text, "--initrd", "regular file");
	ck_assert_uint_eq(p.initrd_size, 0);
}
END_TEST

/* ---- firmware ROM ---- */

static int load_rom(size_t len, struct rom *rom, struct capture *cap,
		    uint8_t **data)
{
	static uint8_t buf[LAYOUT_FW_MAX + 1];
	int r;

	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 3 + 7);
	tmpfile_with(path, buf, len);
	capture_start(cap, STDERR_FILENO);
	r = rom_load(&mem, path, rom);
	capture_end(cap);
	unlink(path);
	*data = buf;
	return r;
}

START_TEST(rom_basic)
{
	struct capture cap;
	struct rom rom;
	uint8_t *data;
	int n = mem.n;

	ck_assert_msg(load_rom(65536, &rom, &cap, &data) == 0, "%s", cap.text);
	ck_assert_str_eq(cap.text, "");
	ck_assert_uint_eq(rom.size, 65536);
	ck_assert_uint_eq(rom.gpa, 4 * GiB - 65536);
	ck_assert_int_eq(rom.region, n);
	ck_assert_int_eq(mem.n, n + 1);
	ck_assert(mem.regions[rom.region].readonly);
	ck_assert(!mem.regions[rom.region].is_ram);
	ck_assert_mem_eq(gmem_any_ptr(&mem, 4 * GiB - 16, 16),
			 data + 65536 - 16, 16);	/* reset vector */
	ck_assert_mem_eq(gmem_any_ptr(&mem, rom.gpa, 65536), data, 65536);
	ck_assert_ptr_null(gmem_ptr(&mem, 4 * GiB - 16, 16));
	/* Read-only on the host side too. */
	ck_assert_int_eq(poke_in_child(rom.host), SIGSEGV);
}
END_TEST

START_TEST(rom_padded_at_front)
{
	struct capture cap;
	struct rom rom;
	uint8_t *data;
	const uint8_t *p;

	ck_assert_msg(load_rom(5000, &rom, &cap, &data) == 0, "%s", cap.text);
	ck_assert_uint_eq(rom.size, 8192);
	ck_assert_uint_eq(rom.gpa, 4 * GiB - 8192);
	p = gmem_any_ptr(&mem, rom.gpa, 8192);
	ck_assert_ptr_nonnull(p);
	for (size_t i = 0; i < 8192 - 5000; i++)
		ck_assert_uint_eq(p[i], 0);
	ck_assert_mem_eq(p + 8192 - 5000, data, 5000);
}
END_TEST

START_TEST(rom_sizes)
{
	struct capture cap;
	struct rom rom;
	uint8_t *data;

	ck_assert_msg(load_rom(16, &rom, &cap, &data) == 0, "%s", cap.text);
	ck_assert_uint_eq(rom.size, 4096);
	ck_assert_mem_eq(gmem_any_ptr(&mem, 4 * GiB - 16, 16), data, 16);
	gmem_destroy(&mem);
	ck_assert_int_eq(gmem_init(&mem, -1, 4 * GiB), 0);	/* high RAM */
	ck_assert_msg(load_rom(LAYOUT_FW_MAX, &rom, &cap, &data) == 0, "%s",
		      cap.text);
	ck_assert_uint_eq(rom.gpa, 4 * GiB - LAYOUT_FW_MAX);
	ck_assert_ptr_nonnull(gmem_ptr(&mem, 4 * GiB, 1));
}
END_TEST

START_TEST(rom_bad_sizes)
{
	struct capture cap;
	struct rom rom;
	uint8_t *data;
	int n = mem.n;

	ck_assert_int_eq(load_rom(LAYOUT_FW_MAX + 1, &rom, &cap, &data), -1);
	assert_one_line(cap.text, "firmware", "too large");
	ck_assert_int_eq(load_rom(15, &rom, &cap, &data), -1);
	assert_one_line(cap.text, "firmware", "too small");
	ck_assert_int_eq(load_rom(0, &rom, &cap, &data), -1);
	assert_one_line(cap.text, "firmware", path);
	ck_assert_int_eq(mem.n, n);
}
END_TEST

START_TEST(rom_bad_files)
{
	struct capture cap;
	struct rom rom;

	capture_start(&cap, STDERR_FILENO);
	ck_assert_int_eq(rom_load(&mem, "/nonexistent/fw.bin", &rom), -1);
	capture_end(&cap);
	assert_one_line(cap.text, "firmware", "/nonexistent/fw.bin");
	capture_start(&cap, STDERR_FILENO);
	ck_assert_int_eq(rom_load(&mem, unit_tmpdir(), &rom), -1);
	capture_end(&cap);
	assert_one_line(cap.text, "firmware", "regular file");
	ck_assert_int_eq(mem.n, 1);
}
END_TEST

static Suite *initrd_rom_suite(void)
{
	Suite *s = suite_create("initrd_rom");
	TCase *tc = tcase_create("initrd");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, initrd_basic);
	tcase_add_test(tc, initrd_too_big);
	tcase_add_test(tc, initrd_above_kernel);
	tcase_add_test(tc, initrd_bad_files);
	suite_add_tcase(s, tc);

	tc = tcase_create("rom");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, rom_basic);
	tcase_add_test(tc, rom_padded_at_front);
	tcase_add_test(tc, rom_sizes);
	tcase_add_test(tc, rom_bad_sizes);
	tcase_add_test(tc, rom_bad_files);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(initrd_rom_suite());
}
