// SPDX-License-Identifier: MIT
/* The multiboot v1 loader (vmm/boot/multiboot.c) without KVM: ELF32 and
 * ELF64 images laid out like the kvm-unit-tests .flat files, segments
 * below 1 MiB staged for the firmware (realmode.flat), the header's
 * address fields (flag 16), payload_load's detection order and command
 * line; and every hostile header refused with one line. */
#include "tests/unit/unit.h"
#include "firmware/lib/le.h"
#include "vmm/boot/linux.h"
#include "vmm/boot/multiboot.h"
#include "vmm/host/host.h"
#include "vmm/layout.h"

#include <elf.h>

#define IMG_MAX		0x8000
#define HDR_OFF		0xb0		/* as in the .flat files */

struct seg {
	uint32_t paddr, memsz, filesz;
};

static uint8_t img[IMG_MAX] __attribute__((aligned(16)));
static size_t img_len;
static size_t data_off[PAYLOAD_LOW_MAX + 2];
static struct gmem mem;
static char path[PATH_MAX];

static uint8_t pattern(int seg, uint32_t i)
{
	return (uint8_t)(seg * 37 + i * 11 + 3);
}

static void mb_header(size_t off, uint32_t flags)
{
	le32_put(img + off, MB_HEADER_MAGIC);
	le32_put(img + off + 4, flags);
	le32_put(img + off + 8, 0u - (MB_HEADER_MAGIC + flags));
}

/* An ELF32 (EM_386) image: ehdr, phdrs, the multiboot header at HDR_OFF,
 * then the segments' data. */
static void build_elf(const struct seg *s, int n, uint32_t entry,
		      uint32_t flags)
{
	Elf32_Ehdr eh = {
		.e_type = ET_EXEC, .e_machine = EM_386,
		.e_version = EV_CURRENT, .e_entry = entry,
		.e_phoff = sizeof(Elf32_Ehdr), .e_ehsize = sizeof(eh),
		.e_phentsize = sizeof(Elf32_Phdr), .e_phnum = (Elf32_Half)n,
	};
	size_t off = 0x200;

	memset(img, 0, sizeof(img));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS32;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	memcpy(img, &eh, sizeof(eh));
	/* after the program headers when they reach past HDR_OFF */
	mb_header(HDR_OFF > sizeof(eh) + (size_t)n * sizeof(Elf32_Phdr) ?
		  HDR_OFF : 0x180, flags);
	for (int i = 0; i < n; i++) {
		Elf32_Phdr ph = {
			.p_type = PT_LOAD, .p_offset = (Elf32_Off)off,
			.p_vaddr = s[i].paddr, .p_paddr = s[i].paddr,
			.p_filesz = s[i].filesz, .p_memsz = s[i].memsz,
			.p_align = 16,
		};

		memcpy(img + sizeof(eh) + (size_t)i * sizeof(ph), &ph,
		       sizeof(ph));
		data_off[i] = off;
		ck_assert_uint_le(off + s[i].filesz, IMG_MAX);
		for (uint32_t j = 0; j < s[i].filesz; j++)
			img[off + j] = pattern(i, j);
		off += (s[i].filesz + 15) & ~15u;
	}
	img_len = off;
}

/* The kvm-unit-tests shape: text, then data with a big .bss. */
static const struct seg flat[] = {
	{ 0x4000b0, 0x6661, 0x6661 }, { 0x407000, 0x40000, 0x1000 },
};

/* realmode.flat's shape: linked at 32 KiB. */
static const struct seg low[] = {
	{ 0x8000, 0x286c, 0x286c }, { 0xb000, 0x2a30, 0x277c },
};

static void setup(void)
{
	ck_assert_int_eq(gmem_init(&mem, -1, 64 * MiB), 0);
	path[0] = 0;
}

static void teardown(void)
{
	gmem_destroy(&mem);
	if (path[0])
		unlink(path);
}

