// SPDX-License-Identifier: MIT
/* The snapshot container (vmm/snapshot/format.c): headers and tables that
 * round-trip, every corruption refused with its own message, the payload
 * reader's bounds; and writing a file then opening it (file.c): holes for
 * zero pages, memory CRCs, atomic rename. */
#include "tests/unit/unit.h"
#include "vmm/snapshot/file.h"
#include "vmm/snapshot/format.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>

#define ERR	200

/* A small file image: META state, a vCPU state, one RAM page. */
static uint8_t img[3 * SNAP_PAGE];
static size_t img_len;

static void build(void)
{
	struct snap_entry e[3] = {
		{ SNAP_SEC_META, 0, 256, 16, 0, 0 },
		{ SNAP_SEC_VCPU, 1, 512, 100, 0, 0 },
		{ SNAP_SEC_RAM, 0, SNAP_PAGE, SNAP_PAGE, 0, SNAP_F_MEMORY },
	};

	memset(img, 0, sizeof(img));
	for (int i = 0; i < 3; i++) {
		memset(img + e[i].offset, 0x11 * (i + 1), e[i].length);
		e[i].crc = snap_crc(0, img + e[i].offset, e[i].length);
	}
	img_len = 2 * SNAP_PAGE;
	snap_build_head(img, e, 3, img_len);
}

static int parse(char *err)
{
	struct snap_index idx;
	int rc = snap_parse(img, img_len, img_len, &idx, err, ERR);

	snap_index_free(&idx);
	return rc;
}

static void refused(const char *want)
{
	char err[ERR] = "";

	ck_assert_int_eq(parse(err), -1);
	ck_assert_msg(strstr(err, want), "'%s' lacks '%s'", err, want);
}

START_TEST(round_trip)
{
	struct snap_index idx;
	char err[ERR];
	const struct snap_entry *e;

	build();
	ck_assert_int_eq(snap_parse(img, img_len, img_len, &idx, err, ERR), 0);
	ck_assert_uint_eq(idx.n, 3);
	e = snap_find(&idx, SNAP_SEC_VCPU, 1);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->offset, 512);
	ck_assert_uint_eq(e->length, 100);
	ck_assert_uint_eq(e->crc, snap_crc(0, img + 512, 100));
	ck_assert_ptr_null(snap_find(&idx, SNAP_SEC_VCPU, 0));
	snap_index_free(&idx);
}
END_TEST

START_TEST(corruptions)
{
	build();
	img[3] ^= 1;
	refused("bad magic");
	build();
	img[8] = 1;			/* the version before the extra MSRs */
	refused("format version 1, this minivmm reads version 2");
	build();
	img[8] = 3;			/* a later one */
	refused("format version 3");
	build();
	img[40] ^= 1;			/* reserved, under the header CRC */
	refused("header checksum");
	build();
	img[64 + 9] ^= 1;		/* an offset, under the table CRC */
	refused("table checksum");
	build();
	img_len -= SNAP_PAGE;		/* truncated */
	refused("truncated or extended");
	build();
	ck_assert_int_eq(parse((char[ERR]){ 0 }), 0);
}
END_TEST

/* Rewrites entry i and the CRCs, so the table's own checks are reached. */
static void set_entry(int i, struct snap_entry e)
{
	struct snap_entry all[3];
	struct snap_index idx;
	char err[ERR];

	ck_assert_int_eq(snap_parse(img, img_len, img_len, &idx, err, ERR), 0);
	memcpy(all, idx.e, sizeof(all));
	snap_index_free(&idx);
	all[i] = e;
	snap_build_head(img, all, 3, img_len);
}

START_TEST(bad_tables)
{
	build();
	set_entry(1, (struct snap_entry){ 999, 0, 512, 100, 0, 0 });
	refused("unknown section type 999");
	build();
	set_entry(1, (struct snap_entry){ SNAP_SEC_VCPU, 1, 512, 1u << 20,
					  0, 0 });
	refused("outside the file");
	build();
	set_entry(1, (struct snap_entry){ SNAP_SEC_VCPU, 1, 8, 100, 0, 0 });
	refused("outside the file");	/* inside the header and table */
	build();
	set_entry(1, (struct snap_entry){ SNAP_SEC_VCPU, 1, 260, 100, 0, 0 });
	refused("overlap");
	build();
	set_entry(1, (struct snap_entry){ SNAP_SEC_META, 0, 512, 100, 0, 0 });
	refused("twice");
	build();
	set_entry(2, (struct snap_entry){ SNAP_SEC_RAM, 0, SNAP_PAGE + 8,
					  SNAP_PAGE - 8, 0, SNAP_F_MEMORY });
	refused("page-aligned");
	build();
	set_entry(2, (struct snap_entry){ SNAP_SEC_RAM, 0, SNAP_PAGE,
					  SNAP_PAGE, 0, 0 });
	refused("bad flags");
	build();
	set_entry(1, (struct snap_entry){ SNAP_SEC_VCPU, 1, 512, 100, 0,
					  SNAP_F_MEMORY });
	refused("bad flags");
}
END_TEST

