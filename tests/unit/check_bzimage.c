// SPDX-License-Identifier: MIT
/* The bzImage setup-header parser on crafted headers: a valid 6.1-like
 * header, then each field it checks broken in turn (magic, version, jump,
 * setup_sects, syssize/truncation, XLF_KERNEL_64, alignment, init_size,
 * pref_address, cmdline_size, initrd_addr_max); then kernel and initrd
 * placement against RAM limits. */
#include "tests/unit/unit.h"
#include "firmware/lib/le.h"
#include "vmm/boot/bzimage.h"

#define SETUP_SECTS	3
#define KOFF		((SETUP_SECTS + 1) * 512)
#define KSIZE		0x2000
#define IMG_LEN		(KOFF + KSIZE)

static uint8_t img[IMG_LEN + 512];
static struct bzimage bz;
static char err[BZIMAGE_ERR_MAX];

/* Linux 6.1's values, scaled down. */
static void build(void)
{
	memset(img, 0, sizeof(img));
	img[BZ_SETUP_SECTS] = SETUP_SECTS;
	le32_put(img + BZ_SYSSIZE, KSIZE / 16);
	le16_put(img + BZ_BOOT_FLAG, 0xaa55);
	img[BZ_JUMP] = 0xeb;
	img[BZ_JUMP + 1] = 0x6a;		/* header ends at 0x26c */
	memcpy(img + BZ_HEADER, "HdrS", 4);
	le16_put(img + BZ_VERSION, 0x020f);
	img[BZ_LOADFLAGS] = 0x01;
	le32_put(img + BZ_INITRD_ADDR_MAX, 0x7fffffff);
	le32_put(img + BZ_KERNEL_ALIGNMENT, 0x200000);
	img[BZ_RELOCATABLE] = 1;
	img[BZ_MIN_ALIGNMENT] = 21;
	le16_put(img + BZ_XLOADFLAGS, 0x7f);
	le32_put(img + BZ_CMDLINE_SIZE, 2047);
	le64_put(img + BZ_PREF_ADDRESS, 0x1000000);
	le32_put(img + BZ_INIT_SIZE, 0x3000000);
	for (size_t i = KOFF; i < IMG_LEN; i++)
		img[i] = (uint8_t)(i * 13);
}

static int parse(size_t len)
{
	err[0] = 0;
	return bzimage_parse(img, len, &bz, err);
}

static void expect_error(size_t len, const char *what)
{
	ck_assert_int_eq(parse(len), -1);
	ck_assert_msg(strstr(err, what), "error '%s' lacks '%s'", err, what);
}

START_TEST(valid)
{
	build();
	ck_assert(bzimage_probe(img, IMG_LEN));
	ck_assert_int_eq(parse(IMG_LEN), 0);
	ck_assert_uint_eq(bz.version, 0x020f);
	ck_assert_uint_eq(bz.kernel_offset, KOFF);
	ck_assert_uint_eq(bz.kernel_size, KSIZE);
	ck_assert_uint_eq(bz.init_size, 0x3000000);
	ck_assert_uint_eq(bz.pref_address, 0x1000000);
	ck_assert_uint_eq(bz.kernel_alignment, 0x200000);
	ck_assert(bz.relocatable);
	ck_assert_uint_eq(bz.cmdline_size, 2047);
	ck_assert_uint_eq(bz.initrd_addr_max, 0x7fffffff);
	ck_assert_uint_eq(bz.hdr_len, 0x26c - 0x1f1);
	ck_assert_mem_eq(bz.hdr, img + 0x1f1, bz.hdr_len);
	/* setup_sects 0 means 4. */
	img[BZ_SETUP_SECTS] = 0;
	le32_put(img + BZ_SYSSIZE, (KSIZE - 512) / 16);
	ck_assert_int_eq(parse(IMG_LEN), 0);
	ck_assert_uint_eq(bz.kernel_offset, 5 * 512);
	ck_assert_uint_eq(bz.kernel_size, IMG_LEN - 5 * 512);
}
END_TEST

START_TEST(not_a_bzimage)
{
	build();
	img[BZ_HEADER] = 'X';
	ck_assert(!bzimage_probe(img, IMG_LEN));
	expect_error(IMG_LEN, "not a bzImage");
	build();
	le16_put(img + BZ_BOOT_FLAG, 0x55aa);
	expect_error(IMG_LEN, "not a bzImage");
	build();
	expect_error(0x100, "not a bzImage");		/* before HdrS */
	expect_error(0x240, "truncated inside the setup header");
	/* An ELF file is not a bzImage. */
	memcpy(img, "\x7f" "ELF", 4);
	memset(img + 4, 0, 0x300);
	ck_assert(!bzimage_probe(img, IMG_LEN));
}
END_TEST

START_TEST(old_or_odd_header)
{
	build();
	le16_put(img + BZ_VERSION, 0x020b);
	expect_error(IMG_LEN, "older than 2.12");
	build();
	img[BZ_JUMP] = 0xe9;
	expect_error(IMG_LEN, "short jump");
	build();
	img[BZ_JUMP + 1] = 0x10;		/* ends before init_size */
	expect_error(IMG_LEN, "setup header ends at");
	build();
	img[BZ_JUMP + 1] = 0x90;		/* past boot_params' room */
	expect_error(IMG_LEN, "setup header ends at");
	/* The file ends inside the header the jump announces. */
	build();
	img[BZ_JUMP + 1] = 0x8d;		/* ends at 0x28f */
	expect_error(0x270, "truncated inside the setup header");
}
END_TEST