static int parse(struct multiboot_image *m, char *err)
{
	err[0] = 0;
	return multiboot_parse(img, img_len, m, err);
}

static void parse_fails(const char *want)
{
	struct multiboot_image m;
	char err[LOADER_ERR_MAX];

	ck_assert_int_eq(parse(&m, err), -1);
	ck_assert_msg(strstr(err, want), "error \"%s\" lacks \"%s\"", err,
		      want);
}

/* multiboot_load with stderr captured: its status and one line. */
static int load(struct payload *p, struct capture *cap)
{
	int r;

	memset(p, 0, sizeof(*p));
	capture_start(cap, STDERR_FILENO);
	r = multiboot_load(&mem, "k.flat", img, img_len, p);
	capture_end(cap);
	return r;
}

static void load_fails(const char *want)
{
	struct payload p;
	struct capture cap;

	ck_assert_int_eq(load(&p, &cap), -1);
	assert_one_line(cap.text, "--kernel 'k.flat'", want);
}

START_TEST(probe)
{
	build_elf(flat, 2, 0x4000bc, 0);
	ck_assert(multiboot_probe(img, img_len));
	le32_put(img + HDR_OFF, 0);
	ck_assert(!multiboot_probe(img, img_len));
	/* 4-byte aligned within the first 8 KiB only */
	memset(img, 0, sizeof(img));
	le32_put(img + 8192, MB_HEADER_MAGIC);
	ck_assert(!multiboot_probe(img, sizeof(img)));
	le32_put(img + 8188 - 8, MB_HEADER_MAGIC);
	ck_assert(multiboot_probe(img, sizeof(img)));
	le32_put(img + 8188 - 8, 0);
	le32_put(img + 101, MB_HEADER_MAGIC);
	ck_assert(!multiboot_probe(img, sizeof(img)));
	ck_assert(!multiboot_probe(img, 3));
}
END_TEST

START_TEST(load_flat)
{
	struct payload p;
	struct capture cap;
	const uint8_t *g;

	build_elf(flat, 2, 0x4000bc, 0);
	g = gmem_ptr(&mem, 0x407000, 0x40000);
	memset((void *)g, 0xcc, 0x40000);
	ck_assert_msg(load(&p, &cap) == 0, "%s", cap.text);
	ck_assert_str_eq(cap.text, "");
	ck_assert_int_eq(p.kind, PAYLOAD_MULTIBOOT);
	ck_assert_uint_eq(p.entry, 0x4000bc);
	ck_assert_uint_eq(p.start, 0x4000b0);
	ck_assert_uint_eq(p.start + p.size, 0x447000);
	ck_assert_int_eq(p.nlow, 0);
	ck_assert_uint_eq(g[0xfff], pattern(1, 0xfff));
	for (uint32_t i = 0x1000; i < 0x40000; i++)
		ck_assert_uint_eq(g[i], 0);	/* .bss zeroed */
}
END_TEST

START_TEST(load_low_segments)
{
	struct payload p;
	struct capture cap;
	const uint8_t *st;

	build_elf(low, 2, 0x8018, 0);
	ck_assert_msg(load(&p, &cap) == 0, "%s", cap.text);
	ck_assert_uint_eq(p.entry, 0x8018);
	ck_assert_int_eq(p.nlow, 2);
	ck_assert_uint_eq(p.start, ABI_PAYLOAD_MIN);	/* the staging area */
	ck_assert_uint_eq(p.size, 0x5000);	/* 0x2870 + 0x2780, paged */
	for (int i = 0; i < 2; i++) {
		ck_assert_uint_eq(p.low[i].dst, low[i].paddr);
		ck_assert_uint_eq(p.low[i].filesz, low[i].filesz);
		ck_assert_uint_eq(p.low[i].memsz, low[i].memsz);
		ck_assert_uint_ge(p.low[i].src, p.start);
		ck_assert_uint_le(p.low[i].src + low[i].filesz,
				  p.start + p.size);
		st = gmem_ptr(&mem, p.low[i].src, low[i].filesz);
		ck_assert(!memcmp(st, img + data_off[i], low[i].filesz));
	}
	/* Nothing was written below 1 MiB: the firmware still runs there. */
	st = gmem_ptr(&mem, 0x8000, 0x6000);
	for (int i = 0; i < 0x6000; i++)
		ck_assert_uint_eq(st[i], 0);
}
END_TEST

