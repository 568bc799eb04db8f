// SPDX-License-Identifier: MIT
/*
 * The image loaders on hostile files: the PVH ELF parser (elf_pvh_parse),
 * the multiboot parser and placement (multiboot.h), the bzImage
 * setup-header parser and placement (bzimage.h), and the
 * loaders the VMM calls with a path (payload_load as vm.c does, or
 * pvh_load + initrd_load, and rom_load), each reading the file from a memfd
 * into guest memory built without KVM (vm_fd -1).
 *
 * Input: byte 0 picks the RAM size (bits 0-1), the path (bit 6:
 * payload_load), a command line of 256 * bits 2-5 bytes, and whether the
 * image is also loaded as firmware (bit 7); bytes 1-2 give the initrd
 * length; then the kernel image, then the initrd.
 *
 * Checked, when a load succeeds:
 *   - the payload lies in low RAM at or above ABI_PAYLOAD_MIN, and its
 *     entry inside it; every segment holds its file bytes and then zeros
 *     (when segments do not overlap);
 *   - the initrd is page aligned, above the payload, inside low RAM, and
 *     holds the file;
 *   - the ROM ends at 4 GiB, is page-sized, and ends with the image.
 *   - a placed multiboot kernel holds its segments at or above 1 MiB in
 *     low RAM, its staged low segments inside the payload range and bound
 *     for free RAM below 1 MiB, and its entry inside a segment;
 *   - a parsed bzImage's kernel lies inside the file; its placement is in
 *     the RAM range and aligned; its initrd placement is page aligned,
 *     above the kernel, below the kernel's initrd limit;
 *   - payload_load leaves a terminated command line and the payload and
 *     initrd inside guest RAM.
 * And when parsing fails, the error message is a terminated line.
 */
#include "tests/fuzz/fuzz_util.h"
#include "vmm/layout.h"
#include "vmm/boot/bzimage.h"
#include "vmm/boot/linux.h"
#include "vmm/boot/loader.h"
#include "vmm/boot/multiboot.h"
#include "vmm/host/host.h"

#include <sys/mman.h>

#define PAGE		4096ull

static const uint64_t ram_sizes[] = { 16 * MiB, 32 * MiB, 4 * MiB, 64 * MiB };

/* A path naming a memfd holding buf, for the path-based loaders. */
static int as_file(const uint8_t *buf, size_t len, char *path, size_t plen)
{
	int fd = memfd_create("image", MFD_CLOEXEC);

	FZ_CHECK(fd >= 0, "memfd_create");
	FZ_CHECK(len == 0 || write(fd, buf, len) == (ssize_t)len, "write");
	snprintf(path, plen, "/proc/self/fd/%d", fd);
	return fd;
}

static bool segments_disjoint(const struct elf_pvh_info *info)
{
	for (int i = 0; i < info->nseg; i++)
		for (int j = i + 1; j < info->nseg; j++) {
			const struct elf_segment *a = &info->seg[i];
			const struct elf_segment *b = &info->seg[j];

			if (a->paddr < b->paddr + b->memsz &&
			    b->paddr < a->paddr + a->memsz)
				return false;
		}
	return true;
}

static void check_payload(struct gmem *mem, const struct payload *p,
			  const uint8_t *img, const struct elf_pvh_info *info)
{
	FZ_CHECK(p->kind == PAYLOAD_PVH, "kind %d", p->kind);
	FZ_CHECK(p->start >= ABI_PAYLOAD_MIN && p->size &&
		 p->start + p->size <= mem->low_ram_end,
		 "payload 0x%llx+0x%llx", (unsigned long long)p->start,
		 (unsigned long long)p->size);
	FZ_CHECK(p->entry >= p->start && p->entry - p->start < p->size,
		 "entry 0x%llx outside the payload",
		 (unsigned long long)p->entry);
	if (!segments_disjoint(info))
		return;
	for (int i = 0; i < info->nseg; i++) {
		const struct elf_segment *s = &info->seg[i];
		const uint8_t *g = gmem_ptr(mem, s->paddr, s->memsz);

		FZ_CHECK(g, "segment %d not in RAM", i);
		FZ_CHECK(!memcmp(g, img + s->offset, s->filesz),
			 "segment %d bytes differ", i);
		for (uint64_t k = s->filesz; k < s->memsz; k++)
			FZ_CHECK(!g[k], "segment %d not zeroed at 0x%llx", i,
				 (unsigned long long)k);
	}
}

