// SPDX-License-Identifier: MIT
#include "vmm/boot/linux.h"
#include "vmm/boot/bzimage.h"
#include "vmm/boot/multiboot.h"
#include "vmm/host/host.h"
#include "vmm/layout.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE	4096ull

/* --- is it Linux? ---------------------------------------------------- */

static bool note_is_linux(const uint8_t *p, uint64_t size)
{
	uint64_t off = 0;

	while (size - off >= 12) {
		uint32_t namesz, descsz;
		uint64_t name, next;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		name = off + 12;
		next = name + ((namesz + 3ull) & ~3ull) +
		       ((descsz + 3ull) & ~3ull);
		if (next > size)
			return false;
		if (namesz == 6 && !memcmp(p + name, "Linux", 6))
			return true;
		off = next;
	}
	return false;
}

/* An ELF64 kernel is taken for Linux if it has a note owned by "Linux"
 * (vmlinux always does: build id, version). */
static bool elf_is_linux(const uint8_t *buf, size_t len)
{
	Elf64_Ehdr eh;

	if (len < sizeof(eh) || memcmp(buf, ELFMAG, SELFMAG) ||
	    buf[EI_CLASS] != ELFCLASS64)
		return false;
	memcpy(&eh, buf, sizeof(eh));
	if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > len ||
	    (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > len - eh.e_phoff)
		return false;
	for (unsigned int i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, buf + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_NOTE && ph.p_offset <= len &&
		    ph.p_filesz <= len - ph.p_offset &&
		    note_is_linux(buf + ph.p_offset, ph.p_filesz))
			return true;
	}
	return false;
}

/* --- bzImage ---------------------------------------------------------- */

/* The initrd below initrd_addr_max if it fits, else (if the kernel allows
 * it) at the top of RAM above 4 GiB. */
static int place_initrd(const struct gmem *mem, const struct bzimage *bz,
			uint64_t size, uint64_t floor, uint64_t *start,
			char *err)
{
	uint64_t top = mem->high_ram_end;

	if (bzimage_place_initrd(bz, size, floor, mem->low_ram_end, start,
				 err) == 0)
		return 0;
	if (!(bz->xloadflags & XLF_CAN_BE_LOADED_ABOVE_4G) ||
	    top <= LAYOUT_HIGH_RAM_BASE || size > top - LAYOUT_HIGH_RAM_BASE)
		return -1;
	*start = (top - size) & ~(PAGE - 1);
	return *start >= LAYOUT_HIGH_RAM_BASE ? 0 : -1;
}

/* Reads the initrd (may be none: *buf NULL, *len 0). */
static int read_initrd(const struct gmem *mem, const char *path,
		       uint8_t **buf, size_t *len)
{
	char err[LOADER_ERR_MAX];

	*buf = NULL;
	*len = 0;
	if (!path)
		return 0;
	if (loader_read_file(path, mem->ram_size, buf, len, err) < 0) {
		fprintf(stderr, "minivmm: error: --initrd '%s': %s\n", path,
			err);
		return -1;
	}
	if (*len)
		return 0;
	fprintf(stderr, "minivmm: error: --initrd '%s': empty file\n", path);
	free(*buf);
	*buf = NULL;
	return -1;
}

/* The kernel goes where the initrd still fits above it if it can (a
 * relocatable kernel moves down for a large initrd), else where it fits
 * at all (the initrd placement then says what does not fit). */
static int place_kernel(const struct gmem *mem, const struct bzimage *bz,
			size_t initrd_len, uint64_t *load, char *err)
{
	uint64_t end = mem->low_ram_end;
	uint64_t need = (initrd_len + PAGE - 1) & ~(PAGE - 1);

	if (need && need < end &&
	    bzimage_place_kernel(bz, ABI_PAYLOAD_MIN, end - need, load,
				 err) == 0)
		return 0;
	return bzimage_place_kernel(bz, ABI_PAYLOAD_MIN, end, load, err);
}

static int load_bzimage(struct gmem *mem, const struct vmm_config *cfg,
			const uint8_t *buf, size_t len, struct payload *p,
			size_t *cmdline_limit)
{
	char err[BZIMAGE_ERR_MAX];
	struct bzimage bz;
	uint8_t *initrd = NULL, *dst;
	uint64_t load, istart = 0;
	size_t ilen = 0;
	int ret = -1;

	if (bzimage_parse(buf, len, &bz, err) < 0) {
		fprintf(stderr, "minivmm: error: --kernel '%s': %s\n",
			cfg->kernel, err);
		return -1;
	}
	if (read_initrd(mem, cfg->initrd, &initrd, &ilen) < 0)
		return -1;
	if (place_kernel(mem, &bz, ilen, &load, err) < 0) {
		fprintf(stderr, "minivmm: error: --kernel '%s': %s\n",
			cfg->kernel, err);
		goto out;
	}
	if (ilen && place_initrd(mem, &bz, ilen, load + bz.init_size, &istart,
				 err) < 0) {
		fprintf(stderr, "minivmm: error: --initrd '%s': %s\n",
			cfg->initrd, err);
		goto out;
	}
	dst = gmem_ptr(mem, load, bz.init_size);
	if (!dst || (ilen && gmem_write(mem, istart, initrd, ilen) < 0)) {
		fprintf(stderr, "minivmm: error: --kernel '%s': no RAM at "
			"0x%llx\n", cfg->kernel, (unsigned long long)load);
		goto out;
	}
	/* The rest of init_size is the kernel's scratch: RAM is zeroed. */
	memcpy(dst, buf + bz.kernel_offset, bz.kernel_size);
	p->kind = PAYLOAD_BZIMAGE;
	p->entry = load + BZ_ENTRY64_OFFSET;
	p->start = load;
	p->size = bz.init_size;
	p->initrd_start = istart;
	p->initrd_size = ilen;
	memcpy(p->setup_header, bz.hdr, bz.hdr_len);
	p->setup_header_len = (uint32_t)bz.hdr_len;
	*cmdline_limit = bz.cmdline_size;
	ret = 0;
out:
	free(initrd);
	return ret;
}