START_TEST(load_mixed)
{
	const struct seg s[] = { { 0x9000, 0x100, 0x80 },
				 { 0x200000, 0x1000, 0x1000 } };
	struct payload p;
	struct capture cap;

	build_elf(s, 2, 0x200010, 0);
	ck_assert_msg(load(&p, &cap) == 0, "%s", cap.text);
	ck_assert_int_eq(p.nlow, 1);
	/* staged right above the high segment */
	ck_assert_uint_eq(p.low[0].src, 0x201000);
	ck_assert_uint_eq(p.start, 0x200000);
	ck_assert_uint_eq(p.start + p.size, 0x202000);
}
END_TEST

START_TEST(header_addresses)
{
	struct multiboot_image m;
	struct payload p;
	struct capture cap;
	char err[LOADER_ERR_MAX];
	const uint8_t *g;

	/* A raw binary: header at 0x40, loaded at 1 MiB, .bss to +0x3000. */
	memset(img, 0, sizeof(img));
	img_len = 0x1000;
	for (size_t i = 0; i < img_len; i++)
		img[i] = pattern(0, (uint32_t)i);
	mb_header(0x40, MB_FLAG_ADDRESSES | MB_FLAG_PAGE_ALIGN);
	le32_put(img + 0x4c, 0x100040);			/* header_addr */
	le32_put(img + 0x50, 0x100000);			/* load_addr */
	le32_put(img + 0x54, 0);		/* load_end: whole file */
	le32_put(img + 0x58, 0x103000);			/* bss_end */
	le32_put(img + 0x5c, 0x100080);			/* entry */
	ck_assert_int_eq(parse(&m, err), 0);
	ck_assert_int_eq(m.nseg, 1);
	ck_assert_uint_eq(m.seg[0].filesz, 0x1000);
	ck_assert_uint_eq(m.seg[0].memsz, 0x3000);
	ck_assert_uint_eq(m.entry, 0x100080);
	ck_assert_msg(load(&p, &cap) == 0, "%s", cap.text);
	g = gmem_ptr(&mem, 0x100000, 0x3000);
	ck_assert_uint_eq(g[0x44], 1);		/* the header's flags */
	ck_assert_uint_eq(g[0x100], pattern(0, 0x100));
	ck_assert_uint_eq(g[0x2fff], 0);
	/* load_end inside the file */
	le32_put(img + 0x54, 0x100800);
	ck_assert_int_eq(parse(&m, err), 0);
	ck_assert_uint_eq(m.seg[0].filesz, 0x800);
}
END_TEST

START_TEST(hostile_headers)
{
	build_elf(flat, 2, 0x4000bc, 0);
	le32_put(img + HDR_OFF + 8, 0);
	parse_fails("bad checksum");
	build_elf(flat, 2, 0x4000bc, MB_FLAG_VIDEO);
	parse_fails("video mode");
	build_elf(flat, 2, 0x4000bc, 1u << 7);
	parse_fails("flags 0x80");
	build_elf(flat, 2, 0x4000bc, 1u << 15 | MB_FLAG_MEMORY_INFO);
	parse_fails("flags 0x8000");
	/* flag 16 with its fields cut off by the end of the file */
	build_elf(flat, 2, 0x4000bc, MB_FLAG_ADDRESSES);
	img_len = HDR_OFF + 20;
	parse_fails("truncated");
	build_elf(flat, 2, 0x4000bc, MB_FLAG_ADDRESSES);
	le32_put(img + HDR_OFF + 12, 0x1000);		/* header_addr */
	le32_put(img + HDR_OFF + 16, 0x2000);		/* load_addr above it */
	parse_fails("load_addr");
	le32_put(img + HDR_OFF + 16, 0x1000 - HDR_OFF - 4); /* before the file */
	parse_fails("load_addr");
	le32_put(img + HDR_OFF + 16, 0x1000 - HDR_OFF);
	le32_put(img + HDR_OFF + 20, 0x1000 - HDR_OFF + (uint32_t)img_len + 1);
	parse_fails("load_end_addr");
	le32_put(img + HDR_OFF + 20, 0x1000);
	le32_put(img + HDR_OFF + 24, 0x800);	/* bss_end below load_end */
	parse_fails("bss_end_addr");
}
END_TEST

