// SPDX-License-Identifier: MIT
#include "vmm/boot/multiboot.h"
#include "firmware/lib/le.h"
#include "vmm/layout.h"

#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define PAGE		4096ull
#define FOUR_GIB	(4ull * GiB)

static int fail(char *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, LOADER_ERR_MAX, fmt, ap);
	va_end(ap);
	return -1;
}

static size_t search_end(size_t len)
{
	return len < MB_SEARCH_BYTES ? len : MB_SEARCH_BYTES;
}

bool multiboot_probe(const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i + 12 <= search_end(len); i += 4)
		if (le32_get(buf + i) == MB_HEADER_MAGIC)
			return true;
	return false;
}

/* The first header whose checksum holds (GRUB's rule: a magic with a bad
 * checksum is passed over). */
static int find_header(const uint8_t *buf, size_t len, size_t *off,
		       char *err)
{
	long first = -1;

	for (size_t i = 0; i + 12 <= search_end(len); i += 4) {
		uint32_t magic = le32_get(buf + i);

		if (magic != MB_HEADER_MAGIC)
			continue;
		if (first < 0)
			first = (long)i;
		if (magic + le32_get(buf + i + 4) +
		    le32_get(buf + i + 8) == 0) {
			*off = i;
			return 0;
		}
	}
	if (first < 0)
		return fail(err, "no multiboot header in the first %d bytes",
			    MB_SEARCH_BYTES);
	return fail(err, "multiboot header at offset 0x%lx has a bad "
		    "checksum", first);
}

static int check_flags(uint32_t flags, char *err)
{
	uint32_t unmet = flags & MB_FLAGS_REQUIRED & ~MB_FLAGS_MET;

	if (unmet & MB_FLAG_VIDEO)
		return fail(err, "the multiboot header asks for a video mode "
			    "(flag 2); minivmm has no display");
	if (unmet)
		return fail(err, "the multiboot header requires features "
			    "minivmm does not know (flags 0x%x)", unmet);
	return 0;
}

/* Flag 16: one segment described by the header's address fields. */
static int layout_from_header(const uint8_t *buf, size_t len,
			      struct multiboot_image *img, char *err)
{
	const uint8_t *h = buf + img->header_off;
	uint32_t header_addr, load_addr, load_end, bss_end;
	uint64_t load_off, filesz, memsz;

	if (len - img->header_off < 32)
		return fail(err, "multiboot header truncated (the address "
			    "fields of flag 16 are missing)");
	header_addr = le32_get(h + 12);
	load_addr = le32_get(h + 16);
	load_end = le32_get(h + 20);
	bss_end = le32_get(h + 24);
	img->entry = le32_get(h + 28);
	if (load_addr > header_addr ||
	    header_addr - load_addr > img->header_off)
		return fail(err, "multiboot load_addr 0x%x does not fit "
			    "header_addr 0x%x at file offset 0x%zx", load_addr,
			    header_addr, img->header_off);
	load_off = img->header_off - (header_addr - load_addr);
	filesz = load_end ? (uint64_t)load_end - load_addr : len - load_off;
	if (load_end && (load_end < load_addr || filesz > len - load_off))
		return fail(err, "multiboot load_end_addr 0x%x is outside "
			    "the file", load_end);
	memsz = bss_end ? (uint64_t)bss_end - load_addr : filesz;
	if (bss_end && (bss_end < load_addr || memsz < filesz))
		return fail(err, "multiboot bss_end_addr 0x%x is below the "
			    "loaded bytes", bss_end);
	if (!memsz)
		return fail(err, "multiboot header describes nothing to load");
	img->nseg = 1;
	img->seg[0] = (struct elf_segment){ load_addr, memsz, filesz,
					    load_off, load_addr };
	return 0;
}

static int layout_from_elf(const uint8_t *buf, size_t len,
			   struct multiboot_image *img, char *err)
{
	struct elf_info e;

