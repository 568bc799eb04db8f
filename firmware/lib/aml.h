/* SPDX-License-Identifier: MIT */
/*
 * A tiny AML byte-code emitter: just what the minivmm DSDT needs (names,
 * integers, Scope/Device/Package/Buffer, address-space resource
 * descriptors).  It writes into a caller buffer; running out of space sets
 * a sticky overflow flag instead of failing each call, so the caller emits
 * straight-line code and checks once at the end.
 *
 * Package lengths are always encoded in three bytes (values up to 1 MiB)
 * so an open package can be patched in place when it is closed, without
 * moving its contents.  ACPICA and iasl accept the non-minimal encoding.
 *
 * Freestanding: <stdint.h>, <stddef.h>, <stdbool.h> only.
 */
#ifndef MINIVMM_AML_H
#define MINIVMM_AML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct aml {
	uint8_t *buf;
	size_t cap;
	size_t len;
	bool overflow;		/* set when anything did not fit */
};

/* Resource type and flags of an address-space descriptor. */
#define AML_RES_MEM		0
#define AML_RES_IO		1
#define AML_RES_BUS		2
#define AML_RES_PRODUCER	0x0c	/* producer, MinFixed, MaxFixed */
#define AML_RES_CONSUMER	0x0d	/* consumer, MinFixed, MaxFixed */
#define AML_MEM_RW		0x01	/* ReadWrite, NonCacheable */
#define AML_IO_ENTIRE		0x03	/* EntireRange */

void aml_init(struct aml *a, void *buf, size_t cap);
void aml_byte(struct aml *a, uint8_t b);
void aml_le(struct aml *a, uint64_t v, unsigned int nbytes);

/* A NameString: an optional leading '\' and one 4-character NameSeg. */
void aml_name(struct aml *a, const char *name);
/* Integer constant in its shortest encoding (Zero, One, Byte..QWord). */
void aml_int(struct aml *a, uint64_t v);
/* Name (name, ...): the caller emits the value next. */
void aml_name_decl(struct aml *a, const char *name);

/* Open a Scope, Device or Package; close with aml_close(a, token). */
size_t aml_scope(struct aml *a, const char *name);
size_t aml_device(struct aml *a, const char *name);
size_t aml_package(struct aml *a, uint8_t nelems);
void aml_close(struct aml *a, size_t token);

/* Buffer whose size is patched at close: for ResourceTemplate (). */
size_t aml_buffer(struct aml *a);
void aml_buffer_close(struct aml *a, size_t token);

/* Resource descriptors.  width is 2 (Word), 4 (DWord) or 8 (QWord). */
void aml_res_addr(struct aml *a, unsigned int width, uint8_t type,
		  uint8_t gflags, uint8_t tflags, uint64_t min, uint64_t max);
void aml_res_io(struct aml *a, uint16_t base, uint8_t len);
void aml_res_irq(struct aml *a, unsigned int irq);
void aml_res_end(struct aml *a);

#endif
