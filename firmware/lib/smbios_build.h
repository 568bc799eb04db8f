/* SPDX-License-Identifier: MIT */
/*
 * SMBIOS builder: a 64-bit SMBIOS 3.0 entry point ("_SM3_") followed by
 * its structure table: type 0 (BIOS), type 1 (system) and type 127 (end).
 *
 * Linux finds the entry point by scanning 0xf0000-0xfffff in 16-byte
 * steps; placing it at 0xf0000 makes that scan stop at once.  The BIOS
 * date matters: with a year >= 2016, Linux accepts the MCFG ECAM window
 * without an E820 reservation check (arch/x86/pci/mmconfig-shared.c).
 *
 * Layout from the base (16-byte aligned): entry point at offset 0 (so its
 * address is the base), structure table at offset 32.
 *
 * Freestanding: <stdint.h>, <stddef.h>, <stdbool.h> only.
 */
#ifndef MINIVMM_SMBIOS_BUILD_H
#define MINIVMM_SMBIOS_BUILD_H

#include <stddef.h>
#include <stdint.h>

#define SMBIOS_VENDOR		"minivmm"
#define SMBIOS_DEFAULT_DATE	"01/01/2026"
#define SMBIOS_MIN_YEAR		2016

#define SMBIOS_OK		0
#define SMBIOS_ERR_NOSPACE	(-1)	/* buffer too small */
#define SMBIOS_ERR_CONFIG	(-2)	/* bad date or misaligned base */

struct smbios_config {
	const char *bios_version;	/* NULL or "" = not given */
	const char *bios_date;		/* "MM/DD/YYYY"; NULL = default */
	const char *product;		/* NULL or "" = "minivmm" */
	uint8_t uuid[16];		/* SMBIOS byte order; all zero = none */
};

/*
 * Build the entry point and structures into buf[0..size) for guest
 * address gpa.  Returns SMBIOS_OK and the bytes written in *used, or an
 * SMBIOS_ERR_* value (and *used untouched).
 */
int smbios_build(const struct smbios_config *cfg, void *buf, size_t size,
		 uint64_t gpa, size_t *used);

/* A static message for an SMBIOS_* return value. */
const char *smbios_build_strerror(int err);

#endif
