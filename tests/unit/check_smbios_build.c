// SPDX-License-Identifier: MIT
/* Checks of firmware/lib/smbios_build.c: the entry point the way Linux's
 * dmi_smbios3_present() reads it, and a structure walk like
 * dmi_decode_table() with string-set parsing. */
#include <check.h>

#include "tests/unit/unit.h"
#include <stdlib.h>
#include <string.h>

#include "firmware/lib/le.h"
#include "firmware/lib/smbios_build.h"

#define BASE	0xf0000ull

static uint8_t buf[4096];
static size_t used;

struct smstruct {
	const uint8_t *hdr;
	const char *str[8];
	int nstr;
};

/* Split the table into structures; returns how many, last is type 127. */
static int walk(struct smstruct *s, int max)
{
	const uint8_t *ep = buf, *p, *end;
	uint8_t sum = 0;
	int n = 0;

	ck_assert_mem_eq(ep, "_SM3_", 5);
	ck_assert_uint_eq(ep[6], 24);
	for (int i = 0; i < ep[6]; i++)
		sum = (uint8_t)(sum + ep[i]);
	ck_assert_uint_eq(sum, 0);
	ck_assert_uint_eq(ep[7], 3);
	ck_assert_uint_eq(ep[10], 1);
	ck_assert_uint_ge(le_get(ep + 16, 8), BASE + 24);
	p = buf + (le_get(ep + 16, 8) - BASE);
	end = p + le_get(ep + 12, 4);
	ck_assert(end == buf + used);
	while (p < end) {
		ck_assert_int_lt(n, max);
		ck_assert(p + 4 <= end);
		ck_assert_uint_ge(p[1], 4);
		s[n].hdr = p;
		s[n].nstr = 0;
		p += p[1];
		if (*p == 0)			/* no strings: double NUL */
			p++;
		while (p < end && *p) {
			ck_assert_int_lt(s[n].nstr, 8);
			s[n].str[s[n].nstr++] = (const char *)p;
			p += strnlen((const char *)p, end - p) + 1;
		}
		ck_assert(p < end);
		p++;				/* set terminator */
		if (s[n++].hdr[0] == 127)
			break;
	}
	ck_assert(p == end);
	ck_assert_uint_eq(s[n - 1].hdr[0], 127);
	return n;
}

/* String number idx (1-based) of structure s; 0 means none. */
static const char *sstr(const struct smstruct *s, unsigned int idx)
{
	if (idx == 0)
		return "";
	ck_assert_uint_le(idx, s->nstr);
	return s->str[idx - 1];
}

static void build(const struct smbios_config *c)
{
	memset(buf, 0xa5, sizeof(buf));
	ck_assert_int_eq(smbios_build(c, buf, sizeof(buf), BASE, &used),
			 SMBIOS_OK);
}

START_TEST(test_full)
{
	struct smbios_config c = { .bios_version = "1.2-3-gabc",
				   .bios_date = "02/29/2028",
				   .product = "testbox",
				   .uuid = { 1, 2, 3, [15] = 0xff } };
	struct smstruct s[4];

	build(&c);
	ck_assert_int_eq(walk(s, 4), 3);
	ck_assert_uint_eq(s[0].hdr[0], 0);
	ck_assert_uint_eq(s[0].hdr[1], 0x18);
	ck_assert_str_eq(sstr(&s[0], s[0].hdr[4]), "minivmm");
	ck_assert_str_eq(sstr(&s[0], s[0].hdr[5]), "1.2-3-gabc");
	ck_assert_str_eq(sstr(&s[0], s[0].hdr[8]), "02/29/2028");
	ck_assert_uint_eq(s[0].hdr[0x13] & 0x10, 0x10);	/* VM */
	ck_assert_uint_eq(s[1].hdr[0], 1);
	ck_assert_uint_eq(s[1].hdr[1], 0x1b);
	ck_assert_str_eq(sstr(&s[1], s[1].hdr[4]), "minivmm");
	ck_assert_str_eq(sstr(&s[1], s[1].hdr[5]), "testbox");
	ck_assert_mem_eq(s[1].hdr + 8, c.uuid, 16);
	ck_assert_uint_ne(le_get(s[0].hdr + 2, 2), le_get(s[1].hdr + 2, 2));
	ck_assert_uint_ne(le_get(s[1].hdr + 2, 2), le_get(s[2].hdr + 2, 2));
}
END_TEST

START_TEST(test_defaults)
{
	struct smbios_config c = { 0 };
	struct smstruct s[4];

	build(&c);
	ck_assert_int_eq(walk(s, 4), 3);
	ck_assert_uint_eq(s[0].hdr[5], 0);
	ck_assert_str_eq(sstr(&s[0], s[0].hdr[8]), SMBIOS_DEFAULT_DATE);
	ck_assert_int_eq(s[0].nstr, 2);
	ck_assert_str_eq(sstr(&s[1], s[1].hdr[5]), "minivmm");
	ck_assert_int_eq(s[2].nstr, 0);
}
END_TEST

START_TEST(test_dates)
{
	static const char *const bad[] = {
		"1/01/2026", "01/01/2015", "01-01-2026", "01/01/20261",
		"01/01/26", "", "aa/bb/cccc", "01/01/999",
	};
	struct smbios_config c = { .bios_date = "12/31/2016" };
	size_t u = 7;

	ck_assert_int_eq(smbios_build(&c, buf, sizeof(buf), BASE, &u),
			 SMBIOS_OK);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c.bios_date = bad[i];
		u = 7;
		ck_assert_msg(smbios_build(&c, buf, sizeof(buf), BASE, &u) ==
			      SMBIOS_ERR_CONFIG, "accepted %s", bad[i]);
		ck_assert_uint_eq(u, 7);
	}
	c.bios_date = NULL;
	ck_assert_int_eq(smbios_build(&c, buf, sizeof(buf), BASE + 8, &u),
			 SMBIOS_ERR_CONFIG);
}
END_TEST

START_TEST(test_nospace)
{
	struct smbios_config c = { .bios_version = "v9", .product = "p" };
	size_t need, u;
	uint8_t *p;

	build(&c);
	need = used;
	for (size_t size = 0; size < need; size++) {
		p = malloc(size ? size : 1);
		ck_assert_int_eq(smbios_build(&c, p, size, BASE, &u),
				 SMBIOS_ERR_NOSPACE);
		free(p);
	}
	p = malloc(need);
	ck_assert_int_eq(smbios_build(&c, p, need, BASE, &u), SMBIOS_OK);
	ck_assert_uint_eq(u, need);
	ck_assert_mem_eq(p, buf, need);
	free(p);
	ck_assert_str_ne(smbios_build_strerror(SMBIOS_ERR_NOSPACE),
			 smbios_build_strerror(SMBIOS_ERR_CONFIG));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("smbios_build");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits");

	tcase_add_test(core, test_full);
	tcase_add_test(core, test_defaults);
	tcase_add_test(limits, test_dates);
	tcase_add_test(limits, test_nospace);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	return unit_run(s);
}
