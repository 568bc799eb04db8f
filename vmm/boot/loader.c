// SPDX-License-Identifier: MIT
#include "vmm/boot/loader.h"
#include "firmware/lib/le.h"
#include "vmm/layout.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define XEN_ELFNOTE_PHYS32_ENTRY	18
#define PAGE				4096ull

static int fail(char *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, LOADER_ERR_MAX, fmt, ap);
	va_end(ap);
	return -1;
}

int loader_read_file(const char *path, size_t max, uint8_t **buf,
		     size_t *len, char *err)
{
	struct stat st;
	uint8_t *b;
	size_t got = 0;
	/* O_NONBLOCK: a FIFO must not hang us before fstat rejects it. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return fail(err, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return fail(err, "not a regular file");
	}
	if ((uint64_t)st.st_size > max) {
		close(fd);
		return fail(err, "too large (%lld bytes, at most %zu)",
			    (long long)st.st_size, max);
	}
	b = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!b) {
		close(fd);
		return fail(err, "out of memory");
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, b + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(b);
			close(fd);
			return fail(err, "read error: %s",
				    r < 0 ? strerror(errno) : "short read");
		}
		got += (size_t)r;
	}
	close(fd);
	*buf = b;
	*len = got;
	return 0;
}

static bool in_file(size_t len, uint64_t off, uint64_t size)
{
	return off <= len && size <= len - off;
}

/* Walks one PT_NOTE segment for the Xen PVH entry note. */
static bool find_pvh_note(const uint8_t *p, uint64_t size, uint64_t *entry)
{
	uint64_t off = 0;

	while (size - off >= 12) {
		uint32_t namesz, descsz, type;
		uint64_t name_off, desc_off, next;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		name_off = off + 12;
		desc_off = name_off + ((namesz + 3ull) & ~3ull);
		next = desc_off + ((descsz + 3ull) & ~3ull);
		if (next > size)
			return false;
		if (type == XEN_ELFNOTE_PHYS32_ENTRY && namesz == 4 &&
		    !memcmp(p + name_off, "Xen", 4) &&
		    (descsz == 4 || descsz == 8)) {
			*entry = le_get(p + desc_off, descsz);
			return true;
		}
		off = next;
	}
	return false;
}

struct phdr {
	uint32_t type;
	uint64_t offset, vaddr, paddr, filesz, memsz;
};

/* The ELF header fields we use, from either class. */
static int read_ehdr(const uint8_t *buf, size_t len, struct elf_info *info,
		     uint64_t *phoff, uint64_t *phentsize, uint64_t *phnum,
		     char *err)
{
	info->is64 = buf[EI_CLASS] == ELFCLASS64;
	/* Headers are copied out: buf need not be aligned. */
	if (info->is64) {
		Elf64_Ehdr eh;

		if (len < sizeof(eh))
			return fail(err, "truncated ELF header");
		memcpy(&eh, buf, sizeof(eh));
		*phoff = eh.e_phoff;
		*phentsize = eh.e_phentsize;
		*phnum = eh.e_phnum;
		info->machine = eh.e_machine;
		info->e_entry = eh.e_entry;
		if (*phentsize != sizeof(Elf64_Phdr))
			return fail(err, "bad program header size");
	} else {
		Elf32_Ehdr eh;

		if (len < sizeof(eh))
			return fail(err, "truncated ELF header");
		memcpy(&eh, buf, sizeof(eh));
		*phoff = eh.e_phoff;
		*phentsize = eh.e_phentsize;
		*phnum = eh.e_phnum;
		info->machine = eh.e_machine;
		info->e_entry = eh.e_entry;
		if (*phentsize != sizeof(Elf32_Phdr))
			return fail(err, "bad program header size");
	}
	return 0;
}

static int read_phdrs(const uint8_t *buf, size_t len, struct elf_info *info,
		      struct phdr *out, int *n, char *err)
{
	uint64_t phoff = 0, phentsize = 0, phnum = 0;

	if (read_ehdr(buf, len, info, &phoff, &phentsize, &phnum, err) < 0)
		return -1;
	if (!phnum || phnum > 64 || !in_file(len, phoff, phnum * phentsize))
		return fail(err, "program headers missing or outside the file");
	for (uint64_t i = 0; i < phnum; i++) {
		const uint8_t *ph = buf + phoff + i * phentsize;

		if (info->is64) {
			Elf64_Phdr h;

			memcpy(&h, ph, sizeof(h));
			out[i] = (struct phdr){ h.p_type, h.p_offset, h.p_vaddr,
						h.p_paddr, h.p_filesz,
						h.p_memsz };
		} else {
			Elf32_Phdr h;

			memcpy(&h, ph, sizeof(h));
			out[i] = (struct phdr){ h.p_type, h.p_offset, h.p_vaddr,
						h.p_paddr, h.p_filesz,
						h.p_memsz };
		}
	}
	*n = (int)phnum;
	return 0;
}

static int add_segment(size_t len, const struct phdr *h, int i,
		       struct elf_info *info, char *err)
{
	if (h->filesz > h->memsz)
		return fail(err, "segment %d has more file bytes than "
			    "memory bytes", i);
	if (!h->memsz)
		return 0;
	if (info->nseg == ELF_MAX_SEGMENTS)
		return fail(err, "more than %d loadable segments",
			    ELF_MAX_SEGMENTS);
	if (!in_file(len, h->offset, h->filesz))
		return fail(err, "segment %d lies outside the file", i);
	if (h->paddr + h->memsz < h->paddr)
		return fail(err, "segment %d wraps around", i);
	info->seg[info->nseg++] = (struct elf_segment){
		h->paddr, h->memsz, h->filesz, h->offset, h->vaddr };
	return 0;
}

int elf_parse(const uint8_t *buf, size_t len, struct elf_info *info,
	      char *err)
{
	struct phdr ph[64];
	int n = 0;

	memset(info, 0, sizeof(*info));
	if (len < EI_NIDENT || memcmp(buf, ELFMAG, SELFMAG))
		return fail(err, "not an ELF file");
	if ((buf[EI_CLASS] != ELFCLASS64 && buf[EI_CLASS] != ELFCLASS32) ||
	    buf[EI_DATA] != ELFDATA2LSB)
		return fail(err, "not a little-endian ELF32/ELF64 file");
	if (read_phdrs(buf, len, info, ph, &n, err) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		const struct phdr *h = &ph[i];

		if (h->type == PT_NOTE && in_file(len, h->offset, h->filesz) &&
		    !info->has_pvh_note)
			info->has_pvh_note = find_pvh_note(buf + h->offset,
							   h->filesz,
							   &info->pvh_entry);
		if (h->type == PT_LOAD &&
		    add_segment(len, h, i, info, err) < 0)
			return -1;
	}
	return 0;
}

int elf_pvh_parse(const uint8_t *buf, size_t len, struct elf_pvh_info *info,
		  char *err)
{
	struct elf_info e;

	memset(info, 0, sizeof(*info));
	if (elf_parse(buf, len, &e, err) < 0)
		return -1;
	if (!e.has_pvh_note)
		return fail(err, "no PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY)");
	if (!e.nseg)
		return fail(err, "no loadable segments");
	info->entry = e.pvh_entry;
	info->nseg = e.nseg;
	memcpy(info->seg, e.seg, sizeof(e.seg));
	return 0;
}

static bool segment_ok(struct gmem *mem, const struct elf_segment *s,
		       uint64_t low_end)
{
	if (s->paddr < ABI_PAYLOAD_MIN)
		return false;
	/* PVH payloads run with paging off: below 4 GiB and in low RAM. */
	if (s->paddr + s->memsz > low_end)
		return false;
	return gmem_ptr(mem, s->paddr, s->memsz) != NULL;
}

static bool entry_in_segments(const struct elf_pvh_info *info)
{
	for (int i = 0; i < info->nseg; i++) {
		const struct elf_segment *s = &info->seg[i];

		if (info->entry >= s->paddr && info->entry - s->paddr < s->memsz)
			return true;
	}
	return false;
}

static int place_segments(struct gmem *mem, const uint8_t *buf,
			  const struct elf_pvh_info *info, struct payload *p,
			  char *err)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (int i = 0; i < info->nseg; i++) {
		const struct elf_segment *s = &info->seg[i];
		uint8_t *dst;

		if (!segment_ok(mem, s, mem->low_ram_end))
			return fail(err, "segment at 0x%llx (+0x%llx) is not "
				    "inside guest RAM between 1 MiB and "
				    "0x%llx", (unsigned long long)s->paddr,
				    (unsigned long long)s->memsz,
				    (unsigned long long)mem->low_ram_end);
		dst = gmem_ptr(mem, s->paddr, s->memsz);
		memcpy(dst, buf + s->offset, s->filesz);
		memset(dst + s->filesz, 0, s->memsz - s->filesz);
		lo = s->paddr < lo ? s->paddr : lo;
		hi = s->paddr + s->memsz > hi ? s->paddr + s->memsz : hi;
	}
	if (!entry_in_segments(info))
		return fail(err, "PVH entry 0x%llx is outside the loaded "
			    "segments", (unsigned long long)info->entry);
	p->kind = PAYLOAD_PVH;
	p->entry = info->entry;
	p->start = lo;
	p->size = hi - lo;
	return 0;
}