START_TEST(truncated_kernel)
{
	build();
	expect_error(IMG_LEN - 16, "truncated");
	expect_error(KOFF, "truncated");
	expect_error(KOFF - 100, "truncated");
	/* syssize 0 is no kernel. */
	le32_put(img + BZ_SYSSIZE, 0);
	expect_error(IMG_LEN, "truncated");
	/* Trailing bytes are fine (and loaded). */
	build();
	ck_assert_int_eq(parse(IMG_LEN + 512), 0);
	ck_assert_uint_eq(bz.kernel_size, KSIZE + 512);
}
END_TEST

START_TEST(fields)
{
	build();
	le16_put(img + BZ_XLOADFLAGS, 0x7e);
	expect_error(IMG_LEN, "XLF_KERNEL_64");
	build();
	le32_put(img + BZ_KERNEL_ALIGNMENT, 0x300000);
	expect_error(IMG_LEN, "kernel_alignment");
	build();
	le32_put(img + BZ_KERNEL_ALIGNMENT, 0);
	expect_error(IMG_LEN, "kernel_alignment");
	build();
	le32_put(img + BZ_INIT_SIZE, KSIZE - 1);
	expect_error(IMG_LEN, "init_size");
	build();
	le64_put(img + BZ_PREF_ADDRESS, 0);
	expect_error(IMG_LEN, "pref_address");
	build();
	le64_put(img + BZ_PREF_ADDRESS, 0x1000010);
	expect_error(IMG_LEN, "pref_address");
	build();
	le64_put(img + BZ_PREF_ADDRESS, ~0ull - 0xfff);
	expect_error(IMG_LEN, "pref_address");
	build();
	le32_put(img + BZ_CMDLINE_SIZE, 0);
	expect_error(IMG_LEN, "cmdline_size");
	build();
	le32_put(img + BZ_INITRD_ADDR_MAX, 0);
	expect_error(IMG_LEN, "initrd_addr_max");
}
END_TEST

START_TEST(place_kernel)
{
	uint64_t at = 0;

	build();
	ck_assert_int_eq(parse(IMG_LEN), 0);
	/* pref_address when it fits, exactly to the end of RAM too. */
	ck_assert_int_eq(bzimage_place_kernel(&bz, 0x100000, 0x4000000, &at,
					      err), 0);
	ck_assert_uint_eq(at, 0x1000000);
	ck_assert_int_eq(bzimage_place_kernel(&bz, 0x100000, 0x4000000 - 1,
					      &at, err), 0);
	ck_assert_uint_eq(at, 0x200000);	/* relocated, 2 MiB aligned */
	/* Too little RAM even relocated. */
	ck_assert_int_eq(bzimage_place_kernel(&bz, 0x100000, 0x3100000, &at,
					      err), -1);
	ck_assert_ptr_nonnull(strstr(err, "init_size"));
	/* Not relocatable: pref_address or nothing. */
	img[BZ_RELOCATABLE] = 0;
	ck_assert_int_eq(parse(IMG_LEN), 0);
	ck_assert_int_eq(bzimage_place_kernel(&bz, 0x100000, 0x3ffffff, &at,
					      err), -1);
	ck_assert_ptr_nonnull(strstr(err, "not relocatable"));
}
END_TEST

START_TEST(place_initrd)
{
	uint64_t at = 0;

	build();
	ck_assert_int_eq(parse(IMG_LEN), 0);
	/* Top of RAM, page aligned down. */
	ck_assert_int_eq(bzimage_place_initrd(&bz, 0x1801, 0x4000000,
					      0x10000000, &at, err), 0);
	ck_assert_uint_eq(at, 0x10000000 - 0x2000);
	/* initrd_addr_max caps it below RAM's end. */
	ck_assert_int_eq(bzimage_place_initrd(&bz, 0x1000, 0x4000000,
					      0xc0000000, &at, err), 0);
	ck_assert_uint_eq(at, 0x80000000 - 0x1000);
	/* Exactly fills the space above the kernel. */
	ck_assert_int_eq(bzimage_place_initrd(&bz, 0x1000000, 0x4000000,
					      0x5000000, &at, err), 0);
	ck_assert_uint_eq(at, 0x4000000);
	/* One byte too many; larger than RAM; empty. */
	ck_assert_int_eq(bzimage_place_initrd(&bz, 0x1000001, 0x4000000,
					      0x5000000, &at, err), -1);
	ck_assert_ptr_nonnull(strstr(err, "do not fit"));
	ck_assert_int_eq(bzimage_place_initrd(&bz, 0x6000000, 0x4000000,
					      0x5000000, &at, err), -1);
	ck_assert_int_eq(bzimage_place_initrd(&bz, 0, 0x4000000, 0x5000000,
					      &at, err), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bzimage");
	TCase *t = tcase_create("header");

	tcase_add_test(t, valid);
	tcase_add_test(t, not_a_bzimage);
	tcase_add_test(t, old_or_odd_header);
	tcase_add_test(t, truncated_kernel);
	tcase_add_test(t, fields);
	tcase_add_test(t, place_kernel);
	tcase_add_test(t, place_initrd);
	suite_add_tcase(s, t);
	return unit_run(s);
}
