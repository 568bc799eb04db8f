// SPDX-License-Identifier: MIT
/* The kernel engineer's loop on the host side: --fs/--share values
 * (vmm/cli/fs_opt.c), the --cmd initramfs (vmm/run/cmd.c: the shipped
 * image with /minivmm/ appended as newc), and vhost-user message checks
 * (devices/virtio/vhost_user/msg.c). */
#include "tests/unit/unit.h"
#include "devices/virtio/vhost_user/msg.h"
#include "vmm/boot/elf_syms.h"
#include "vmm/cli/fs_opt.h"
#include "vmm/run/cmd.h"

#include <fcntl.h>

START_TEST(fs_values)
{
	struct fs_opt all[FS_OPT_MAX];
	unsigned int n = 0;
	char err[200];

	ck_assert_int_eq(fs_opt_add(all, &n, "/srv,ro", true, err, 200), 0);
	ck_assert_str_eq(all[0].path, "/srv");
	ck_assert_str_eq(all[0].tag, "share0");
	ck_assert(all[0].ro && all[0].share);
	ck_assert_int_eq(fs_opt_add(all, &n, "/:ro", true, err, 200), 0);
	ck_assert_str_eq(all[1].tag, "root");
	ck_assert_str_eq(all[1].path, "/");
	ck_assert(all[1].ro);
	ck_assert_int_eq(fs_opt_add(all, &n, "/run/v.sock,tag=t-1.x_y", false,
				    err, 200), 0);
	ck_assert_str_eq(all[2].tag, "t-1.x_y");
	ck_assert(!all[2].share && !all[2].ro);
	/* ro is --share's; a tag is needed for --fs; tags are unique */
	ck_assert_int_eq(fs_opt_add(all, &n, "/s,tag=a,ro", false, err, 200),
			 -1);
	ck_assert_int_eq(fs_opt_add(all, &n, "/s", false, err, 200), -1);
	ck_assert(strstr(err, "tag=TAG is needed"));
	ck_assert_int_eq(fs_opt_add(all, &n, "/s,tag=root", true, err, 200),
			 -1);
	ck_assert(strstr(err, "taken"));
	ck_assert_int_eq(fs_opt_add(all, &n, "/s,tag=a b", true, err, 200),
			 -1);
	ck_assert_int_eq(fs_opt_add(all, &n, "/s,tag=", true, err, 200), -1);
	ck_assert_int_eq(fs_opt_add(all, &n, ",tag=x", true, err, 200), -1);
	ck_assert_int_eq(fs_opt_add(all, &n, "/s,tag=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
				    true, err, 200), -1);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(fs_opt_add(all, &n, "/s", true, err, 200), 0);
	ck_assert_str_eq(all[3].tag, "share2");
	ck_assert_int_eq(fs_opt_add(all, &n, "/t", true, err, 200), -1);
	ck_assert(strstr(err, "at most 4"));
}
END_TEST

/* The file NAME's data in the newc archive at p (the last entry with
 * that name), or NULL. */
static char *newc_file(const char *p, size_t len, const char *name)
{
	size_t off = 0;
	char *found = NULL;

	while (off + 110 <= len && !memcmp(p + off, "070701", 6)) {
		char f[9] = { 0 };
		unsigned long fsize, nsize;
		size_t data;

		memcpy(f, p + off + 54, 8);
		fsize = strtoul(f, NULL, 16);
		memcpy(f, p + off + 94, 8);
		nsize = strtoul(f, NULL, 16);
		data = (off + 110 + nsize + 3) & ~(size_t)3;
		if (!strcmp(p + off + 110, name)) {
			free(found);
			found = strndup(p + data, fsize);
		}
		off = (data + fsize + 3) & ~(size_t)3;
	}
	return found;
}

