// SPDX-License-Identifier: MIT
/* SMBIOS 3.0 tables; see smbios_build.h.  Field offsets from DMTF DSP0134
 * 3.0: each structure is a formatted area followed by its string set,
 * which ends with an extra NUL. */
#include "firmware/lib/smbios_build.h"

#include <stdbool.h>

#define EP_LEN		24
#define TABLE_OFF	32		/* entry point padded to 32 */
#define T0_LEN		0x18
#define T1_LEN		0x1b
#define T127_LEN	4

struct out {
	uint8_t *p;
	size_t cap;
	size_t len;
	bool overflow;		/* sticky: checked once at the end */
};

static void byte(struct out *o, uint8_t b)
{
	if (o->len >= o->cap) {
		o->overflow = true;
		return;
	}
	o->p[o->len++] = b;
}

static void le(struct out *o, uint64_t v, unsigned int nbytes)
{
	for (unsigned int i = 0; i < nbytes; i++, v >>= 8)
		byte(o, (uint8_t)v);
}

/* A string of the string set, with its NUL. */
static void str(struct out *o, const char *s)
{
	do
		byte(o, (uint8_t)*s);
	while (*s++);
}

static bool given(const char *s)
{
	return s && *s;
}

/* MM/DD/YYYY with a year Linux's MCFG rules are happy with. */
static bool date_ok(const char *d)
{
	unsigned int year = 0;

	for (int i = 0; i < 10; i++) {
		if (i == 2 || i == 5) {
			if (d[i] != '/')
				return false;
		} else if (d[i] < '0' || d[i] > '9') {
			return false;
		}
	}
	for (int i = 6; i < 10; i++)
		year = year * 10 + (unsigned int)(d[i] - '0');
	return d[10] == '\0' && year >= SMBIOS_MIN_YEAR;
}

static void header(struct out *o, uint8_t type, uint8_t len, uint16_t handle)
{
	byte(o, type);
	byte(o, len);
	le(o, handle, 2);
}

static void type0(struct out *o, const struct smbios_config *c,
		  const char *date)
{
	bool ver = given(c->bios_version);

	header(o, 0, T0_LEN, 0x0000);
	byte(o, 1);				/* vendor */
	byte(o, ver ? 2 : 0);			/* version */
	le(o, 0xf000, 2);			/* start segment */
	byte(o, ver ? 3 : 2);			/* release date */
	byte(o, 0);				/* ROM size: 64 KiB */
	le(o, 1u << 7, 8);			/* characteristics: PCI */
	byte(o, 0x01);				/* ext 1: ACPI */
	byte(o, 0x10);				/* ext 2: virtual machine */
	le(o, 0xffffffff, 4);			/* no BIOS/EC release numbers */
	str(o, SMBIOS_VENDOR);
	if (ver)
		str(o, c->bios_version);
	str(o, date);
	byte(o, 0);
}

static void type1(struct out *o, const struct smbios_config *c)
{
	header(o, 1, T1_LEN, 0x0100);
	byte(o, 1);				/* manufacturer */
	byte(o, 2);				/* product */
	byte(o, 0);				/* version */
	byte(o, 0);				/* serial number */
	for (int i = 0; i < 16; i++)
		byte(o, c->uuid[i]);
	byte(o, 0x06);				/* woken by power switch */
	byte(o, 0);				/* SKU */
	byte(o, 0);				/* family */
	str(o, SMBIOS_VENDOR);
	str(o, given(c->product) ? c->product : SMBIOS_VENDOR);
	byte(o, 0);
}

static void entry_point(uint8_t *p, uint64_t gpa, uint32_t table_len)
{
	struct out o = { .p = p, .cap = EP_LEN };
	uint8_t sum = 0;

	for (int i = 0; i < 5; i++)
		byte(&o, (uint8_t)"_SM3_"[i]);
	byte(&o, 0);				/* checksum, below */
	byte(&o, EP_LEN);
	byte(&o, 3);				/* SMBIOS 3.0.0 */
	byte(&o, 0);
	byte(&o, 0);
	byte(&o, 1);				/* entry point revision */
	byte(&o, 0);
	le(&o, table_len, 4);			/* maximum table size */
	le(&o, gpa + TABLE_OFF, 8);
	for (int i = 0; i < EP_LEN; i++)
		sum = (uint8_t)(sum + p[i]);
	p[5] = (uint8_t)-sum;
}

int smbios_build(const struct smbios_config *cfg, void *buf, size_t size,
		 uint64_t gpa, size_t *used)
{
	const char *date = cfg->bios_date ? cfg->bios_date : SMBIOS_DEFAULT_DATE;
	struct out o = { .p = buf, .cap = size };

	if ((gpa & 15) || !date_ok(date))
		return SMBIOS_ERR_CONFIG;
	if (size < TABLE_OFF)
		return SMBIOS_ERR_NOSPACE;
	o.len = TABLE_OFF;
	type0(&o, cfg, date);
	type1(&o, cfg);
	header(&o, 127, T127_LEN, 0x7f00);
	le(&o, 0, 2);				/* empty string set */
	if (o.overflow || o.len - TABLE_OFF > UINT32_MAX)
		return SMBIOS_ERR_NOSPACE;
	for (int i = EP_LEN; i < TABLE_OFF; i++)
		o.p[i] = 0;
	entry_point(o.p, gpa, (uint32_t)(o.len - TABLE_OFF));
	*used = o.len;
	return SMBIOS_OK;
}

const char *smbios_build_strerror(int err)
{
	switch (err) {
	case SMBIOS_OK:
		return "success";
	case SMBIOS_ERR_NOSPACE:
		return "SMBIOS tables do not fit in the buffer";
	case SMBIOS_ERR_CONFIG:
		return "bad SMBIOS date (need MM/DD/YYYY, year >= 2016) or base";
	default:
		return "unknown SMBIOS build error";
	}
}
