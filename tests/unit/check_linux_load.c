// SPDX-License-Identifier: MIT
/* payload_load (vmm/boot/linux.c) without KVM: a crafted bzImage lands at
 * pref_address with its setup header kept for the firmware, the initrd at
 * the top of RAM below initrd_addr_max, a relocatable kernel moves down to
 * make room for a large initrd, the command line gets the host's
 * parameters and is checked against cmdline_size; and each bad input
 * fails with one line. */
#include "tests/unit/unit.h"
#include "firmware/lib/le.h"
#include "vmm/boot/bzimage.h"
#include "vmm/layout.h"
#include "vmm/boot/linux.h"
#include "vmm/host/host.h"

#define SECTS		1
#define KOFF		((SECTS + 1) * 512)
#define KSIZE		0x4000
#define INIT_SIZE	0x1000000	/* 16 MiB */

static uint8_t img[KOFF + KSIZE];
static struct gmem mem;
static struct vmm_config cfg;
static struct payload p;
static struct host host;	/* PVM unless a test says otherwise */
static char kpath[PATH_MAX], ipath[PATH_MAX];

static void build(uint32_t cmdline_size)
{
	memset(img, 0, sizeof(img));
	img[BZ_SETUP_SECTS] = SECTS;
	le32_put(img + BZ_SYSSIZE, KSIZE / 16);
	img[BZ_BOOT_FLAG] = 0x55;
	img[BZ_BOOT_FLAG + 1] = 0xaa;
	img[BZ_JUMP] = 0xeb;
	img[BZ_JUMP + 1] = 0x6a;
	memcpy(img + BZ_HEADER, "HdrS", 4);
	img[BZ_VERSION] = 0x0f;
	img[BZ_VERSION + 1] = 0x02;
	le32_put(img + BZ_INITRD_ADDR_MAX, 0x7fffffff);
	le32_put(img + BZ_KERNEL_ALIGNMENT, 0x200000);
	img[BZ_RELOCATABLE] = 1;
	img[BZ_XLOADFLAGS] = 0x03;
	le32_put(img + BZ_CMDLINE_SIZE, cmdline_size);
	le32_put(img + BZ_PREF_ADDRESS, 0x1000000);
	le32_put(img + BZ_INIT_SIZE, INIT_SIZE);
	for (size_t i = KOFF; i < sizeof(img); i++)
		img[i] = (uint8_t)(i * 29 + 1);
	tmpfile_with(kpath, img, sizeof(img));
}

static void setup(void)
{
	host_from_facts(&host, &(struct host_facts){ .kvm_pvm = true,
						     .ring0_override = -1 });
	ck_assert_int_eq(gmem_init(&mem, -1, 64 * MiB), 0);
	cli_defaults(&cfg);
	memset(&p, 0, sizeof(p));
	kpath[0] = ipath[0] = 0;
}

static void teardown(void)
{
	gmem_destroy(&mem);
	if (kpath[0])
		unlink(kpath);
	if (ipath[0])
		unlink(ipath);
}

static int load(const char **err)
{
	static struct capture c;
	int ret;

	cfg.kernel = kpath;
	capture_start(&c, 2);
	ret = payload_load(&mem, &cfg, &host, &p);
	*err = capture_end(&c);
	return ret;
}

START_TEST(bzimage_at_pref_address)
{
	const char *err;
	uint8_t *k;

	build(2047);
	cfg.append = "console=ttyS0";
	ck_assert_int_eq(load(&err), 0);
	ck_assert_int_eq(p.kind, PAYLOAD_BZIMAGE);
	ck_assert_uint_eq(p.start, 0x1000000);
	ck_assert_uint_eq(p.size, INIT_SIZE);
	ck_assert_uint_eq(p.entry, 0x1000200);
	ck_assert_uint_eq(p.initrd_size, 0);
	k = gmem_ptr(&mem, p.start, KSIZE);
	ck_assert_mem_eq(k, img + KOFF, KSIZE);
	ck_assert_uint_eq(p.setup_header_len, 0x26c - 0x1f1);
	ck_assert_mem_eq(p.setup_header, img + 0x1f1, p.setup_header_len);
	ck_assert_str_eq(p.cmdline, "noxsave clearcpuid=smap,popcnt,ssse3,"
			 "erms,fsrm noreplace-smp lapic=notscdeadline "
			 "console=ttyS0");
	ck_assert_int_eq(count_lines(err), 4);	/* the four announcements */
	ck_assert_uint_eq(quirk_count(&host.log, QUIRK_LINUX_CMDLINE), 4);
}
END_TEST