	if (len < SELFMAG || memcmp(buf, ELFMAG, SELFMAG))
		return fail(err, "a multiboot kernel that is not ELF needs the "
			    "load addresses in its header (flag 16)");
	if (elf_parse(buf, len, &e, err) < 0)
		return -1;
	if (e.machine != (e.is64 ? EM_X86_64 : EM_386))
		return fail(err, "ELF machine %u is not x86", e.machine);
	if (!e.nseg)
		return fail(err, "no loadable segments");
	img->nseg = e.nseg;
	memcpy(img->seg, e.seg, sizeof(e.seg));
	img->entry = e.e_entry;
	/* e_entry is virtual: a kernel linked high enters at its physical
	 * alias, as GRUB does it. */
	for (int i = 0; i < e.nseg; i++) {
		const struct elf_segment *s = &e.seg[i];

		if (e.e_entry >= s->vaddr && e.e_entry - s->vaddr < s->memsz) {
			img->entry = s->paddr + (e.e_entry - s->vaddr);
			break;
		}
	}
	return 0;
}

int multiboot_parse(const uint8_t *buf, size_t len,
		    struct multiboot_image *img, char *err)
{
	memset(img, 0, sizeof(*img));
	if (find_header(buf, len, &img->header_off, err) < 0)
		return -1;
	img->flags = le32_get(buf + img->header_off + 4);
	if (check_flags(img->flags, err) < 0)
		return -1;
	if (img->flags & MB_FLAG_ADDRESSES) {
		if (layout_from_header(buf, len, img, err) < 0)
			return -1;
	} else if (layout_from_elf(buf, len, img, err) < 0) {
		return -1;
	}
	for (int i = 0; i < img->nseg; i++)
		if (img->seg[i].paddr + img->seg[i].memsz > FOUR_GIB)
			return fail(err, "segment at 0x%llx (+0x%llx) is not "
				    "below 4 GiB",
				    (unsigned long long)img->seg[i].paddr,
				    (unsigned long long)img->seg[i].memsz);
	return 0;
}

/* --- placement --------------------------------------------------------- */

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

static int check_low(const struct elf_segment *s, char *err)
{
	if (s->paddr >= ABI_LOW_MEM_MIN &&
	    s->paddr + s->memsz <= ABI_LOW_MEM_END &&
	    !overlaps(s->paddr, s->memsz, ABI_BOOTINFO_BASE,
		      ABI_BOOTINFO_END - ABI_BOOTINFO_BASE))
		return 0;
	return fail(err, "segment at 0x%llx (+0x%llx) is not in free RAM "
		    "below 1 MiB (0x%x-0x%x and 0x%x-0x%x)",
		    (unsigned long long)s->paddr,
		    (unsigned long long)s->memsz, ABI_LOW_MEM_MIN,
		    ABI_BOOTINFO_BASE, ABI_BOOTINFO_END, ABI_LOW_MEM_END);
}

static int check_high(struct gmem *mem, const struct elf_segment *s,
		      char *err)
{
	if (s->paddr >= ABI_PAYLOAD_MIN &&
	    s->paddr + s->memsz <= mem->low_ram_end &&
	    gmem_ptr(mem, s->paddr, s->memsz))
		return 0;
	return fail(err, "segment at 0x%llx (+0x%llx) is not inside guest "
		    "RAM between 1 MiB and 0x%llx",
		    (unsigned long long)s->paddr,
		    (unsigned long long)s->memsz,
		    (unsigned long long)mem->low_ram_end);
}