START_TEST(reader_bounds)
{
	uint8_t buf[10] = { 1, 0, 0, 0, 2, 0, 0, 0, 0, 0 };
	struct snap_rd r;
	struct snap_buf b;

	snap_rd_init(&r, buf, sizeof(buf));
	ck_assert_uint_eq(snap_get_u32(&r), 1);
	ck_assert_uint_eq(snap_get_u32(&r), 2);
	ck_assert(!snap_rd_done(&r));
	ck_assert_uint_eq(snap_get_u32(&r), 0);	/* only 2 bytes left */
	ck_assert(r.bad);
	ck_assert_ptr_null(snap_get_ptr(&r, 1));
	ck_assert(!snap_rd_done(&r));

	snap_buf_init(&b);
	for (int i = 0; i < 1000; i++)
		snap_put_u64(&b, (uint64_t)i);
	snap_put_str(&b, "abc");
	ck_assert_uint_eq(b.len, 8000 + 4 + 3);
	snap_rd_init(&r, b.p, b.len);
	for (int i = 0; i < 1000; i++)
		ck_assert_uint_eq(snap_get_u64(&r), (uint64_t)i);
	ck_assert_uint_eq(snap_get_u32(&r), 3);
	ck_assert(!memcmp(snap_get_ptr(&r, 3), "abc", 3));
	ck_assert(snap_rd_done(&r));
	snap_buf_free(&b);
}
END_TEST

/* --- file.c ------------------------------------------------------------------ */

START_TEST(file_round_trip)
{
	char path[PATH_MAX], tmp[PATH_MAX], err[ERR];
	uint8_t *mem = mmap(NULL, 4 * SNAP_PAGE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const char state[] = "vcpu state bytes";
	struct snap_out out[2] = {
		{ SNAP_SEC_VCPU, 0, (const uint8_t *)state, sizeof(state) },
		{ SNAP_SEC_RAM, 0, mem, 4 * SNAP_PAGE, true },
	};
	int pm = open("/proc/self/pagemap", O_RDONLY);
	struct snap_write_stats st;
	struct snap_file f;
	const uint8_t *p;
	uint8_t *back;
	struct stat sb;
	size_t len;
	int fd;

	ck_assert_ptr_ne(mem, MAP_FAILED);
	mem[2 * SNAP_PAGE + 5] = 0x42;		/* pages 0, 1, 3 stay zero */
	snprintf(path, sizeof(path), "%s/minivmm-unit-snap-%d", unit_tmpdir(),
		 (int)getpid());
	fd = snap_file_create_tmp(path, tmp, err, ERR);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(snap_file_create_tmp(path, tmp, err, ERR), -1);
	ck_assert_int_eq(snap_file_write(fd, tmp, path, out, 2, pm, &st, err,
					 ERR), 0);
	close(fd);
	close(pm);
	/* Pages 0, 1 and 3 were never touched: pagemap says so, and they
	 * stay unread (not faulted in). */
	ck_assert_uint_eq(st.zero_pages, 3);
	ck_assert_uint_eq(st.untouched_pages, pm >= 0 ? 3 : 0);
	ck_assert_int_eq(access(tmp, F_OK), -1);	/* renamed */
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_uint_eq((uint64_t)sb.st_size, st.file_size);

	ck_assert_int_eq(snap_file_open(path, &f, err, ERR), 0);
	p = snap_file_state(&f, SNAP_SEC_VCPU, 0, &len);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(len, sizeof(state));
	ck_assert(!memcmp(p, state, len));
	ck_assert_int_eq(snap_file_verify_memory(&f, err, ERR), 0);
	back = mmap(NULL, 4 * SNAP_PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_int_eq(snap_file_map(&f, snap_find(&f.idx, SNAP_SEC_RAM, 0),
				       back, false), 0);
	ck_assert(!memcmp(back, mem, 4 * SNAP_PAGE));
	back[0] = 1;			/* copy-on-write: the file is intact */
	ck_assert_int_eq(snap_file_verify_memory(&f, err, ERR), 0);
	snap_file_close(&f);
	munmap(back, 4 * SNAP_PAGE);
	munmap(mem, 4 * SNAP_PAGE);
	unlink(path);
}
END_TEST

START_TEST(file_memory_flip)
{
	char path[PATH_MAX], tmp[PATH_MAX], err[ERR];
	static uint8_t mem[2 * SNAP_PAGE] __attribute__((aligned(4096)));
	struct snap_out out = { SNAP_SEC_RAM, 0, mem, sizeof(mem) };
	struct snap_write_stats st;
	struct snap_file f;
	uint8_t b;
	int fd;

	memset(mem, 7, sizeof(mem));
	snprintf(path, sizeof(path), "%s/minivmm-unit-snap2-%d",
		 unit_tmpdir(), (int)getpid());
	fd = snap_file_create_tmp(path, tmp, err, ERR);
	ck_assert_int_eq(snap_file_write(fd, tmp, path, &out, 1, -1, &st, err,
					 ERR), 0);
	close(fd);
	fd = open(path, O_RDWR);
	ck_assert_int_eq(pread(fd, &b, 1, (off_t)st.file_size - 1), 1);
	b ^= 1;
	ck_assert_int_eq(pwrite(fd, &b, 1, (off_t)st.file_size - 1), 1);
	close(fd);
	ck_assert_int_eq(snap_file_open(path, &f, err, ERR), 0);
	ck_assert_int_eq(snap_file_verify_memory(&f, err, ERR), -1);
	ck_assert_ptr_nonnull(strstr(err, "ram/0: checksum mismatch"));
	snap_file_close(&f);
	unlink(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("snapshot_format");
	TCase *t = tcase_create("format");

	tcase_add_test(t, round_trip);
	tcase_add_test(t, corruptions);
	tcase_add_test(t, bad_tables);
	tcase_add_test(t, reader_bounds);
	tcase_add_test(t, file_round_trip);
	tcase_add_test(t, file_memory_flip);
	suite_add_tcase(s, t);
	return unit_run(s);
}
