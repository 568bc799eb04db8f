// SPDX-License-Identifier: MIT
/* ELF function symbols; see elf_syms.h. */
#include <elf.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmm/boot/elf_syms.h"

static int by_addr(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Section i's header, if it lies within the file. */
static const Elf64_Shdr *section(const uint8_t *f, size_t len,
				 const Elf64_Ehdr *eh, unsigned int i)
{
	uint64_t off = eh->e_shoff + (uint64_t)i * sizeof(Elf64_Shdr);

	if (i >= eh->e_shnum || off < eh->e_shoff || off > len ||
	    len - off < sizeof(Elf64_Shdr))
		return NULL;
	return (const Elf64_Shdr *)(f + off);
}

static bool inside(const Elf64_Shdr *sh, size_t len)
{
	return sh->sh_offset <= len && sh->sh_size <= len - sh->sh_offset;
}

static int collect(struct elf_syms *s, const uint8_t *f,
		   const Elf64_Shdr *sym, const Elf64_Shdr *str)
{
	size_t n = sym->sh_size / sizeof(Elf64_Sym);
	const Elf64_Sym *v = (const Elf64_Sym *)(f + sym->sh_offset);

	s->v = calloc(n ? n : 1, sizeof(*s->v));
	s->names = malloc(str->sh_size + 1);
	if (!s->v || !s->names)
		return -1;
	memcpy(s->names, f + str->sh_offset, str->sh_size);
	s->names[str->sh_size] = 0;
	s->names_len = str->sh_size;
	for (size_t i = 0; i < n; i++) {
		if (ELF64_ST_TYPE(v[i].st_info) != STT_FUNC || !v[i].st_value ||
		    v[i].st_name >= str->sh_size)
			continue;
		s->v[s->n++] = (struct elf_sym){ v[i].st_value, v[i].st_size,
						 v[i].st_name };
	}
	qsort(s->v, s->n, sizeof(*s->v), by_addr);
	return 0;
}

static int parse(struct elf_syms *s, const uint8_t *f, size_t len)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return -1;
	for (unsigned int i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *sym = section(f, len, eh, i), *str;

		if (!sym || sym->sh_type != SHT_SYMTAB || !inside(sym, len))
			continue;
		str = section(f, len, eh, sym->sh_link);
		if (!str || str->sh_type != SHT_STRTAB || !inside(str, len))
			return 0;
		return collect(s, f, sym, str);
	}
	return 0;
}

int elf_syms_load(struct elf_syms *s, const char *path)
{
	struct stat st;
	void *f;
	int fd, rc;

	memset(s, 0, sizeof(*s));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_size <= 0) {
		close(fd);
		return -1;
	}
	f = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f == MAP_FAILED)
		return -1;
	rc = parse(s, f, (size_t)st.st_size);
	munmap(f, (size_t)st.st_size);
	if (rc < 0)
		elf_syms_free(s);
	return rc;
}

const char *elf_syms_find(const struct elf_syms *s, uint64_t addr,
			  uint64_t *off)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {		/* the last symbol at or below addr */
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	lo--;
	if (s->v[lo].size && addr - s->v[lo].addr >= s->v[lo].size)
		return NULL;
	*off = addr - s->v[lo].addr;
	return s->names + s->v[lo].name;
}

void elf_syms_free(struct elf_syms *s)
{
	free(s->v);
	free(s->names);
	memset(s, 0, sizeof(*s));
}