int pvh_load(struct gmem *mem, const char *path, struct payload *p)
{
	struct elf_pvh_info info;
	char err[LOADER_ERR_MAX];
	uint8_t *buf = NULL;
	size_t len;
	int ret = -1;

	if (loader_read_file(path, mem->ram_size, &buf, &len, err) == 0 &&
	    elf_pvh_parse(buf, len, &info, err) == 0 &&
	    place_segments(mem, buf, &info, p, err) == 0)
		ret = 0;
	else
		fprintf(stderr, "minivmm: error: --kernel '%s': %s\n", path,
			err);
	free(buf);
	return ret;
}

int initrd_load(struct gmem *mem, const char *path, struct payload *p)
{
	char err[LOADER_ERR_MAX];
	uint64_t top, start;
	uint8_t *buf = NULL;
	size_t len;

	if (loader_read_file(path, mem->ram_size, &buf, &len, err) < 0) {
		fprintf(stderr, "minivmm: error: --initrd '%s': %s\n", path,
			err);
		return -1;
	}
	if (!len) {
		fprintf(stderr, "minivmm: error: --initrd '%s': empty file\n",
			path);
		free(buf);
		return -1;
	}
	/* As high in low RAM as it fits, page aligned, above the payload. */
	top = mem->low_ram_end;
	start = len <= top ? (top - len) & ~(PAGE - 1) : 0;
	if (!len || len > top || start < p->start + p->size ||
	    start < ABI_PAYLOAD_MIN) {
		fprintf(stderr, "minivmm: error: --initrd '%s': %zu bytes do "
			"not fit in guest RAM below 0x%llx above the kernel\n",
			path, len, (unsigned long long)top);
		free(buf);
		return -1;
	}
	gmem_write(mem, start, buf, len);
	free(buf);
	p->initrd_start = start;
	p->initrd_size = len;
	return 0;
}