/* --- the command line ------------------------------------------------ */

static int build_cmdline(const struct vmm_config *cfg, struct host *h,
			 bool is_linux, size_t limit, struct payload *p)
{
	const char *append = cfg->append ? cfg->append : "";
	bool snap = cfg->snapshot != NULL;	/* it may be snapshotted */
	size_t len;

	if (is_linux) {
		if (host_linux_cmdline(h, append, snap, p->cmdline,
				       sizeof(p->cmdline)) < 0)
			len = SIZE_MAX;
		else
			len = strlen(p->cmdline);
	} else {
		len = strlen(append);
		if (len < sizeof(p->cmdline))
			memcpy(p->cmdline, append, len + 1);
	}
	if (len <= limit && len < sizeof(p->cmdline)) {
		if (is_linux)
			host_linux_cmdline_notes(h, append, snap);
		return 0;
	}
	fprintf(stderr, "minivmm: error: --append: the kernel command line "
		"is longer than the %zu bytes the kernel accepts%s\n", limit,
		is_linux && strlen(append) <= limit ?
		" (with the parameters minivmm adds)" : "");
	return -1;
}

/* --- the payload ------------------------------------------------------ */

/* A multiboot kernel's command line starts with the program name, as
 * GRUB and QEMU pass it: the kvm-unit-tests take argv[0] from it. */
static int multiboot_cmdline(const struct vmm_config *cfg, struct payload *p)
{
	const char *append = cfg->append ? cfg->append : "";
	int n = snprintf(p->cmdline, sizeof(p->cmdline), "%s%s%s", cfg->kernel,
			 *append ? " " : "", append);

	if (n >= 0 && (size_t)n <= PVH_CMDLINE_LIMIT)
		return 0;
	fprintf(stderr, "minivmm: error: --append: the kernel command line "
		"is longer than the %d bytes the kernel accepts (with the "
		"kernel's path first)\n", PVH_CMDLINE_LIMIT);
	return -1;
}

static bool is_elf(const uint8_t *buf, size_t len)
{
	return len >= SELFMAG && !memcmp(buf, ELFMAG, SELFMAG);
}

/* An ELF with a PVH note is booted through PVH even if it also carries a
 * multiboot header. */
static bool elf_has_pvh(const uint8_t *buf, size_t len)
{
	struct elf_info e;
	char err[LOADER_ERR_MAX];

	return is_elf(buf, len) && elf_parse(buf, len, &e, err) == 0 &&
	       e.has_pvh_note;
}

static int load_multiboot(struct gmem *mem, const struct vmm_config *cfg,
			  const uint8_t *buf, size_t len, struct payload *p)
{
	if (multiboot_load(mem, cfg->kernel, buf, len, p) < 0 ||
	    (cfg->initrd && initrd_load(mem, cfg->initrd, p) < 0))
		return -1;
	return multiboot_cmdline(cfg, p);
}

int payload_load(struct gmem *mem, const struct vmm_config *cfg,
		 struct host *h, struct payload *p)
{
	char err[LOADER_ERR_MAX];
	size_t len, limit = PVH_CMDLINE_LIMIT;
	bool is_linux = false;
	uint8_t *buf;
	int ret = 0;

	if (!cfg->kernel) {
		if (cfg->initrd && initrd_load(mem, cfg->initrd, p) < 0)
			return -1;
		return build_cmdline(cfg, h, false, limit, p);
	}
	if (loader_read_file(cfg->kernel, mem->ram_size, &buf, &len,
			     err) < 0) {
		fprintf(stderr, "minivmm: error: --kernel '%s': %s\n",
			cfg->kernel, err);
		return -1;
	}
	if (bzimage_probe(buf, len)) {
		is_linux = true;
		ret = load_bzimage(mem, cfg, buf, len, p, &limit);
	} else if (!elf_has_pvh(buf, len) && multiboot_probe(buf, len)) {
		ret = load_multiboot(mem, cfg, buf, len, p);
		free(buf);
		return ret;
	} else if (is_elf(buf, len)) {
		is_linux = elf_is_linux(buf, len);
		if (is_linux)
			limit = LINUX_PVH_CMDLINE_LIMIT;
		ret = pvh_load(mem, cfg->kernel, p);
		if (ret == 0 && cfg->initrd)
			ret = initrd_load(mem, cfg->initrd, p);
	} else {
		fprintf(stderr, "minivmm: error: --kernel '%s': neither a "
			"bzImage, an ELF kernel with a PVH entry note, nor a "
			"multiboot kernel\n", cfg->kernel);
		ret = -1;
	}
	free(buf);
	if (ret < 0)
		return -1;
	return build_cmdline(cfg, h, is_linux, limit, p);
}