START_TEST(initrd_placement)
{
	static uint8_t initrd[0x3001];
	const char *err;

	build(2047);
	memset(initrd, 0x5a, sizeof(initrd));
	tmpfile_with(ipath, initrd, sizeof(initrd));
	cfg.initrd = ipath;
	ck_assert_int_eq(load(&err), 0);
	ck_assert_uint_eq(p.initrd_size, sizeof(initrd));
	ck_assert_uint_eq(p.initrd_start, 64 * MiB - 0x4000);
	ck_assert_mem_eq(gmem_ptr(&mem, p.initrd_start, sizeof(initrd)),
			 initrd, sizeof(initrd));
}
END_TEST

/* 40 MiB of initrd: above the kernel at 16 MiB only 32 MiB are left, so
 * the kernel moves down to 2 MiB. */
START_TEST(large_initrd_moves_kernel)
{
	const char *err;

	build(2047);
	tmpfile_sized(ipath, 40 * MiB);
	cfg.initrd = ipath;
	ck_assert_int_eq(load(&err), 0);
	ck_assert_uint_eq(p.start, 0x200000);
	ck_assert_uint_eq(p.initrd_start, 24 * MiB);
	ck_assert_uint_ge(p.initrd_start, p.start + p.size);
}
END_TEST

START_TEST(initrd_too_large)
{
	const char *err;

	build(2047);
	tmpfile_sized(ipath, 50 * MiB);
	cfg.initrd = ipath;
	ck_assert_int_eq(load(&err), -1);
	assert_one_line(err, "--initrd", "do not fit");
}
END_TEST

/* On hardware virtualization a Linux kernel gets the user's command line
 * as given, and nothing is said. */
START_TEST(hardware_cmdline_as_given)
{
	const char *err;

	host_from_facts(&host, &(struct host_facts){ .kvm_amd = true,
						     .ring0_override = -1 });
	build(2047);
	cfg.append = "console=ttyS0 quiet -- init-arg";
	cfg.snapshot = "/tmp/never-written.snap";
	ck_assert_int_eq(load(&err), 0);
	ck_assert_str_eq(p.cmdline, "console=ttyS0 quiet -- init-arg");
	ck_assert_str_eq(err, "");
	ck_assert_uint_eq(quirk_count(&host.log, QUIRK_LINUX_CMDLINE), 0);
	/* the limit is the kernel's alone */
	build(31);
	memset(&p, 0, sizeof(p));
	ck_assert_int_eq(load(&err), 0);
	build(30);
	memset(&p, 0, sizeof(p));
	ck_assert_int_eq(load(&err), -1);
	assert_one_line(err, "longer than the 30 bytes", NULL);
	ck_assert(!strstr(err, "parameters minivmm adds"));
}
END_TEST

START_TEST(cmdline_limit)
{
	char line[64];
	const char *err;

	/* 81 bytes of host parameters + 20 = 101. */
	build(101);
	memset(line, 'x', 20);
	line[20] = 0;
	cfg.append = line;
	ck_assert_int_eq(load(&err), 0);
	ck_assert_uint_eq(strlen(p.cmdline), 101);
	line[20] = 'x';
	line[21] = 0;
	memset(&p, 0, sizeof(p));
	ck_assert_int_eq(load(&err), -1);
	assert_one_line(err, "longer than the 101 bytes",
			"with the parameters minivmm adds");
}
END_TEST

START_TEST(bad_kernels)
{
	const char *err;

	build(2047);
	unlink(kpath);
	tmpfile_with(kpath, img, KOFF + 100);	/* truncated */
	ck_assert_int_eq(load(&err), -1);
	assert_one_line(err, "--kernel", "truncated");
	unlink(kpath);
	tmpfile_with(kpath, "#!/bin/sh\necho hi\n", 18);
	ck_assert_int_eq(load(&err), -1);
	assert_one_line(err, "--kernel", "neither a bzImage, an ELF");
	unlink(kpath);
	tmpfile_with(kpath, "", 0);
	ck_assert_int_eq(load(&err), -1);
	assert_one_line(err, "--kernel", "neither");
	/* 64 MiB of RAM and a kernel needing 80 MiB from 16 MiB. */
	build(2047);
	le32_put(img + BZ_INIT_SIZE, 80 * MiB);
	unlink(kpath);
	tmpfile_with(kpath, img, sizeof(img));
	ck_assert_int_eq(load(&err), -1);
	assert_one_line(err, "--kernel", "more --memory");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("linux_load");
	TCase *t = tcase_create("payload");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, bzimage_at_pref_address);
	tcase_add_test(t, initrd_placement);
	tcase_add_test(t, large_initrd_moves_kernel);
	tcase_add_test(t, initrd_too_large);
	tcase_add_test(t, hardware_cmdline_as_given);
	tcase_add_test(t, cmdline_limit);
	tcase_add_test(t, bad_kernels);
	suite_add_tcase(s, t);
	return unit_run(s);
}