static int check_layout(struct gmem *mem, const struct multiboot_image *img,
			uint64_t *high_end, char *err)
{
	bool entry_ok = false;
	int nlow = 0;

	*high_end = 0;
	for (int i = 0; i < img->nseg; i++) {
		const struct elf_segment *s = &img->seg[i];
		uint64_t end = s->paddr + s->memsz;

		if (end <= ABI_PAYLOAD_MIN ? check_low(s, err) < 0 :
		    check_high(mem, s, err) < 0)
			return -1;
		if (end <= ABI_PAYLOAD_MIN && ++nlow > PAYLOAD_LOW_MAX)
			return fail(err, "more than %d segments below 1 MiB",
				    PAYLOAD_LOW_MAX);
		if (end > ABI_PAYLOAD_MIN && end > *high_end)
			*high_end = end;
		for (int j = 0; j < i; j++)
			if (overlaps(s->paddr, s->memsz, img->seg[j].paddr,
				     img->seg[j].memsz))
				return fail(err, "segments %d and %d overlap",
					    j, i);
		entry_ok |= img->entry >= s->paddr &&
			    img->entry - s->paddr < s->memsz;
	}
	if (!entry_ok)
		return fail(err, "multiboot entry 0x%llx is outside the loaded "
			    "segments", (unsigned long long)img->entry);
	return 0;
}

/* The staging area: right above the high segments (or at 1 MiB), one
 * 16-byte aligned slot per low segment's file bytes, whole pages. */
static uint64_t stage_size(const struct multiboot_image *img)
{
	uint64_t n = 0;

	for (int i = 0; i < img->nseg; i++)
		if (img->seg[i].paddr + img->seg[i].memsz <= ABI_PAYLOAD_MIN)
			n += (img->seg[i].filesz + 15) & ~15ull;
	return (n + PAGE - 1) & ~(PAGE - 1);
}

static void put(uint8_t *dst, const uint8_t *buf, const struct elf_segment *s,
		uint64_t room)
{
	memcpy(dst, buf + s->offset, s->filesz);
	memset(dst + s->filesz, 0, room - s->filesz);
}

int multiboot_place(struct gmem *mem, const uint8_t *buf,
		    const struct multiboot_image *img, struct payload *p,
		    char *err)
{
	uint64_t high_end, stage, ssize, lo = UINT64_MAX, hi;

	if (check_layout(mem, img, &high_end, err) < 0)
		return -1;
	ssize = stage_size(img);
	stage = high_end > ABI_PAYLOAD_MIN ?
		(high_end + PAGE - 1) & ~(PAGE - 1) : ABI_PAYLOAD_MIN;
	hi = ssize ? stage + ssize : high_end;
	if (ssize && (hi > mem->low_ram_end || !gmem_ptr(mem, stage, ssize)))
		return fail(err, "no room above the kernel in low RAM to stage "
			    "its segments below 1 MiB");
	p->nlow = 0;
	for (int i = 0; i < img->nseg; i++) {
		const struct elf_segment *s = &img->seg[i];
		uint64_t room = (s->filesz + 15) & ~15ull;

		if (s->paddr >= ABI_PAYLOAD_MIN) {
			put(gmem_ptr(mem, s->paddr, s->memsz), buf, s,
			    s->memsz);
			lo = s->paddr < lo ? s->paddr : lo;
			continue;
		}
		if (room)
			put(gmem_ptr(mem, stage, room), buf, s, room);
		p->low[p->nlow++] = (struct low_segment){
			s->paddr, stage, s->filesz, s->memsz };
		stage += room;
	}
	if (ssize)
		lo = hi - ssize < lo ? hi - ssize : lo;
	if (lo >= hi)	/* only empty low segments: nothing above 1 MiB */
		lo = hi = 0;
	p->kind = PAYLOAD_MULTIBOOT;
	p->entry = img->entry;
	p->start = lo;
	p->size = hi - lo;
	return 0;
}

int multiboot_load(struct gmem *mem, const char *path, const uint8_t *buf,
		   size_t len, struct payload *p)
{
	struct multiboot_image img;
	char err[LOADER_ERR_MAX];

	if (multiboot_parse(buf, len, &img, err) == 0 &&
	    multiboot_place(mem, buf, &img, p, err) == 0)
		return 0;
	fprintf(stderr, "minivmm: error: --kernel '%s': %s\n", path, err);
	return -1;
}
