// SPDX-License-Identifier: MIT
/*
 * A snapshot file walked, not sampled (issue #30): one written by the
 * snapshot writer (file.c) with the sections a restore reads (META,
 * CONFIG) and the kinds it carries (vCPU and device state, RAM with holes,
 * the ROM), then a copy truncated at every section boundary and at every
 * offset inside the header, and a copy with each byte of the header and
 * of every table entry flipped, and the first, middle and last byte of
 * every section's payload.  Each copy goes through what --restore checks
 * before the host is asked anything (snapshot_restore_check): it must be
 * refused with one line naming the problem, and leave no file behind.
 * RAM and ROM flips are only caught with --restore-verify (their CRCs
 * are checked on request: the images are mapped, not read): without it
 * they pass, with it they are refused.  No KVM needed.
 */
#include "tests/unit/unit.h"
#include "vmm/cli/cli.h"
#include "vmm/snapshot/config.h"
#include "vmm/snapshot/file.h"
#include "vmm/snapshot/format.h"
#include "vmm/snapshot/meta.h"
#include "vmm/snapshot/restore.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>

#define ERR		200	/* SNAP_ERR_MAX */
#define RAM_PAGES	8u

static char dir[PATH_MAX], path[PATH_MAX + 16], copy[PATH_MAX + 16];
static uint8_t *file;			/* the pristine file */
static size_t file_len;
static struct snap_index idx;
static unsigned int copies;

/* Nothing but the pristine file (and no copy, no temp file) in dir. */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

static void add_state(struct snap_out *o, uint32_t *n, uint32_t type,
		      uint32_t instance, struct snap_buf *b)
{
	ck_assert(!b->failed);
	o[(*n)++] = (struct snap_out){ type, instance, b->p, b->len };
}

/* Bytes standing in for a device's state (the check does not decode
 * them; every byte counts for the checksum). */
static void filler(struct snap_buf *b, size_t len, uint8_t seed)
{
	snap_buf_init(b);
	for (size_t i = 0; i < len; i++)
		snap_put(b, &(uint8_t){ (uint8_t)(seed + 7 * i) }, 1);
}

static void write_snapshot(void)
{
	struct snap_meta m = { .build = "walk build", .vendor = "AuthenticAMD",
			       .signature = 0xa20f10, .brand = "walk cpu",
			       .xsave_size = 4096, .ncaps = 1,
			       .caps = { 1 } };
	struct snap_buf b[6];
	struct snap_out o[8];
	struct snap_write_stats st;
	struct vmm_config cfg;
	char tmp[PATH_MAX], err[ERR];
	uint8_t *ram = mmap(NULL, RAM_PAGES * SNAP_PAGE,
			    PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static uint8_t rom[SNAP_PAGE] __attribute__((aligned(4096)));
	uint32_t n = 0;
	int fd;

	ck_assert_ptr_ne(ram, MAP_FAILED);
	/* Pages 0, 3 and 7 hold data; the rest are holes in the file. */
	memset(ram, 0x5a, SNAP_PAGE);
	memset(ram + 3 * SNAP_PAGE + 100, 0xc3, 200);
	ram[RAM_PAGES * SNAP_PAGE - 1] = 0x01;
	memset(rom, 0xf4, sizeof(rom));
	snap_buf_init(&b[0]);
	snap_meta_encode(&m, &b[0]);
	add_state(o, &n, SNAP_SEC_META, 0, &b[0]);
	cli_defaults(&cfg);
	snap_buf_init(&b[1]);
	ck_assert_int_eq(snap_config_encode(&cfg, &b[1], err, ERR), 0);
	add_state(o, &n, SNAP_SEC_CONFIG, 0, &b[1]);
	/* Odd lengths: the writer pads between state sections. */
	filler(&b[2], 1027, 1);
	add_state(o, &n, SNAP_SEC_VCPU, 0, &b[2]);
	filler(&b[3], 1027, 2);
	add_state(o, &n, SNAP_SEC_VCPU, 1, &b[3]);
	filler(&b[4], 613, 3);
	add_state(o, &n, SNAP_SEC_IRQCHIP, 0, &b[4]);
	filler(&b[5], 5, 4);
	add_state(o, &n, SNAP_SEC_UART, 0, &b[5]);
	o[n++] = (struct snap_out){ SNAP_SEC_RAM, 0, ram,
				    RAM_PAGES * SNAP_PAGE, true };
	o[n++] = (struct snap_out){ SNAP_SEC_ROM, 0, rom, sizeof(rom) };

	fd = snap_file_create_tmp(path, tmp, err, ERR);
	ck_assert_msg(fd >= 0, "%s", err);
	ck_assert_msg(snap_file_write(fd, tmp, path, o, n, -1, &st, err,
				      ERR) == 0, "%s", err);
	close(fd);
	for (int i = 0; i < 6; i++)
		snap_buf_free(&b[i]);
	munmap(ram, RAM_PAGES * SNAP_PAGE);
	ck_assert_uint_gt(st.zero_pages, 0);	/* holes were left */
}

/* Reads the pristine file back and parses its table (the walk's map). */
static void setup(void)
{
	char err[ERR];
	int fd;

	snprintf(dir, sizeof(dir), "%s/minivmm-walk-XXXXXX", unit_tmpdir());
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s.snap", dir);
	snprintf(copy, sizeof(copy), "%s/copy.snap", dir);
	write_snapshot();
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	file_len = (size_t)lseek(fd, 0, SEEK_END);
	file = malloc(file_len);
	ck_assert_ptr_nonnull(file);
	ck_assert_int_eq(pread(fd, file, file_len, 0), (ssize_t)file_len);
	close(fd);
	ck_assert_int_eq(snap_parse(file, file_len, file_len, &idx, err, ERR),
			 0);
	ck_assert_uint_eq(idx.n, 8);
	copies = 0;
}

static void teardown(void)
{
	snap_index_free(&idx);
	free(file);
	unlink(path);
	rmdir(dir);
}

/* Writes len bytes of the file, byte at (flip, if < len) xor 0xff. */
static void make_copy(size_t len, size_t flip)
{
	int fd = open(copy, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, file, len), (ssize_t)len);
	if (flip < len) {
		uint8_t b = file[flip] ^ 0xff;

		ck_assert_int_eq(pwrite(fd, &b, 1, (off_t)flip), 1);
	}
	close(fd);
}