int rom_place(struct gmem *mem, void *host, size_t size, struct rom *rom)
{
	rom->host = host;
	rom->size = size;
	rom->gpa = 4 * GiB - size;
	rom->region = gmem_add_region(mem, rom->gpa, size, host, true,
				      "firmware-rom");
	if (rom->region < 0) {
		fprintf(stderr, "minivmm: error: mapping the firmware: %s\n",
			strerror(errno));
		rom->host = NULL;
		return -1;
	}
	return 0;
}

int rom_load(struct gmem *mem, const char *path, struct rom *rom)
{
	char err[LOADER_ERR_MAX];
	uint8_t *buf;
	size_t len, size;
	void *map;

	if (loader_read_file(path, LAYOUT_FW_MAX, &buf, &len, err) < 0) {
		fprintf(stderr, "minivmm: error: firmware '%s': %s\n", path,
			err);
		return -1;
	}
	if (len < 16) {
		fprintf(stderr, "minivmm: error: firmware '%s': too small to "
			"hold a reset vector\n", path);
		free(buf);
		return -1;
	}
	/* Pad at the front: the image's end is the reset vector's end. */
	size = (len + PAGE - 1) & ~(PAGE - 1);
	map = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		free(buf);
		return -1;
	}
	memcpy((uint8_t *)map + (size - len), buf, len);
	free(buf);
	mprotect(map, size, PROT_READ);	/* a ROM, on the host side too */
	if (rom_place(mem, map, size, rom) < 0) {
		munmap(map, size);
		return -1;
	}
	return 0;
}
