// SPDX-License-Identifier: MIT
#include "vmm/boot/bzimage.h"
#include "firmware/lib/le.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define PAGE		4096ull
#define MIN_FILE	(BZ_INIT_SIZE + 4)

static int fail(char *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, BZIMAGE_ERR_MAX, fmt, ap);
	va_end(ap);
	return -1;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

bool bzimage_probe(const uint8_t *buf, size_t len)
{
	return len >= BZ_HEADER + 4 && le16_get(buf + BZ_BOOT_FLAG) == 0xaa55 &&
	       !memcmp(buf + BZ_HEADER, "HdrS", 4);
}

/* The setup header's extent: 0x202 + the short jump's displacement. */
static int header_extent(const uint8_t *buf, size_t len, struct bzimage *bz,
			 char *err)
{
	uint64_t end;

	if (buf[BZ_JUMP] != 0xeb)
		return fail(err, "setup header has no short jump at 0x200");
	end = BZ_HEADER + (uint64_t)buf[BZ_JUMP + 1];
	if (end < MIN_FILE || end - BZ_HDR_START > BZ_HDR_MAX)
		return fail(err, "setup header ends at 0x%llx, outside "
			    "[0x%x, 0x290]", (unsigned long long)end, MIN_FILE);
	if (end > len)	/* found by fuzz_loader: read past the file */
		return fail(err, "file truncated inside the setup header");
	bz->hdr_len = (size_t)(end - BZ_HDR_START);
	memcpy(bz->hdr, buf + BZ_HDR_START, bz->hdr_len);
	return 0;
}

/* Where the protected-mode kernel is in the file and how big it is. */
static int kernel_extent(const uint8_t *buf, size_t len, struct bzimage *bz,
			 char *err)
{
	unsigned int sects = buf[BZ_SETUP_SECTS] ? buf[BZ_SETUP_SECTS] : 4;
	uint64_t syssize = le32_get(buf + BZ_SYSSIZE) * 16ull;

	bz->kernel_offset = (sects + 1ull) * 512;
	if (bz->kernel_offset >= len)
		return fail(err, "file ends inside the real-mode setup "
			    "(%u sectors): truncated?", sects);
	bz->kernel_size = len - bz->kernel_offset;
	if (!syssize || syssize > bz->kernel_size)
		return fail(err, "truncated: the header announces %llu kernel "
			    "bytes, the file has %llu",
			    (unsigned long long)syssize,
			    (unsigned long long)bz->kernel_size);
	return 0;
}

static int check_fields(struct bzimage *bz, char *err)
{
	if (!(bz->xloadflags & XLF_KERNEL_64))
		return fail(err, "not a 64-bit kernel (xloadflags has no "
			    "XLF_KERNEL_64)");
	if (!is_pow2(bz->kernel_alignment) || bz->kernel_alignment < PAGE)
		return fail(err, "bad kernel_alignment 0x%x",
			    bz->kernel_alignment);
	if (bz->init_size < bz->kernel_size)
		return fail(err, "init_size 0x%llx is smaller than the kernel "
			    "(0x%llx bytes)", (unsigned long long)bz->init_size,
			    (unsigned long long)bz->kernel_size);
	if (!bz->pref_address || bz->pref_address % PAGE ||
	    bz->pref_address + bz->init_size < bz->pref_address)
		return fail(err, "bad pref_address 0x%llx",
			    (unsigned long long)bz->pref_address);
	if (!bz->cmdline_size)
		return fail(err, "cmdline_size is 0");
	if (bz->initrd_addr_max < PAGE)
		return fail(err, "bad initrd_addr_max 0x%x",
			    bz->initrd_addr_max);
	return 0;
}

int bzimage_parse(const uint8_t *buf, size_t len, struct bzimage *bz,
		  char *err)
{
	const uint8_t *h = buf;

	memset(bz, 0, sizeof(*bz));
	if (!bzimage_probe(buf, len))
		return fail(err, "not a bzImage (no boot flag and \"HdrS\")");
	if (len < MIN_FILE)
		return fail(err, "truncated inside the setup header");
	bz->version = le16_get(h + BZ_VERSION);
	if (bz->version < BZ_MIN_VERSION)
		return fail(err, "boot protocol %u.%02u is older than 2.12",
			    bz->version >> 8, bz->version & 0xff);
	if (header_extent(buf, len, bz, err) < 0 ||
	    kernel_extent(buf, len, bz, err) < 0)
		return -1;
	bz->init_size = le32_get(h + BZ_INIT_SIZE);
	bz->pref_address = le64_get(h + BZ_PREF_ADDRESS);
	bz->kernel_alignment = le32_get(h + BZ_KERNEL_ALIGNMENT);
	bz->relocatable = h[BZ_RELOCATABLE] != 0;
	bz->xloadflags = le16_get(h + BZ_XLOADFLAGS);
	bz->cmdline_size = le32_get(h + BZ_CMDLINE_SIZE);
	bz->initrd_addr_max = le32_get(h + BZ_INITRD_ADDR_MAX);
	return check_fields(bz, err);
}

static bool fits(uint64_t at, uint64_t size, uint64_t lo, uint64_t hi)
{
	return at >= lo && at <= hi && size <= hi - at;
}

int bzimage_place_kernel(const struct bzimage *bz, uint64_t ram_start,
			 uint64_t ram_end, uint64_t *load, char *err)
{
	uint64_t a = bz->kernel_alignment, at;

	if (fits(bz->pref_address, bz->init_size, ram_start, ram_end)) {
		*load = bz->pref_address;
		return 0;
	}
	if (!bz->relocatable)
		return fail(err, "the kernel is not relocatable and needs RAM "
			    "at [0x%llx, +0x%llx); RAM ends at 0x%llx",
			    (unsigned long long)bz->pref_address,
			    (unsigned long long)bz->init_size,
			    (unsigned long long)ram_end);
	at = (ram_start + a - 1) & ~(a - 1);
	if (at < ram_start || !fits(at, bz->init_size, ram_start, ram_end))
		return fail(err, "the kernel needs %llu MiB (init_size) of RAM "
			    "from 0x%llx; RAM ends at 0x%llx: more --memory",
			    (unsigned long long)(bz->init_size >> 20),
			    (unsigned long long)at,
			    (unsigned long long)ram_end);
	*load = at;
	return 0;
}

int bzimage_place_initrd(const struct bzimage *bz, uint64_t size,
			 uint64_t floor, uint64_t ram_end, uint64_t *start,
			 char *err)
{
	uint64_t top = (uint64_t)bz->initrd_addr_max + 1;

	if (top > ram_end)
		top = ram_end;
	if (!size || size > top ||
	    ((top - size) & ~(PAGE - 1)) < floor)
		return fail(err, "%llu bytes do not fit between the kernel's "
			    "end 0x%llx and 0x%llx (RAM end or the kernel's "
			    "initrd_addr_max)", (unsigned long long)size,
			    (unsigned long long)floor,
			    (unsigned long long)top);
	*start = (top - size) & ~(PAGE - 1);
	return 0;
}
