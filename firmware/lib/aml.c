// SPDX-License-Identifier: MIT
/* AML byte-code emitter; see aml.h.  Opcodes from ACPI 6.x chapter 20. */
#include "firmware/lib/aml.h"

#define AML_ZERO	0x00
#define AML_ONE		0x01
#define AML_BYTE	0x0a
#define AML_WORD	0x0b
#define AML_DWORD	0x0c
#define AML_QWORD	0x0e
#define AML_NAME_OP	0x08
#define AML_SCOPE_OP	0x10
#define AML_BUFFER_OP	0x11
#define AML_PACKAGE_OP	0x12
#define AML_EXT_PREFIX	0x5b
#define AML_DEVICE_OP	0x82	/* after AML_EXT_PREFIX */
#define AML_PKGLEN_MAX	0xfffffu	/* what three bytes can encode */

void aml_init(struct aml *a, void *buf, size_t cap)
{
	a->buf = buf;
	a->cap = cap;
	a->len = 0;
	a->overflow = false;
}

void aml_byte(struct aml *a, uint8_t b)
{
	if (a->len >= a->cap) {
		a->overflow = true;
		return;
	}
	a->buf[a->len++] = b;
}

void aml_le(struct aml *a, uint64_t v, unsigned int nbytes)
{
	for (unsigned int i = 0; i < nbytes; i++, v >>= 8)
		aml_byte(a, (uint8_t)v);
}

void aml_name(struct aml *a, const char *name)
{
	for (; *name; name++)
		aml_byte(a, (uint8_t)*name);
}

void aml_int(struct aml *a, uint64_t v)
{
	if (v <= AML_ONE) {
		aml_byte(a, (uint8_t)v);	/* ZeroOp / OneOp */
	} else if (v <= 0xff) {
		aml_byte(a, AML_BYTE);
		aml_le(a, v, 1);
	} else if (v <= 0xffff) {
		aml_byte(a, AML_WORD);
		aml_le(a, v, 2);
	} else if (v <= 0xffffffffu) {
		aml_byte(a, AML_DWORD);
		aml_le(a, v, 4);
	} else {
		aml_byte(a, AML_QWORD);
		aml_le(a, v, 8);
	}
}

void aml_name_decl(struct aml *a, const char *name)
{
	aml_byte(a, AML_NAME_OP);
	aml_name(a, name);
}

/* Reserve a three-byte PkgLength; its offset is the token for close. */
static size_t aml_pkglen_open(struct aml *a)
{
	size_t token = a->len;

	aml_le(a, 0, 3);
	return token;
}

void aml_close(struct aml *a, size_t token)
{
	size_t len = a->len - token;
	uint8_t *p = a->buf + token;

	if (a->overflow)
		return;		/* token may point past the buffer */
	if (len > AML_PKGLEN_MAX) {
		a->overflow = true;
		return;
	}
	p[0] = (uint8_t)(0x80 | (len & 0x0f));	/* two bytes follow */
	p[1] = (uint8_t)(len >> 4);
	p[2] = (uint8_t)(len >> 12);
}

size_t aml_scope(struct aml *a, const char *name)
{
	size_t token;

	aml_byte(a, AML_SCOPE_OP);
	token = aml_pkglen_open(a);
	aml_name(a, name);
	return token;
}

size_t aml_device(struct aml *a, const char *name)
{
	size_t token;

	aml_byte(a, AML_EXT_PREFIX);
	aml_byte(a, AML_DEVICE_OP);
	token = aml_pkglen_open(a);
	aml_name(a, name);
	return token;
}

size_t aml_package(struct aml *a, uint8_t nelems)
{
	size_t token;

	aml_byte(a, AML_PACKAGE_OP);
	token = aml_pkglen_open(a);
	aml_byte(a, nelems);
	return token;
}

/* BufferOp PkgLength WordConst(size) bytes...; size patched at close. */
size_t aml_buffer(struct aml *a)
{
	size_t token;

	aml_byte(a, AML_BUFFER_OP);
	token = aml_pkglen_open(a);
	aml_byte(a, AML_WORD);
	aml_le(a, 0, 2);
	return token;
}

void aml_buffer_close(struct aml *a, size_t token)
{
	size_t size = a->len - (token + 6);

	aml_close(a, token);
	if (a->overflow)
		return;
	if (size > 0xffff) {
		a->overflow = true;
		return;
	}
	a->buf[token + 4] = (uint8_t)size;
	a->buf[token + 5] = (uint8_t)(size >> 8);
}

/* Word/DWord/QWord Address Space Descriptor with zero granularity and
 * translation; the length field is derived from min and max. */
void aml_res_addr(struct aml *a, unsigned int width, uint8_t type,
		  uint8_t gflags, uint8_t tflags, uint64_t min, uint64_t max)
{
	uint8_t tag = width == 2 ? 0x88 : width == 4 ? 0x87 : 0x8a;

	aml_byte(a, tag);
	aml_le(a, 3 + 5 * width, 2);
	aml_byte(a, type);
	aml_byte(a, gflags);
	aml_byte(a, tflags);
	aml_le(a, 0, width);		/* granularity */
	aml_le(a, min, width);
	aml_le(a, max, width);
	aml_le(a, 0, width);		/* translation offset */
	aml_le(a, max - min + 1, width);
}

/* IO (Decode16, base, base, 1, len). */
void aml_res_io(struct aml *a, uint16_t base, uint8_t len)
{
	aml_byte(a, 0x47);
	aml_byte(a, 0x01);
	aml_le(a, base, 2);
	aml_le(a, base, 2);
	aml_byte(a, 1);
	aml_byte(a, len);
}

/* IRQNoFlags: edge, active-high, exclusive ISA line irq (< 16). */
void aml_res_irq(struct aml *a, unsigned int irq)
{
	aml_byte(a, 0x22);
	aml_le(a, 1u << (irq & 15), 2);
}

/* EndTag with a zero checksum, which means "not checked". */
void aml_res_end(struct aml *a)
{
	aml_byte(a, 0x79);
	aml_byte(a, 0x00);
}
