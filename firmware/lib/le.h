/* SPDX-License-Identifier: MIT */
/*
 * Little-endian loads and stores of unaligned bytes: guest-visible
 * registers, tables, image headers and file formats are little-endian
 * whatever the host is.  Byte by byte, so any alignment works; compilers
 * turn each into one move on x86.  The one copy for firmware/, devices/
 * and vmm/.
 *
 * Freestanding: <stdint.h> only.
 */
#ifndef MINIVMM_LE_H
#define MINIVMM_LE_H

#include <stdint.h>

static inline uint16_t le16_get(const void *p)
{
	const uint8_t *b = p;

	return (uint16_t)(b[0] | b[1] << 8);
}

static inline uint32_t le32_get(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

static inline uint64_t le64_get(const void *p)
{
	const uint8_t *b = p;

	return le32_get(b) | (uint64_t)le32_get(b + 4) << 32;
}

static inline void le16_put(void *p, uint16_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static inline void le32_put(void *p, uint32_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

static inline void le64_put(void *p, uint64_t v)
{
	uint8_t *b = p;

	le32_put(b, (uint32_t)v);
	le32_put(b + 4, (uint32_t)(v >> 32));
}

/* n bytes (at most 8; more are ignored), for registers of any width. */
static inline uint64_t le_get(const void *p, unsigned int n)
{
	const uint8_t *b = p;
	uint64_t v = 0;

	for (unsigned int i = 0; i < n && i < 8; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

static inline void le_put(void *p, uint64_t v, unsigned int n)
{
	uint8_t *b = p;

	for (unsigned int i = 0; i < n && i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

#endif