static void check_initrd(struct gmem *mem, const struct payload *p,
			 const uint8_t *rd, size_t len)
{
	const uint8_t *g = gmem_ptr(mem, p->initrd_start, len);

	FZ_CHECK(p->initrd_size == len && !(p->initrd_start & (PAGE - 1)),
		 "initrd 0x%llx+0x%llx", (unsigned long long)p->initrd_start,
		 (unsigned long long)p->initrd_size);
	FZ_CHECK(p->initrd_start >= p->start + p->size &&
		 p->initrd_start >= ABI_PAYLOAD_MIN &&
		 p->initrd_start + len <= mem->low_ram_end,
		 "initrd at 0x%llx overlaps the payload or leaves low RAM",
		 (unsigned long long)p->initrd_start);
	FZ_CHECK(g && !memcmp(g, rd, len), "initrd bytes differ");
}

static void load_rom(struct gmem *mem, const uint8_t *img, size_t len)
{
	struct rom rom = { 0 };
	char path[64];
	int fd = as_file(img, len, path, sizeof(path));

	if (rom_load(mem, path, &rom) == 0) {
		FZ_CHECK(rom.gpa + rom.size == 4 * GiB &&
			 !(rom.size & (PAGE - 1)) && rom.size >= len,
			 "ROM at 0x%llx+0x%zx", (unsigned long long)rom.gpa,
			 rom.size);
		FZ_CHECK(!memcmp(rom.host + rom.size - len, img, len),
			 "ROM bytes differ");
		munmap(rom.host, rom.size);
	} else {
		FZ_CHECK(len < 16 || len > LAYOUT_FW_MAX,
			 "a %zu-byte firmware was refused", len);
	}
	close(fd);
}

static void check_bzimage(const uint8_t *img, size_t len)
{
	char err[BZIMAGE_ERR_MAX];
	struct bzimage bz;
	uint64_t load, start, end = 64 * MiB;

	if (!bzimage_probe(img, len))
		return;
	if (bzimage_parse(img, len, &bz, err) < 0) {
		FZ_CHECK(memchr(err, 0, sizeof(err)) && err[0],
			 "bzimage_parse failed without a message");
		return;
	}
	FZ_CHECK(bz.kernel_offset <= len &&
		 bz.kernel_size <= len - bz.kernel_offset &&
		 bz.hdr_len <= BZ_HDR_MAX,
		 "kernel 0x%llx+0x%llx in a file of 0x%zx",
		 (unsigned long long)bz.kernel_offset,
		 (unsigned long long)bz.kernel_size, len);
	if (bzimage_place_kernel(&bz, ABI_PAYLOAD_MIN, end, &load, err) < 0)
		return;
	FZ_CHECK(load >= ABI_PAYLOAD_MIN && bz.init_size <= end &&
		 load <= end - bz.init_size,
		 "kernel at 0x%llx+0x%llx", (unsigned long long)load,
		 (unsigned long long)bz.init_size);
	FZ_CHECK(load == bz.pref_address || !bz.kernel_alignment ||
		 load % bz.kernel_alignment == 0, "kernel at 0x%llx "
		 "misaligned", (unsigned long long)load);
	if (bzimage_place_initrd(&bz, 0x10000, load + bz.init_size, end,
				 &start, err) < 0)
		return;
	FZ_CHECK(!(start & (PAGE - 1)) && start >= load + bz.init_size &&
		 start + 0x10000 <= end &&
		 start + 0x10000 - 1 <= bz.initrd_addr_max,
		 "initrd at 0x%llx", (unsigned long long)start);
}

static bool entry_in(const struct payload *p)
{
	if (p->entry >= p->start && p->entry - p->start < p->size)
		return true;
	for (int i = 0; i < p->nlow; i++)
		if (p->entry >= p->low[i].dst &&
		    p->entry - p->low[i].dst < p->low[i].memsz)
			return true;
	return false;
}

static void check_multiboot(struct gmem *mem, const uint8_t *img, size_t len)
{
	struct multiboot_image m;
	struct payload p = { 0 };
	char err[LOADER_ERR_MAX];

	if (multiboot_parse(img, len, &m, err) < 0) {
		FZ_CHECK(memchr(err, 0, sizeof(err)) && err[0],
			 "multiboot_parse failed without a message");
		return;
	}
	if (multiboot_place(mem, img, &m, &p, err) < 0) {
		FZ_CHECK(memchr(err, 0, sizeof(err)) && err[0],
			 "multiboot_place failed without a message");
		return;
	}
	FZ_CHECK(p.kind == PAYLOAD_MULTIBOOT && p.nlow <= PAYLOAD_LOW_MAX,
		 "kind %d, %d low segments", p.kind, p.nlow);
	FZ_CHECK(!p.size || (p.start >= ABI_PAYLOAD_MIN &&
			     p.start + p.size <= mem->low_ram_end),
		 "payload 0x%llx+0x%llx", (unsigned long long)p.start,
		 (unsigned long long)p.size);
	FZ_CHECK(entry_in(&p), "entry 0x%llx outside",
		 (unsigned long long)p.entry);
	for (int i = 0; i < p.nlow; i++) {
		const struct low_segment *l = &p.low[i];

		FZ_CHECK(l->dst >= ABI_LOW_MEM_MIN &&
			 l->dst + l->memsz <= ABI_LOW_MEM_END &&
			 (l->dst + l->memsz <= ABI_BOOTINFO_BASE ||
			  l->dst >= ABI_BOOTINFO_END) && l->filesz <= l->memsz,
			 "low segment 0x%llx+0x%llx",
			 (unsigned long long)l->dst,
			 (unsigned long long)l->memsz);
		FZ_CHECK(!l->filesz || (l->src >= p.start &&
					l->src + l->filesz <= p.start + p.size),
			 "staged at 0x%llx outside the payload",
			 (unsigned long long)l->src);
	}
}

