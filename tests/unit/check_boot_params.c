// SPDX-License-Identifier: MIT
/* boot_params_build: the setup header lands at 0x1f1 byte for byte, the
 * loader fields (type_of_loader, command line, initrd, RSDP) and the e820
 * table (packed 20-byte entries) are where zero-page.rst says, 64-bit
 * values are split into the ext_ fields, and the limits are enforced. */
#include "tests/unit/unit.h"
#include "firmware/lib/boot_params.h"
#include "firmware/lib/le.h"

static uint8_t bp[BOOT_PARAMS_SIZE];
static uint8_t hdr[0x7b];	/* 0x1f1 .. 0x26c, as in Linux 6.1 */

static const struct e820_entry map[] = {
	{ 0x0, 0x1000, E820_RAM, 0 },
	{ 0x1000, 0xf000, E820_RESERVED, 0 },
	{ 0x10000, 0x90000, E820_RAM, 0 },
	{ 0x100000, 0x7ff00000, E820_RAM, 0 },
	{ 0xe0000000, 0x100000, E820_RESERVED, 0 },
	{ 0x100000000ull, 0x40000000, E820_RAM, 0 },
};

static struct boot_params_in input(void)
{
	for (size_t i = 0; i < sizeof(hdr); i++)
		hdr[i] = (uint8_t)(i * 7 + 3);
	/* cmdline_size 2047 at 0x238 */
	hdr[0x238 - 0x1f1] = 0xff;
	hdr[0x239 - 0x1f1] = 0x07;
	hdr[0x23a - 0x1f1] = 0;
	hdr[0x23b - 0x1f1] = 0;
	return (struct boot_params_in){
		.setup_header = hdr, .setup_header_len = sizeof(hdr),
		.cmdline_addr = 0x21000, .cmdline_len = 40,
		.initrd_addr = 0x7f000000, .initrd_size = 0x123456,
		.e820 = map, .n_e820 = 6, .rsdp = 0xe0000,
	};
}

START_TEST(fields)
{
	struct boot_params_in in = input();

	memset(bp, 0xaa, sizeof(bp));
	ck_assert_int_eq(boot_params_build(bp, &in), 0);
	/* Zeroed outside what we set. */
	ck_assert_uint_eq(bp[0], 0);
	ck_assert_uint_eq(bp[0x1f0], 0);
	ck_assert_uint_eq(bp[0xfff], 0);
	/* The header, except the loader's own fields. */
	ck_assert_mem_eq(bp + 0x1f1, hdr, 0x210 - 0x1f1);
	ck_assert_uint_eq(bp[0x210], 0xff);		/* type_of_loader */
	ck_assert_mem_eq(bp + 0x211, hdr + 0x211 - 0x1f1, 0x218 - 0x211);
	ck_assert_uint_eq(le32_get(bp + 0x218), 0x7f000000); /* ramdisk_image */
	ck_assert_uint_eq(le32_get(bp + 0x21c), 0x123456); /* ramdisk_size */
	ck_assert_uint_eq(le32_get(bp + 0x228), 0x21000); /* cmd_line_ptr */
	ck_assert_uint_eq(le32_get(bp + 0x0c0), 0);	/* ext_ fields */
	ck_assert_uint_eq(le32_get(bp + 0x0c4), 0);
	ck_assert_uint_eq(le32_get(bp + 0x0c8), 0);
	ck_assert_uint_eq(le32_get(bp + 0x238), 2047);		/* kept */
	ck_assert_mem_eq(bp + 0x22c, hdr + 0x22c - 0x1f1, 0x26c - 0x22c);
	ck_assert_uint_eq(le64_get(bp + 0x070), 0xe0000); /* acpi_rsdp_addr */
	/* e820 */
	ck_assert_uint_eq(bp[0x1e8], 6);
	for (unsigned int i = 0; i < 6; i++) {
		unsigned int e = 0x2d0 + i * 20;

		ck_assert_uint_eq(le64_get(bp + e), map[i].addr);
		ck_assert_uint_eq(le64_get(bp + e + 8), map[i].size);
		ck_assert_uint_eq(le32_get(bp + e + 16), map[i].type);
	}
	ck_assert_uint_eq(le64_get(bp + 0x2d0 + 6 * 20), 0);
}
END_TEST