/* The copy is refused: -1, one line holding want, nothing left behind. */
static void refused(const char *what, size_t at, bool verify,
		    const char *want)
{
	char err[ERR] = "";

	ck_assert_msg(snapshot_restore_check(copy, verify, err, ERR) == -1,
		      "%s at %zu: accepted", what, at);
	ck_assert_msg(strstr(err, want), "%s at %zu: '%s' lacks '%s'", what,
		      at, err, want);
	ck_assert_msg(!strchr(err, '\n'), "%s at %zu: '%s' is not one line",
		      what, at, err);
	unlink(copy);
	ck_assert_int_eq(entries(), 1);
	copies++;
}

START_TEST(pristine_passes)
{
	char err[ERR] = "";

	ck_assert_msg(snapshot_restore_check(path, true, err, ERR) == 0, "%s",
		      err);
	ck_assert_int_eq(entries(), 1);
}
END_TEST

/* Every section's start and end, every table entry's start, and every
 * offset inside the header; plus one byte more than the header says. */
START_TEST(truncated_everywhere)
{
	size_t head = snap_head_size(idx.n);

	for (size_t at = 0; at < SNAP_HEADER_SIZE; at++) {
		make_copy(at, SIZE_MAX);
		refused("truncated", at, false, "truncated");
	}
	for (size_t at = SNAP_HEADER_SIZE; at <= head; at += SNAP_ENTRY_SIZE) {
		make_copy(at, SIZE_MAX);
		refused("truncated", at, false, "truncated or extended");
	}
	for (uint32_t i = 0; i < idx.n; i++) {
		const struct snap_entry *e = &idx.e[i];
		size_t cut[] = { e->offset, e->offset + 1,
				 e->offset + e->length / 2,
				 e->offset + e->length - 1,
				 e->offset + e->length };

		for (size_t k = 0; k < sizeof(cut) / sizeof(cut[0]); k++) {
			if (cut[k] >= file_len)
				continue;	/* the last end is the file */
			make_copy(cut[k], SIZE_MAX);
			refused("truncated", cut[k], true,
				"truncated or extended");
		}
	}
	make_copy(file_len, SIZE_MAX);
	ck_assert_int_eq(truncate(copy, (off_t)file_len + 1), 0);
	refused("extended", file_len + 1, false, "truncated or extended");
	ck_assert_uint_ge(copies, 64 + idx.n * 5);
}
END_TEST

/* What a flipped header byte is refused as. */
static const char *header_problem(size_t at)
{
	if (at < 8)
		return "bad magic";
	if (at < 12)
		return "format version";
	return "header checksum mismatch";
}

START_TEST(header_and_table_flipped)
{
	for (size_t at = 0; at < SNAP_HEADER_SIZE; at++) {
		make_copy(file_len, at);
		refused("header flip", at, false, header_problem(at));
	}
	for (size_t at = SNAP_HEADER_SIZE; at < snap_head_size(idx.n); at++) {
		make_copy(file_len, at);
		refused("table flip", at, false,
			"section table checksum mismatch");
	}
}
END_TEST

START_TEST(payloads_flipped)
{
	char want[96], err[ERR];

	for (uint32_t i = 0; i < idx.n; i++) {
		const struct snap_entry *e = &idx.e[i];
		bool mem = e->flags & SNAP_F_MEMORY;
		size_t at[] = { e->offset, e->offset + e->length / 2,
				e->offset + e->length - 1 };

		snprintf(want, sizeof(want), "%ssection %s/%u: checksum "
			 "mismatch", mem ? "memory " : "",
			 snap_type_name(e->type), e->instance);
		for (size_t k = 0; k < 3; k++) {
			make_copy(file_len, at[k]);
			/* Memory images: mapped, not read, unless
			 * --restore-verify (docs/snapshot.md). */
			if (mem)
				ck_assert_msg(snapshot_restore_check(copy,
					false, err, ERR) == 0,
					"%s", err);
			refused("payload flip", at[k], mem, want);
		}
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("snapshot_walk");
	TCase *t = tcase_create("walk");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, pristine_passes);
	tcase_add_test(t, truncated_everywhere);
	tcase_add_test(t, header_and_table_flipped);
	tcase_add_test(t, payloads_flipped);
	suite_add_tcase(s, t);
	return unit_run(s);
}