START_TEST(hostile_elf)
{
	const struct seg high[] = { { 0xfffff000, 0x2000, 0x10 } };

	build_elf(flat, 2, 0x4000bc, 0);
	img[EI_CLASS] = ELFCLASS64;	/* now a truncated ELF64 header... */
	parse_fails("");
	build_elf(flat, 2, 0x4000bc, 0);
	((Elf32_Ehdr *)img)->e_machine = EM_ARM;
	parse_fails("ELF machine 40 is not x86");
	build_elf(flat, 0, 0x4000bc, 0);
	parse_fails("program headers missing");
	build_elf(high, 1, 0xfffff000, 0);
	parse_fails("not below 4 GiB");
	memcpy(img, "\x7f" "ELG", 4);
	parse_fails("not ELF needs the load addresses");
}
END_TEST

START_TEST(hostile_placement)
{
	const struct seg ivt[] = { { 0x100, 0x100, 0x10 } };
	const struct seg info[] = { { 0x1f000, 0x2000, 0x10 } };
	const struct seg vga[] = { { 0x9f000, 0x2000, 0x10 } };
	const struct seg straddle[] = { { 0xff000, 0x2000, 0x10 } };
	const struct seg beyond[] = { { 0x3f00000, 0x200000, 0x10 } };
	const struct seg overlap[] = { { 0x200000, 0x2000, 0x10 },
				       { 0x201000, 0x2000, 0x10 } };
	struct seg many[PAYLOAD_LOW_MAX + 1];

	build_elf(ivt, 1, 0x100, 0);
	load_fails("not in free RAM below 1 MiB");
	build_elf(info, 1, 0x1f000, 0);
	load_fails("not in free RAM below 1 MiB");
	build_elf(vga, 1, 0x9f000, 0);
	load_fails("not in free RAM below 1 MiB");
	build_elf(straddle, 1, 0xff000, 0);
	load_fails("between 1 MiB and");
	build_elf(beyond, 1, 0x3f00000, 0);
	load_fails("between 1 MiB and 0x4000000");
	build_elf(overlap, 2, 0x200000, 0);
	load_fails("segments 0 and 1 overlap");
	build_elf(flat, 2, 0x500000, 0);
	load_fails("entry 0x500000 is outside");
	for (int i = 0; i <= PAYLOAD_LOW_MAX; i++)
		many[i] = (struct seg){ 0x30000 + (uint32_t)i * 0x1000, 0x100,
					0x10 };
	build_elf(many, PAYLOAD_LOW_MAX + 1, 0x30000, 0);
	load_fails("more than 8 segments below 1 MiB");
}
END_TEST

/* No input crashes the parser or the placement, and a failure always
 * says why. */
START_TEST(every_corruption)
{
	uint8_t orig[0x300];
	struct multiboot_image m;
	char err[LOADER_ERR_MAX];
	struct payload p;
	unsigned int seed = 1;

	build_elf(flat, 2, 0x4000bc, 0);
	memcpy(orig, img, sizeof(orig));
	for (size_t len = 0; len <= 0x300; len += 7) {
		img_len = len;
		if (parse(&m, err) < 0)
			ck_assert(err[0]);
	}
	for (int round = 0; round < 3000; round++) {
		memcpy(img, orig, sizeof(orig));
		img_len = 0x6000;
		for (int k = 0; k < 3; k++)
			img[rand_r(&seed) % sizeof(orig)] =
				(uint8_t)rand_r(&seed);
		if (parse(&m, err) < 0) {
			ck_assert(err[0]);
			continue;
		}
		memset(&p, 0, sizeof(p));
		if (multiboot_place(&mem, img, &m, &p, err) < 0)
			ck_assert(err[0]);
		else
			ck_assert(p.kind == PAYLOAD_MULTIBOOT);
	}
}
END_TEST

