/* SPDX-License-Identifier: MIT */
/*
 * Loading images into the guest: the firmware ROM (a read-only memslot at
 * the top of 4 GiB), a PVH ELF payload (segments pre-placed in RAM, entry
 * from the XEN_ELFNOTE_PHYS32_ENTRY note) and an initrd.  The ELF reader
 * is shared with the multiboot loader (multiboot.h).  Parsing works on
 * buffers and is separate from placement, so it can be tested and fuzzed.
 * Every failure is bad input: one line, and the caller exits with status 2.
 */
#ifndef MINIVMM_LOADER_H
#define MINIVMM_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/memory.h"

struct rom {
	uint8_t *host;
	size_t size;
	uint64_t gpa;
	int region;
};

enum payload_kind { PAYLOAD_NONE, PAYLOAD_PVH, PAYLOAD_BZIMAGE,
		    PAYLOAD_MULTIBOOT };

#define PAYLOAD_SETUP_HEADER_MAX	160
#define PAYLOAD_CMDLINE_MAX		4096
#define PAYLOAD_LOW_MAX			8

/* A multiboot segment below 1 MiB, staged above 1 MiB by the VMM (the
 * firmware still uses low RAM) and copied into place by the firmware's
 * last instructions before the jump. */
struct low_segment {
	uint64_t dst, src, filesz, memsz;
};

struct payload {
	enum payload_kind kind;
	uint64_t entry;
	uint64_t start, size;		/* lowest paddr .. end of last segment */
	uint64_t initrd_start, initrd_size;
	/* bzImage: the setup header for boot_params (linux.c). */
	uint8_t setup_header[PAYLOAD_SETUP_HEADER_MAX];
	uint32_t setup_header_len;
	/* multiboot: segments below 1 MiB (multiboot.h). */
	struct low_segment low[PAYLOAD_LOW_MAX];
	int nlow;
	/* The command line the guest gets; "" before payload_load(). */
	char cmdline[PAYLOAD_CMDLINE_MAX];
};

#define ELF_MAX_SEGMENTS	16

struct elf_segment {
	uint64_t paddr, memsz, filesz, offset;
	uint64_t vaddr;
};

struct elf_pvh_info {
	uint64_t entry;			/* from the PVH note */
	int nseg;
	struct elf_segment seg[ELF_MAX_SEGMENTS];
};

/* What elf_parse reads of any little-endian ELF32/ELF64 image. */
struct elf_info {
	bool is64;
	uint16_t machine;		/* e_machine */
	uint64_t e_entry;
	bool has_pvh_note;
	uint64_t pvh_entry;
	int nseg;			/* PT_LOAD with memsz > 0 */
	struct elf_segment seg[ELF_MAX_SEGMENTS];
};

#define LOADER_ERR_MAX	160

/* Reads a whole regular file of at most max bytes.  -1 with err set. */
int loader_read_file(const char *path, size_t max, uint8_t **buf,
		     size_t *len, char *err);
/* Parses the header, the loadable segments (checked against the file)
 * and the PVH note if there is one.  -1 with err. */
int elf_parse(const uint8_t *buf, size_t len, struct elf_info *info,
	      char *err);
/* Parses an ELF64 (or ELF32) image with a PVH entry note.  -1 with err. */
int elf_pvh_parse(const uint8_t *buf, size_t len, struct elf_pvh_info *info,
		  char *err);

/* The loaders below print "minivmm: error: ..." themselves on failure. */
int rom_load(struct gmem *mem, const char *path, struct rom *rom);
/* Makes host (size bytes, page-aligned; the image ends at 4 GiB) the
 * firmware ROM memslot; rom_load's last step, and a restore's.  0 or -1
 * (printed); host is the caller's on failure. */
int rom_place(struct gmem *mem, void *host, size_t size, struct rom *rom);
int pvh_load(struct gmem *mem, const char *path, struct payload *p);
int initrd_load(struct gmem *mem, const char *path, struct payload *p);

#endif
