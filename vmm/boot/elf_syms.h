/* SPDX-License-Identifier: MIT */
/*
 * The function symbols of an ELF image (its .symtab), for saying where a
 * stuck guest was: "RIP 0x... (native_safe_halt+0x6)".  Read once at
 * start-up (the run's sandbox allows no file opens later); an image
 * without a symbol table simply has none.
 */
#ifndef MINIVMM_ELF_SYMS_H
#define MINIVMM_ELF_SYMS_H

#include <stddef.h>
#include <stdint.h>

struct elf_sym {
	uint64_t addr, size;
	uint32_t name;			/* offset into names */
};

struct elf_syms {
	struct elf_sym *v;		/* sorted by addr */
	size_t n;
	char *names;
	size_t names_len;
};

/* 0 with the symbols (possibly none), or -1 if path is not a readable
 * 64-bit ELF file. */
int elf_syms_load(struct elf_syms *s, const char *path);
/* The function containing addr (name, *off from its start), or NULL. */
const char *elf_syms_find(const struct elf_syms *s, uint64_t addr,
			  uint64_t *off);
void elf_syms_free(struct elf_syms *s);

#endif