/* What vm.c does: payload_load with --kernel, --initrd and --append. */
static void via_payload_load(struct gmem *mem, const char *kpath,
			     const char *rpath, uint8_t sel)
{
	struct vmm_config cfg;
	struct payload p = { 0 };
	struct host h;	/* PVM: the Linux command line gets the most */
	size_t alen = 256u * ((sel >> 2) & 15);
	char *append = malloc(alen + 1);

	FZ_CHECK(append, "malloc");
	memset(append, 'a', alen);
	append[alen] = 0;
	cli_defaults(&cfg);
	cfg.kernel = kpath;
	cfg.initrd = rpath;
	cfg.append = append;
	host_from_facts(&h, &(struct host_facts){ .kvm_pvm = true,
						  .ring0_override = -1 });
	if (payload_load(mem, &cfg, &h, &p) == 0) {
		FZ_CHECK(memchr(p.cmdline, 0, sizeof(p.cmdline)),
			 "command line not terminated");
		/* A multiboot kernel may live below 1 MiB alone (realmode):
		 * then its low segments are all there is. */
		FZ_CHECK(p.kind != PAYLOAD_NONE &&
			 (p.size ? gmem_ptr(mem, p.start, p.size) != NULL :
			  p.kind == PAYLOAD_MULTIBOOT && p.nlow > 0),
			 "payload 0x%llx+0x%llx not in RAM",
			 (unsigned long long)p.start,
			 (unsigned long long)p.size);
		FZ_CHECK(!p.initrd_size ||
			 gmem_ptr(mem, p.initrd_start, p.initrd_size),
			 "initrd not in RAM");
		FZ_CHECK(p.setup_header_len <= sizeof(p.setup_header),
			 "setup header of %u", p.setup_header_len);
	}
	free(append);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz in = { data, size };
	uint8_t sel = fz_u8(&in);
	size_t rd_len = fz_u16(&in), img_len, n;
	const uint8_t *img, *rd;
	struct elf_pvh_info info;
	struct payload p = { 0 };
	char err[LOADER_ERR_MAX], kpath[64], rpath[64];
	struct gmem mem;
	int kfd, rfd;
	bool parsed;

	img_len = in.n > rd_len ? in.n - rd_len : 0;
	img = fz_bytes(&in, img_len, &n);
	rd = fz_bytes(&in, rd_len, &rd_len);
	parsed = elf_pvh_parse(img, img_len, &info, err) == 0;
	if (!parsed)
		FZ_CHECK(memchr(err, 0, sizeof(err)) && err[0],
			 "parse failed without a message");
	check_bzimage(img, img_len);
	FZ_CHECK(gmem_init(&mem, -1, ram_sizes[sel & 3]) == 0, "gmem_init");
	if (multiboot_probe(img, img_len))
		check_multiboot(&mem, img, img_len);
	kfd = as_file(img, img_len, kpath, sizeof(kpath));
	if (sel & 0x40) {
		rfd = as_file(rd, rd_len, rpath, sizeof(rpath));
		via_payload_load(&mem, kpath, rd_len ? rpath : NULL, sel);
		close(rfd);
	} else if (pvh_load(&mem, kpath, &p) == 0) {
		FZ_CHECK(parsed, "pvh_load took what elf_pvh_parse refused");
		check_payload(&mem, &p, img, &info);
		rfd = as_file(rd, rd_len, rpath, sizeof(rpath));
		if (initrd_load(&mem, rpath, &p) == 0)
			check_initrd(&mem, &p, rd, rd_len);
		close(rfd);
	}
	close(kfd);
	if (sel & 0x80)
		load_rom(&mem, img, img_len);
	gmem_destroy(&mem);
	return 0;
}
