/* SPDX-License-Identifier: MIT */
/*
 * The Linux x86 boot protocol's setup header (Documentation/arch/x86/
 * boot.rst), as a bzImage carries it: parsing and checking it, and
 * choosing where the protected-mode kernel and the initrd go.  Pure
 * functions on buffers, so every field can be tested with crafted headers;
 * the loading itself is in linux.c.
 */
#ifndef MINIVMM_BZIMAGE_H
#define MINIVMM_BZIMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Offsets in the file (= in boot_params) of the fields we use. */
#define BZ_SETUP_SECTS		0x1f1
#define BZ_SYSSIZE		0x1f4
#define BZ_BOOT_FLAG		0x1fe	/* 0xaa55 */
#define BZ_JUMP			0x200	/* eb xx: header ends at 0x202 + xx */
#define BZ_HEADER		0x202	/* "HdrS" */
#define BZ_VERSION		0x206
#define BZ_TYPE_OF_LOADER	0x210
#define BZ_LOADFLAGS		0x211
#define BZ_RAMDISK_IMAGE	0x218
#define BZ_RAMDISK_SIZE		0x21c
#define BZ_CMD_LINE_PTR		0x228
#define BZ_INITRD_ADDR_MAX	0x22c
#define BZ_KERNEL_ALIGNMENT	0x230
#define BZ_RELOCATABLE		0x234
#define BZ_MIN_ALIGNMENT	0x235
#define BZ_XLOADFLAGS		0x236
#define BZ_CMDLINE_SIZE		0x238
#define BZ_PREF_ADDRESS		0x258
#define BZ_INIT_SIZE		0x260

/* The setup header is copied into boot_params from 0x1f1 up to its end;
 * boot_params has room up to 0x290. */
#define BZ_HDR_START		BZ_SETUP_SECTS
#define BZ_HDR_MAX		(0x290 - BZ_SETUP_SECTS)

#define BZ_MIN_VERSION		0x020c	/* 2.12: xloadflags */
#define XLF_KERNEL_64		(1u << 0)
#define XLF_CAN_BE_LOADED_ABOVE_4G (1u << 1)

/* The 64-bit entry point, relative to the protected-mode kernel. */
#define BZ_ENTRY64_OFFSET	0x200

struct bzimage {
	uint16_t version;
	uint64_t kernel_offset;		/* file offset of the 32/64-bit kernel */
	uint64_t kernel_size;		/* its bytes in the file */
	uint64_t init_size;		/* bytes it needs from its load address */
	uint64_t pref_address;
	uint32_t kernel_alignment;
	bool relocatable;
	uint16_t xloadflags;
	uint32_t cmdline_size;		/* longest command line, without NUL */
	uint32_t initrd_addr_max;	/* highest byte an initrd may use */
	uint8_t hdr[BZ_HDR_MAX];	/* the setup header as in the file */
	size_t hdr_len;
};

#define BZIMAGE_ERR_MAX	160

/* True if buf starts like a bzImage (boot flag and "HdrS"): the caller
 * then reports bzimage_parse's errors rather than trying other formats. */
bool bzimage_probe(const uint8_t *buf, size_t len);

/* Parses and checks the setup header.  0, or -1 with err set. */
int bzimage_parse(const uint8_t *buf, size_t len, struct bzimage *bz,
		  char *err);

/* Where the kernel goes in RAM [ram_start, ram_end) (one RAM range): at
 * pref_address if init_size bytes fit there, else, if relocatable, at the
 * lowest kernel_alignment-aligned address >= ram_start that fits.  0, or
 * -1 with err set. */
int bzimage_place_kernel(const struct bzimage *bz, uint64_t ram_start,
			 uint64_t ram_end, uint64_t *load, char *err);

/* Where an initrd of size bytes goes: as high as possible, page aligned,
 * ending at or below ram_end and initrd_addr_max + 1, starting at or above
 * floor (the kernel's end).  0, or -1 with err set. */
int bzimage_place_initrd(const struct bzimage *bz, uint64_t size,
			 uint64_t floor, uint64_t ram_end, uint64_t *start,
			 char *err);

#endif