/* payload_load: multiboot is recognised by itself, the command line gets
 * the program name first (and nothing of the host's, even on a PVM host:
 * it is not Linux), the initrd becomes the module. */
START_TEST(via_payload_load)
{
	struct vmm_config cfg;
	struct payload p = { 0 };
	char rd[PATH_MAX];
	struct host pvm;

	host_from_facts(&pvm, &(struct host_facts){ .kvm_pvm = true,
						    .ring0_override = -1 });
	build_elf(flat, 2, 0x4000bc, 0);
	tmpfile_with(path, img, img_len);
	tmpfile_with(rd, "NR_CPUS=1\n", 10);
	cli_defaults(&cfg);
	cfg.kernel = path;
	cfg.initrd = rd;
	cfg.append = "cpuid";
	ck_assert_int_eq(payload_load(&mem, &cfg, &pvm, &p), 0);
	unlink(rd);
	ck_assert_int_eq(p.kind, PAYLOAD_MULTIBOOT);
	ck_assert(!strncmp(p.cmdline, path, strlen(path)));
	ck_assert_str_eq(p.cmdline + strlen(path), " cpuid");
	ck_assert_uint_eq(p.initrd_size, 10);
	ck_assert_uint_ge(p.initrd_start, p.start + p.size);
	memset(&p, 0, sizeof(p));
	cfg.initrd = NULL;
	cfg.append = NULL;
	ck_assert_int_eq(payload_load(&mem, &cfg, &pvm, &p), 0);
	ck_assert_str_eq(p.cmdline, path);	/* never empty */
}
END_TEST

START_TEST(via_payload_load_errors)
{
	struct vmm_config cfg;
	struct payload p = { 0 };
	struct capture cap;
	char longer[5000];
	struct host hw;
	int r;

	host_from_facts(&hw, &(struct host_facts){ .ring0_override = -1 });
	build_elf(flat, 2, 0x4000bc, MB_FLAG_VIDEO);
	tmpfile_with(path, img, img_len);
	cli_defaults(&cfg);
	cfg.kernel = path;
	capture_start(&cap, STDERR_FILENO);
	r = payload_load(&mem, &cfg, &hw, &p);
	capture_end(&cap);
	ck_assert_int_eq(r, -1);
	assert_one_line(cap.text, path, "video mode");
	unlink(path);
	build_elf(flat, 2, 0x4000bc, 0);
	tmpfile_with(path, img, img_len);
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = 0;
	cfg.append = longer;
	memset(&p, 0, sizeof(p));
	capture_start(&cap, STDERR_FILENO);
	r = payload_load(&mem, &cfg, &hw, &p);
	capture_end(&cap);
	ck_assert_int_eq(r, -1);
	assert_one_line(cap.text, "--append", "4095 bytes");
}
END_TEST

static Suite *multiboot_suite(void)
{
	Suite *s = suite_create("multiboot");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, probe);
	tcase_add_test(tc, load_flat);
	tcase_add_test(tc, load_low_segments);
	tcase_add_test(tc, load_mixed);
	tcase_add_test(tc, header_addresses);
	tcase_add_test(tc, hostile_headers);
	tcase_add_test(tc, hostile_elf);
	tcase_add_test(tc, hostile_placement);
	tcase_add_test(tc, every_corruption);
	tcase_add_test(tc, via_payload_load);
	tcase_add_test(tc, via_payload_load_errors);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(multiboot_suite());
}