START_TEST(high_addresses)
{
	struct boot_params_in in = input();

	in.initrd_addr = 0x140000000ull;
	in.initrd_size = 0x100000001ull;
	in.cmdline_addr = 0x123456789ull;
	in.rsdp = 0;
	ck_assert_int_eq(boot_params_build(bp, &in), 0);
	ck_assert_uint_eq(le32_get(bp + 0x218), 0x40000000);
	ck_assert_uint_eq(le32_get(bp + 0x0c0), 1);
	ck_assert_uint_eq(le32_get(bp + 0x21c), 1);
	ck_assert_uint_eq(le32_get(bp + 0x0c4), 1);
	ck_assert_uint_eq(le32_get(bp + 0x228), 0x23456789);
	ck_assert_uint_eq(le32_get(bp + 0x0c8), 1);
	ck_assert_uint_eq(le64_get(bp + 0x070), 0);
	/* No initrd: the fields stay zero. */
	in.initrd_size = 0;
	ck_assert_int_eq(boot_params_build(bp, &in), 0);
	ck_assert_uint_eq(le32_get(bp + 0x218), 0);
	ck_assert_uint_eq(le32_get(bp + 0x21c), 0);
}
END_TEST

START_TEST(limits)
{
	struct boot_params_in in = input();
	struct e820_entry many[BP_E820_MAX + 1];

	memset(bp, 0x55, sizeof(bp));
	in.cmdline_len = 2048;
	ck_assert_int_eq(boot_params_build(bp, &in), -BP_ECMDLINE);
	ck_assert_uint_eq(bp[0], 0x55);		/* untouched on error */
	in.cmdline_len = 2047;
	ck_assert_int_eq(boot_params_build(bp, &in), 0);

	in.setup_header_len = BP_HDR_MIN_LEN - 1;
	ck_assert_int_eq(boot_params_build(bp, &in), -BP_EHEADER);
	in.setup_header_len = 0x290 - 0x1f1 + 1;
	ck_assert_int_eq(boot_params_build(bp, &in), -BP_EHEADER);
	ck_assert_uint_eq(boot_params_cmdline_size(hdr, BP_HDR_MIN_LEN - 1),
			  0);
	ck_assert_uint_eq(boot_params_cmdline_size(hdr, BP_HDR_MIN_LEN),
			  2047);

	in = input();
	for (unsigned int i = 0; i <= BP_E820_MAX; i++)
		many[i] = (struct e820_entry){ i * 0x2000ull, 0x1000,
					       E820_RAM, 0 };
	in.e820 = many;
	in.n_e820 = BP_E820_MAX + 1;
	ck_assert_int_eq(boot_params_build(bp, &in), -BP_EE820);
	in.n_e820 = BP_E820_MAX;
	ck_assert_int_eq(boot_params_build(bp, &in), 0);
	ck_assert_uint_eq(bp[0x1e8], BP_E820_MAX);
	/* The last entry ends right where edd_mbr_sig_buffer would not be
	 * touched: 0x2d0 + 128 * 20 = 0xcd0. */
	ck_assert_uint_eq(le64_get(bp + 0x2d0 + 127 * 20), 127 * 0x2000ull);
	ck_assert_uint_eq(bp[0xcd0], 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("boot_params");
	TCase *t = tcase_create("build");

	tcase_add_test(t, fields);
	tcase_add_test(t, high_addresses);
	tcase_add_test(t, limits);
	suite_add_tcase(s, t);
	return unit_run(s);
}
