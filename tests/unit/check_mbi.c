// SPDX-License-Identifier: MIT
/* The firmware's multiboot information (firmware/lib/mbi.c) and real-mode
 * vectors (firmware/lib/bios_ivt.c), as pure data: what a multiboot
 * kernel (kvm-unit-tests' setup_multiboot, find_highmem) reads of them. */
#include "tests/unit/unit.h"
#include "firmware/lib/bios_ivt.h"
#include "firmware/lib/mbi.h"

#define GPA	0x20000u

/* minivmm's map for 4 GiB + 1 GiB: firmware RAM reserved, VGA hole
 * omitted, tables reserved, RAM to 3 GiB, ECAM, RAM above 4 GiB. */
static const struct e820_entry map[] = {
	{ 0x0, 0x1000, E820_RAM, 0 },
	{ 0x1000, 0xf000, E820_RESERVED, 0 },
	{ 0x10000, 0x90000, E820_RAM, 0 },
	{ 0xe0000, 0x20000, E820_RESERVED, 0 },
	{ 0x100000, 0xbff00000, E820_RAM, 0 },
	{ 0xe0000000, 0x100000, E820_RESERVED, 0 },
	{ 0x100000000ull, 0x40000000ull, E820_RAM, 0 },
};

static uint8_t buf[2048];

START_TEST(layout)
{
	struct mbi_config c = {
		.map = map, .n_map = 7, .cmdline = 0x21000,
		.loader_name = 0x20800, .has_module = true,
		.mod_start = 0xbfff0000, .mod_size = 0x123,
		.mod_string = 0x20830,
	};
	const struct mbi *m = (const struct mbi *)buf;
	const struct mbi_module *mod;
	size_t used;

	memset(buf, 0xee, sizeof(buf));
	ck_assert_int_eq(mbi_build(&c, buf, sizeof(buf), GPA, &used), MBI_OK);
	ck_assert_uint_eq(used, sizeof(struct mbi) + 16 + 7 * 24);
	ck_assert_uint_eq(m->flags, MBI_FLAG_MEM | MBI_FLAG_CMDLINE |
			  MBI_FLAG_MODS | MBI_FLAG_MMAP | MBI_FLAG_LOADER_NAME);
	ck_assert_uint_eq(m->mem_lower, 4);		/* RAM from 0: 4 KiB */
	ck_assert_uint_eq(m->mem_upper, (0xc0000000u - 0x100000u) / 1024);
	ck_assert_uint_eq(m->cmdline, 0x21000);
	ck_assert_uint_eq(m->boot_loader_name, 0x20800);
	ck_assert_uint_eq(m->mods_count, 1);
	mod = (const void *)(buf + (m->mods_addr - GPA));
	ck_assert_uint_eq(mod->mod_start, 0xbfff0000);
	ck_assert_uint_eq(mod->mod_end, 0xbfff0123);
	ck_assert_uint_eq(mod->string, 0x20830);
	ck_assert_uint_eq(m->mmap_length, 7 * 24);
	/* walk it as the suite does: next = +size+4 */
	for (uint32_t off = m->mmap_addr - GPA, i = 0;
	     off < m->mmap_addr - GPA + m->mmap_length; i++) {
		struct mbi_mmap_entry e;

		memcpy(&e, buf + off, sizeof(e));
		ck_assert_uint_eq(e.size, 20);
		ck_assert_uint_eq(e.addr, map[i].addr);
		ck_assert_uint_eq(e.len, map[i].size);
		ck_assert_uint_eq(e.type, map[i].type);
		off += e.size + 4;
	}
}
END_TEST

START_TEST(limits)
{
	struct mbi_config c = { .map = map, .n_map = 7 };
	size_t used;

	ck_assert_int_eq(mbi_build(&c, buf, 100, GPA, &used), MBI_ERR_NOSPACE);
	ck_assert_int_eq(mbi_build(&c, buf, sizeof(buf), 0xffffff00u, &used),
			 MBI_ERR_RANGE);
	c.has_module = true;
	c.mod_start = 0xffffff00u;
	c.mod_size = 0x200;
	ck_assert_int_eq(mbi_build(&c, buf, sizeof(buf), GPA, &used),
			 MBI_ERR_RANGE);
	/* without a module: count 0 */
	c.has_module = false;
	ck_assert_int_eq(mbi_build(&c, buf, sizeof(buf), GPA, &used), MBI_OK);
	ck_assert_uint_eq(((struct mbi *)buf)->mods_count, 0);
	ck_assert_uint_eq(mbi_contiguous_kib(map, 7, 0xc0000000u), 0);
	ck_assert_uint_eq(mbi_contiguous_kib(map, 7, 0x100000000ull),
			  0x40000000u / 1024);
	ck_assert_uint_eq(mbi_contiguous_kib(map, 0, 0), 0);
}
END_TEST

START_TEST(ivt)
{
	static uint32_t ivt[BIOS_IVT_VECTORS];
	uint8_t stubs[BIOS_STUBS_SIZE];

	ck_assert_int_eq(bios_ivt_build(ivt, stubs, 0xfff01), -1);
	ck_assert_int_eq(bios_ivt_build(ivt, stubs, 0xffff0), -1);
	ck_assert_int_eq(bios_ivt_build(ivt, stubs, 0xfff00), 0);
	for (unsigned int v = 0; v < BIOS_IVT_VECTORS; v++) {
		uint32_t seg = ivt[v] >> 16, off = ivt[v] & 0xffff;
		const uint8_t *code = stubs + off;

		ck_assert_uint_eq(seg, 0xfff0);
		ck_assert_uint_lt(off, BIOS_STUBS_SIZE);
		if (v >= 0x08 && v < 0x10) {		/* master IRQs */
			ck_assert_uint_eq(code[0], 0x50);	/* push ax */
			ck_assert_uint_eq(code[4], 0x20);	/* out 0x20 */
			ck_assert_uint_eq(code[6], 0xcf);
		} else if (v >= 0x70 && v < 0x78) {	/* slave IRQs */
			ck_assert_uint_eq(code[4], 0xa0);	/* out 0xa0 */
			ck_assert_uint_eq(code[6], 0x20);	/* out 0x20 */
			ck_assert_uint_eq(code[8], 0xcf);
		} else {
			ck_assert_uint_eq(code[0], 0xcf);	/* iret */
		}
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("mbi");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, layout);
	tcase_add_test(tc, limits);
	tcase_add_test(tc, ivt);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
