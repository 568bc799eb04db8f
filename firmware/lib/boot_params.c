// SPDX-License-Identifier: MIT
#include "firmware/lib/boot_params.h"
#include "firmware/lib/le.h"

#include <string.h>

uint32_t boot_params_cmdline_size(const uint8_t *setup_header, size_t len)
{
	if (len < BP_HDR_MIN_LEN)
		return 0;
	return le32_get(setup_header + (BP_CMDLINE_SIZE - BP_HDR));
}

/* A 64-bit value split over a 32-bit header field and its ext_ half. */
static void put_split(uint8_t *bp, unsigned int lo, unsigned int hi,
		      uint64_t v)
{
	le32_put(bp + lo, (uint32_t)v);
	le32_put(bp + hi, (uint32_t)(v >> 32));
}

static void put_e820(uint8_t *bp, const struct e820_entry *e,
		     unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		uint8_t *p = bp + BP_E820_TABLE + i * BP_E820_ENTRY_SIZE;

		le64_put(p, e[i].addr);
		le64_put(p + 8, e[i].size);
		le32_put(p + 16, e[i].type);
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
	le64_put(bp + BP_ACPI_RSDP_ADDR, in->rsdp);
	return 0;
}
