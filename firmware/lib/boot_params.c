// SPDX-License-Identifier: MIT
#include "firmware/lib/boot_params.h"

#include <string.h>

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

uint32_t boot_params_cmdline_size(const uint8_t *setup_header, size_t len)
{
	if (len < BP_HDR_MIN_LEN)
		return 0;
	return get32(setup_header + (BP_CMDLINE_SIZE - BP_HDR));
}

/* A 64-bit value split over a 32-bit header field and its ext_ half. */
static void put_split(uint8_t *bp, unsigned int lo, unsigned int hi,
		      uint64_t v)
{
	put32(bp + lo, (uint32_t)v);
	put32(bp + hi, (uint32_t)(v >> 32));
}

static void put_e820(uint8_t *bp, const struct e820_entry *e,
		     unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		uint8_t *p = bp + BP_E820_TABLE + i * BP_E820_ENTRY_SIZE;

		put64(p, e[i].addr);
		put64(p + 8, e[i].size);
		put32(p + 16, e[i].type);
	}
	bp[BP_E820_ENTRIES] = (uint8_t)n;
}

int boot_params_build(uint8_t *bp, const struct boot_params_in *in)
{
	uint32_t limit;

	if (in->setup_header_len < BP_HDR_MIN_LEN ||
	    in->setup_header_len > BP_HDR_END_MAX - BP_HDR)
		return -BP_EHEADER;
	limit = boot_params_cmdline_size(in->setup_header,
					 in->setup_header_len);
	if (in->cmdline_len > limit)
		return -BP_ECMDLINE;
	if (in->n_e820 > BP_E820_MAX)
		return -BP_EE820;
	memset(bp, 0, BOOT_PARAMS_SIZE);
	memcpy(bp + BP_HDR, in->setup_header, in->setup_header_len);
	bp[BP_TYPE_OF_LOADER] = BP_LOADER_UNDEFINED;
	put_split(bp, BP_CMD_LINE_PTR, BP_EXT_CMD_LINE_PTR, in->cmdline_addr);
	/* Loader fields: whatever the file had there is replaced. */
	put_split(bp, BP_RAMDISK_IMAGE, BP_EXT_RAMDISK_IMAGE,
		  in->initrd_size ? in->initrd_addr : 0);
	put_split(bp, BP_RAMDISK_SIZE, BP_EXT_RAMDISK_SIZE, in->initrd_size);
	put_e820(bp, in->e820, in->n_e820);
	put64(bp + BP_ACPI_RSDP_ADDR, in->rsdp);
	return 0;
}
