// SPDX-License-Identifier: MIT
#include "vmm/machine/acpi_dump.h"
#include "firmware/lib/abi.h"
#include "firmware/lib/le.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Where an OS looks for the RSDP, and where the firmware puts it. */
#define SCAN_START	ABI_TABLES_BASE
#define SCAN_END	ABI_TABLES_END
#define RSDP_LEN_V2	36
#define HDR_LEN		36
#define TABLE_MAX	(1u << 20)
#define MAX_TABLES	64

static uint8_t sum(const uint8_t *p, size_t n)
{
	uint8_t s = 0;

	while (n--)
		s += *p++;
	return s;
}

static uint64_t find_rsdp(struct gmem *mem)
{
	for (uint64_t a = SCAN_START; a < SCAN_END; a += 16) {
		const uint8_t *p = gmem_ptr(mem, a, RSDP_LEN_V2);

		if (p && !memcmp(p, "RSD PTR ", 8) && !sum(p, 20) &&
		    p[15] >= 2 && !sum(p, RSDP_LEN_V2))
			return a;
	}
	return 0;
}

static int write_file(const char *dir, const char *sig, const uint8_t *p,
		      size_t len)
{
	char path[4096], name[5] = { 0 };
	FILE *f;

	for (int i = 0; i < 4; i++)
		name[i] = isalnum((unsigned char)sig[i]) ?
			  (char)tolower((unsigned char)sig[i]) : '_';
	snprintf(path, sizeof(path), "%s/%s.dat", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "minivmm: error: --dump-acpi: writing %s: %s\n",
			path, strerror(errno));
		return -1;
	}
	return 0;
}

/* A table at gpa with a sane length, or NULL. */
static const uint8_t *table_at(struct gmem *mem, uint64_t gpa, uint32_t *len)
{
	const uint8_t *h = gmem_ptr(mem, gpa, HDR_LEN);

	if (!h)
		return NULL;
	*len = le32_get(h + 4);
	if (*len < HDR_LEN || *len > TABLE_MAX)
		return NULL;
	return gmem_ptr(mem, gpa, *len);
}

static int dump_one(struct gmem *mem, const char *dir, uint64_t gpa,
		    bool is_facs)
{
	const uint8_t *t;
	uint32_t len;

	if (is_facs) {		/* FACS: no checksum, length at offset 4 */
		t = gmem_ptr(mem, gpa, 64);
		len = 64;
	} else {
		t = table_at(mem, gpa, &len);
	}
	if (!t)
		return -1;
	return write_file(dir, (const char *)t, t, len);
}

/* The FADT's FACS (X_FIRMWARE_CTRL first), or 0. */
static uint64_t fadt_facs(const uint8_t *fadt, uint32_t len)
{
	uint64_t facs = len >= 140 ? le64_get(fadt + 132) : 0;

	return facs ? facs : le32_get(fadt + 36);
}

static int dump_fadt_refs(struct gmem *mem, const char *dir,
			  const uint8_t *fadt, uint32_t len)
{
	uint64_t dsdt = len >= 148 ? le64_get(fadt + 140) : 0;
	uint64_t facs = fadt_facs(fadt, len);
	int n = 0;

	if (!dsdt)
		dsdt = le32_get(fadt + 40);
	if (dsdt && dump_one(mem, dir, dsdt, false) == 0)
		n++;
	if (facs && dump_one(mem, dir, facs, true) == 0)
		n++;
	return n;
}

uint64_t acpi_find_facs(struct gmem *mem)
{
	uint64_t rsdp = find_rsdp(mem);
	const uint8_t *x;
	uint32_t xlen;

	if (!rsdp)
		return 0;
	x = table_at(mem, le64_get((const uint8_t *)gmem_ptr(mem, rsdp,
							  RSDP_LEN_V2) + 24),
		     &xlen);
	for (uint32_t off = HDR_LEN; x && off + 8 <= xlen; off += 8) {
		uint32_t len;
		const uint8_t *t = table_at(mem, le64_get(x + off), &len);

		if (t && !memcmp(t, "FACP", 4) && len >= 40)
			return fadt_facs(t, len);
	}
	return 0;
}

int acpi_dump(struct gmem *mem, const char *dir)
{
	uint64_t rsdp = find_rsdp(mem);
	const uint8_t *r, *x;
	uint32_t xlen;
	int n = 0;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "minivmm: error: --dump-acpi '%s': %s\n", dir,
			strerror(errno));
		return -1;
	}
	if (!rsdp) {
		fprintf(stderr, "minivmm: --dump-acpi: no RSDP in guest memory "
			"0xe0000-0xfffff\n");
		return -1;
	}
	r = gmem_ptr(mem, rsdp, RSDP_LEN_V2);
	if (write_file(dir, "rsdp", r, RSDP_LEN_V2) < 0)
		return -1;
	x = table_at(mem, le64_get(r + 24), &xlen);
	if (!x || write_file(dir, (const char *)x, x, xlen) < 0)
		return -1;
	n = 2;
	for (uint32_t off = HDR_LEN; off + 8 <= xlen && n < MAX_TABLES;
	     off += 8) {
		uint64_t gpa = le64_get(x + off);
		const uint8_t *t;
		uint32_t len;

		t = table_at(mem, gpa, &len);
		if (!t || write_file(dir, (const char *)t, t, len) < 0)
			continue;
		n++;
		if (!memcmp(t, "FACP", 4))
			n += dump_fadt_refs(mem, dir, t, len);
	}
	return n;
}