START_TEST(cmd_initramfs)
{
	struct vmm_config cfg;
	char img[] = "/tmp/check_kloop.XXXXXX", buf[8192], *v;
	int fd = mkstemp(img), in;
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "BASE", 4), 4);	/* padded to 4 */
	close(fd);
	setenv("MINIVMM_CMD_INITRAMFS", img, 1);
	cli_defaults(&cfg);
	cfg.kernel = "vmlinux";
	cfg.cmd = "echo \"$HOME\" 'x y' && exit 3";
	cfg.nfs = 2;
	fs_opt_parse("/", true, 0, &cfg.fss[0], buf, 100);
	fs_opt_parse("/tmp,ro", true, 1, &cfg.fss[1], buf, 100);
	ck_assert_int_eq(chdir("/tmp"), 0);
	ck_assert_int_eq(cmd_prepare(&cfg), 0);
	ck_assert_ptr_nonnull(cfg.initrd);
	ck_assert(strstr(cfg.append, "console=ttyS0"));
	in = open(cfg.initrd, O_RDONLY);
	ck_assert_int_ge(in, 0);
	n = read(in, buf, sizeof(buf));
	ck_assert_int_gt(n, 4);
	ck_assert(!memcmp(buf, "BASE", 4));
	v = newc_file(buf + 4, (size_t)n - 4, "minivmm/cmd");
	ck_assert_str_eq(v, cfg.cmd);
	free(v);
	v = newc_file(buf + 4, (size_t)n - 4, "minivmm/cwd");
	ck_assert_str_eq(v, "/tmp");
	free(v);
	v = newc_file(buf + 4, (size_t)n - 4, "minivmm/root");
	ck_assert_str_eq(v, "root");
	free(v);
	v = newc_file(buf + 4, (size_t)n - 4, "minivmm/shares");
	ck_assert_str_eq(v, "share1 /tmp ro\n");
	free(v);
	ck_assert_ptr_nonnull(memmem(buf, (size_t)n, "TRAILER!!!", 10));
	/* --initrd conflicts; no kernel is an error */
	cfg.initrd = "x";
	ck_assert_int_eq(cmd_prepare(&cfg), -1);
	cfg.initrd = NULL;
	cfg.kernel = NULL;
	ck_assert_int_eq(cmd_prepare(&cfg), -1);
	unlink(img);
}
END_TEST

START_TEST(vhost_user_replies)
{
	struct vhu_msg m;
	uint8_t raw[VHU_HDR_SIZE + 8];
	uint64_t v;
	const char *why;
	size_t n = vhu_encode(&m, VHU_SET_FEATURES, &(uint64_t){ 5 }, 8, true);

	ck_assert_uint_eq(n, VHU_HDR_SIZE + 8);
	ck_assert_uint_eq(m.hdr.flags, VHU_VERSION | VHU_FLAG_NEED_REPLY);
	m.hdr.flags = VHU_VERSION | VHU_FLAG_REPLY;
	m.p.u64 = 0x1234;
	m.hdr.request = VHU_GET_FEATURES;
	memcpy(raw, &m, sizeof(raw));
	ck_assert_int_eq(vhu_parse_reply(raw, sizeof(raw), VHU_GET_FEATURES,
					 &v, &why), 0);
	ck_assert_uint_eq(v, 0x1234);
	/* another request's reply, no reply bit, a wrong size, too short */
	ck_assert_int_eq(vhu_parse_reply(raw, sizeof(raw),
					 VHU_GET_PROTOCOL_FEATURES, &v, &why), -1);
	raw[4] = VHU_VERSION;
	ck_assert_int_eq(vhu_parse_reply(raw, sizeof(raw), VHU_GET_FEATURES,
					 &v, &why), -1);
	raw[4] = VHU_VERSION | VHU_FLAG_REPLY;
	raw[8] = 4;
	ck_assert_int_eq(vhu_parse_reply(raw, sizeof(raw), VHU_GET_FEATURES,
					 &v, &why), -1);
	ck_assert_int_eq(vhu_parse_reply(raw, 7, VHU_GET_FEATURES, &v, &why),
			 -1);
	ck_assert_str_eq(vhu_request_name(VHU_SET_MEM_TABLE), "SET_MEM_TABLE");
	ck_assert_str_eq(vhu_request_name(999), "request");
}
END_TEST

/* --stall-timeout's report names RIP: this very binary's symbols. */
START_TEST(elf_symbols)
{
	struct elf_syms s;
	const char *name;
	uint64_t at = 0, off = 99;

	ck_assert_int_eq(elf_syms_load(&s, "/proc/self/exe"), 0);
	ck_assert_uint_gt(s.n, 10);
	for (size_t i = 0; i < s.n; i++)
		if (!strcmp(s.names + s.v[i].name, "elf_syms_find"))
			at = s.v[i].addr;
	ck_assert_uint_ne(at, 0);
	name = elf_syms_find(&s, at + 2, &off);
	ck_assert_str_eq(name, "elf_syms_find");
	ck_assert_uint_eq(off, 2);
	ck_assert_ptr_null(elf_syms_find(&s, 1, &off));
	elf_syms_free(&s);
	ck_assert_int_eq(elf_syms_load(&s, "/proc/self/cmdline"), -1);
	ck_assert_int_eq(elf_syms_load(&s, "/nonexistent"), -1);
}
END_TEST

static Suite *kloop_suite(void)
{
	Suite *s = suite_create("kloop");
	TCase *tc = tcase_create("host");

	tcase_add_test(tc, fs_values);
	tcase_add_test(tc, cmd_initramfs);
	tcase_add_test(tc, vhost_user_replies);
	tcase_add_test(tc, elf_symbols);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(kloop_suite());
}
