// SPDX-License-Identifier: MIT
/*
 * devices/virtio/blk.c end to end over a temporary image: the device
 * thread (and, for large requests, its helpers) executes writes, reads,
 * flush, get-id, write zeroes and discard from a queue in fake guest RAM, and the image file holds the result; a
 * read-only disk refuses writes; cache=none (O_DIRECT, guest buffers at odd
 * addresses bounced) and cache=unsafe (no flush offered).  Also
 * vmm/machine/disk.c: what --disk refuses before the guest starts (missing,
 * not a file, empty, locked, also through a symlink or a hard link).
 */
#include <check.h>
#include <endian.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "tests/unit/unit.h"
#include "tests/unit/virtio_fake.h"
#include "devices/virtio/blk.h"
#include "vmm/machine/disk.h"

#define F(b)		(1ull << (b))
#define SECTORS		2048
#define HDR		(FAKE_BUF + 0x0)
#define DATA		(FAKE_BUF + 0x1000)
#define STATUS		(FAKE_BUF + 0x800)

static char path[PATH_MAX];
static int img;
static uint16_t next_used;
static uint64_t data_at;	/* where req() puts the data: DATA or odd */

static void start_blk(struct virtio_blk_conf *conf)
{
	struct pci_bus_config c = { .nbuses = 1 };
	struct virtio_host h = fake_host();
	struct virtio_blk *b;

	fake_bus = pci_bus_create(&c);
	b = virtio_blk_create(fake_bus, FAKE_BDF, conf, &h, "virtio-blk0");
	ck_assert_ptr_nonnull(b);
	fake_vp = virtio_blk_pci(b);
	ck_assert_int_eq(virtio_pci_start(fake_vp), 0);
	ck_assert(fake_negotiate(F(VIRTIO_F_VERSION_1) |
				 F(VIRTIO_F_RING_INDIRECT_DESC)));
	ck_assert_int_eq(fake_queue(VIRTIO_MSI_NO_VECTOR), 0);
	fake_driver_ok();
	next_used = 0;
}

static void open_blk(bool ro)
{
	struct virtio_blk_conf conf = {
		.fd = open(path, (ro ? O_RDONLY : O_RDWR) | O_CLOEXEC),
		.ro = ro, .size = SECTORS * 512 + 100, .serial = "unit-serial",
	};

	ck_assert_int_ge(conf.fd, 0);
	start_blk(&conf);
}

static void setup(void)
{
	static uint8_t zero[SECTORS * 512 + 100];

	tmpfile_with(path, zero, sizeof(zero));
	img = open(path, O_RDWR);
	ck_assert_int_ge(img, 0);
	data_at = DATA;
}

static void teardown(void)
{
	if (fake_bus)
		pci_bus_destroy(fake_bus);
	fake_bus = NULL;
	close(img);
	unlink(path);
}

/* One request: header, len data bytes (writable for IN/GET_ID), status.
 * Returns the status byte; *used gets the used length. */
static int req(uint32_t type, uint64_t sector, uint32_t len, uint32_t *used)
{
	uint32_t t = htole32(type);
	uint64_t s = htole64(sector);
	bool wr = type == VIRTIO_BLK_T_IN || type == VIRTIO_BLK_T_GET_ID;
	unsigned int n = 0;

	memset(fake_at(HDR), 0, 16);
	memcpy(fake_at(HDR), &t, 4);
	memcpy(fake_at(HDR + 8), &s, 8);
	*fake_at(STATUS) = 0xff;
	fake_desc(n, HDR, 16, VIRTQ_DESC_F_NEXT, (uint16_t)(n + 1));
	n++;
	if (len) {
		fake_desc(n, data_at, len, VIRTQ_DESC_F_NEXT |
			  (wr ? VIRTQ_DESC_F_WRITE : 0), (uint16_t)(n + 1));
		n++;
	}
	fake_desc(n, STATUS, 1, VIRTQ_DESC_F_WRITE, 0);
	fake_offer(0);
	ck_assert(fake_wait_used(++next_used));
	*used = fake_get32(FAKE_USED + 4 + 8 * ((next_used - 1) % FAKE_QSIZE) +
			   4);
	return *fake_at(STATUS);
}

static void segment(uint64_t sector, uint32_t num, uint32_t flags)
{
	uint64_t s = htole64(sector);
	uint32_t n = htole32(num), f = htole32(flags);

	memcpy(fake_at(DATA), &s, 8);
	memcpy(fake_at(DATA + 8), &n, 4);
	memcpy(fake_at(DATA + 12), &f, 4);
}

START_TEST(test_read_write)
{
	uint8_t back[4096];
	uint32_t used;

	open_blk(false);
	ck_assert_uint_eq(bar_rd(VIRTIO_BAR_DEVICE + VIRTIO_BLK_CFG_CAPACITY,
				 8), SECTORS);
	ck_assert_uint_eq(bar_rd(VIRTIO_BAR_DEVICE + VIRTIO_BLK_CFG_SEG_MAX,
				 4), VIRTIO_BLK_SEG_MAX);
	for (int i = 0; i < 4096; i++)
		fake_at(DATA)[i] = (uint8_t)(i * 7);
	ck_assert_int_eq(req(VIRTIO_BLK_T_OUT, 10, 4096, &used), 0);
	ck_assert_uint_eq(used, 1);
	ck_assert_int_eq(pread(img, back, 4096, 10 * 512), 4096);
	ck_assert(!memcmp(back, fake_at(DATA), 4096));
	memset(fake_at(DATA), 0, 4096);
	ck_assert_int_eq(req(VIRTIO_BLK_T_IN, 10, 4096, &used), 0);
	ck_assert_uint_eq(used, 4097);
	ck_assert(!memcmp(back, fake_at(DATA), 4096));
	ck_assert_int_eq(req(VIRTIO_BLK_T_FLUSH, 0, 0, &used), 0);
	ck_assert_int_eq(req(VIRTIO_BLK_T_IN, SECTORS - 7, 4096, &used),
			 VIRTIO_BLK_S_IOERR);
	ck_assert_int_eq(req(VIRTIO_BLK_T_GET_ID, 0, 64, &used), 0);
	ck_assert_uint_eq(used, 21);
	ck_assert_str_eq((char *)fake_at(DATA), "unit-serial");
	ck_assert_uint_eq(atomic_load(&fake_vp->stats.bytes_written), 4096);
	ck_assert_uint_eq(atomic_load(&fake_vp->stats.errors), 1);
}
END_TEST

/* 512 KiB in two descriptors of odd sizes: a helper thread does it and
 * completes it from there (blk_io.c, virtio_complete). */
START_TEST(test_large_parallel)
{
	static uint8_t back[512 * 1024];
	const uint32_t len = sizeof(back), first = 196 * 512 + 100;
	uint8_t *data = fake_at(DATA);

	open_blk(false);
	for (uint32_t i = 0; i < len; i++)
		data[i] = (uint8_t)(i * 13 + (i >> 12));
	for (int pass = 0; pass < 2; pass++) {
		uint32_t t = htole32(pass ? VIRTIO_BLK_T_IN : VIRTIO_BLK_T_OUT);
		uint16_t wr = pass ? VIRTQ_DESC_F_WRITE : 0;

		memset(fake_at(HDR), 0, 16);
		memcpy(fake_at(HDR), &t, 4);
		memcpy(fake_at(HDR + 8), &(uint64_t){ htole64(1024) }, 8);
		fake_desc(0, HDR, 16, VIRTQ_DESC_F_NEXT, 1);
		fake_desc(1, DATA, first, VIRTQ_DESC_F_NEXT | wr, 2);
		fake_desc(2, DATA + first, len - first, VIRTQ_DESC_F_NEXT | wr,
			  3);
		fake_desc(3, STATUS, 1, VIRTQ_DESC_F_WRITE, 0);
		*fake_at(STATUS) = 0xff;
		if (pass)
			memset(data, 0, len);
		fake_offer(0);
		ck_assert(fake_wait_used(++next_used));
		ck_assert_uint_eq(*fake_at(STATUS), 0);
	}
	ck_assert_int_eq(pread(img, back, len, 1024 * 512), len);
	for (uint32_t i = 0; i < len; i++)
		ck_assert_uint_eq(back[i], (uint8_t)(i * 13 + (i >> 12)));
	ck_assert(!memcmp(back, data, len));
}
END_TEST

START_TEST(test_zeroes_and_discard)
{
	uint8_t back[8 * 512], zero[8 * 512] = { 0 };
	uint32_t used;

	memset(back, 0x77, sizeof(back));
	ck_assert_int_eq(pwrite(img, back, sizeof(back), 0), sizeof(back));
	ck_assert_int_eq(pwrite(img, back, sizeof(back), 64 * 512),
			 sizeof(back));
	open_blk(false);
	segment(0, 8, 0);
	ck_assert_int_eq(req(VIRTIO_BLK_T_WRITE_ZEROES, 0, 16, &used), 0);
	ck_assert_int_eq(pread(img, back, sizeof(back), 0), sizeof(back));
	ck_assert(!memcmp(back, zero, sizeof(back)));
	segment(64, 8, VIRTIO_BLK_WZ_F_UNMAP);
	ck_assert_int_eq(req(VIRTIO_BLK_T_WRITE_ZEROES, 0, 16, &used), 0);
	ck_assert_int_eq(pread(img, back, sizeof(back), 64 * 512),
			 sizeof(back));
	ck_assert(!memcmp(back, zero, sizeof(back)));
	segment(128, 8, 0);
	ck_assert_int_eq(req(VIRTIO_BLK_T_DISCARD, 0, 16, &used), 0);
	segment(128, 8, 1);
	ck_assert_int_eq(req(VIRTIO_BLK_T_DISCARD, 0, 16, &used),
			 VIRTIO_BLK_S_UNSUPP);
	segment(SECTORS - 1, 2, 0);
	ck_assert_int_eq(req(VIRTIO_BLK_T_DISCARD, 0, 16, &used),
			 VIRTIO_BLK_S_IOERR);
}
END_TEST

START_TEST(test_read_only)
{
	uint8_t back[512];
	uint32_t used;

	open_blk(true);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_DFSELECT), 0, 4);
	ck_assert(bar_rd(COMMON(VIRTIO_PCI_COMMON_DF), 4) &
		  F(VIRTIO_BLK_F_RO));
	ck_assert(!(bar_rd(COMMON(VIRTIO_PCI_COMMON_DF), 4) &
		    F(VIRTIO_BLK_F_DISCARD)));
	memset(fake_at(DATA), 0x55, 512);
	ck_assert_int_eq(req(VIRTIO_BLK_T_OUT, 0, 512, &used),
			 VIRTIO_BLK_S_IOERR);
	segment(0, 1, 0);
	ck_assert_int_eq(req(VIRTIO_BLK_T_WRITE_ZEROES, 0, 16, &used),
			 VIRTIO_BLK_S_IOERR);
	ck_assert_int_eq(req(VIRTIO_BLK_T_FLUSH, 0, 0, &used), 0);
	ck_assert_int_eq(req(VIRTIO_BLK_T_IN, 0, 512, &used), 0);
	ck_assert_int_eq(pread(img, back, sizeof(back), 0), sizeof(back));
	ck_assert_uint_eq(back[0], 0);
}
END_TEST

/* cache=unsafe: no VIRTIO_BLK_F_FLUSH, and a flush sent anyway is
 * completed without syncing. */
START_TEST(test_unsafe)
{
	struct virtio_blk_conf conf = {
		.fd = open(path, O_RDWR | O_CLOEXEC), .size = SECTORS * 512,
		.unsafe = true,
	};
	uint32_t used;

	ck_assert_int_ge(conf.fd, 0);
	start_blk(&conf);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_DFSELECT), 0, 4);
	ck_assert(!(bar_rd(COMMON(VIRTIO_PCI_COMMON_DF), 4) &
		    F(VIRTIO_BLK_F_FLUSH)));
	ck_assert_int_eq(req(VIRTIO_BLK_T_FLUSH, 0, 0, &used), 0);
	/* The default offers it. */
	pci_bus_destroy(fake_bus);
	conf = (struct virtio_blk_conf){ .fd = open(path, O_RDWR | O_CLOEXEC),
					 .size = SECTORS * 512 };
	start_blk(&conf);
	bar_wr(COMMON(VIRTIO_PCI_COMMON_DFSELECT), 0, 4);
	ck_assert(bar_rd(COMMON(VIRTIO_PCI_COMMON_DF), 4) &
		  F(VIRTIO_BLK_F_FLUSH));
}
END_TEST

#define BIG_PART	(600u * 1024)

/* One write of the BIG_PART bytes at gpa, twice (two descriptors). */
static int big_write(uint64_t gpa, uint64_t sector)
{
	uint32_t t = htole32(VIRTIO_BLK_T_OUT);
	uint64_t s = htole64(sector);

	memset(fake_at(HDR), 0, 16);
	memcpy(fake_at(HDR), &t, 4);
	memcpy(fake_at(HDR + 8), &s, 8);
	*fake_at(STATUS) = 0xff;
	fake_desc(0, HDR, 16, VIRTQ_DESC_F_NEXT, 1);
	fake_desc(1, gpa, BIG_PART, VIRTQ_DESC_F_NEXT, 2);
	fake_desc(2, gpa, BIG_PART, VIRTQ_DESC_F_NEXT, 3);
	fake_desc(3, STATUS, 1, VIRTQ_DESC_F_WRITE, 0);
	fake_offer(0);
	ck_assert(fake_wait_used(++next_used));
	return *fake_at(STATUS);
}

/* cache=none through disk_open: O_DIRECT, the block size offered is the
 * direct-I/O alignment, guest buffers at odd addresses are bounced, and
 * what the guest wrote is in the file. */
START_TEST(test_direct)
{
	static uint8_t zero[4 << 20], big[2 * BIG_PART];
	struct disk_opt o = { .cache = DISK_CACHE_NONE };
	uint8_t back[8192];
	char dpath[PATH_MAX];
	struct disk d;
	uint32_t used, blk;

	tmpfile_with(dpath, zero, sizeof(zero));
	snprintf(o.path, sizeof(o.path), "%s", dpath);
	if (disk_open(&o, &d) < 0) {
		/* tmpfs before Linux 6.6: no O_DIRECT (said on stderr) */
		unlink(dpath);
		return;
	}
	ck_assert(fcntl(d.fd, F_GETFL) & O_DIRECT);
	ck_assert_uint_ge(d.direct_align, 512);
	start_blk(&(struct virtio_blk_conf){ .fd = d.fd, .size = d.size,
		  .direct_align = d.direct_align });
	blk = (uint32_t)bar_rd(VIRTIO_BAR_DEVICE + VIRTIO_BLK_CFG_BLK_SIZE, 4);
	ck_assert_uint_eq(blk, d.direct_align);
	data_at = DATA + 1;		/* not aligned for O_DIRECT */
	for (int i = 0; i < 8192; i++)
		fake_at(data_at)[i] = (uint8_t)(i * 11 + 3);
	ck_assert_int_eq(req(VIRTIO_BLK_T_OUT, 16, 8192, &used), 0);
	img = open(dpath, O_RDONLY);
	ck_assert_int_eq(pread(img, back, sizeof(back), 16 * 512),
			 sizeof(back));
	ck_assert(!memcmp(back, fake_at(data_at), sizeof(back)));
	data_at = DATA + 3;
	memset(fake_at(data_at), 0, 8192);
	ck_assert_int_eq(req(VIRTIO_BLK_T_IN, 16, 8192, &used), 0);
	ck_assert(!memcmp(back, fake_at(data_at), sizeof(back)));
	data_at = DATA;			/* aligned: straight through */
	ck_assert_int_eq(req(VIRTIO_BLK_T_IN, 16, 4096, &used), 0);
	ck_assert(!memcmp(back, fake_at(DATA), 4096));
	ck_assert_int_eq(req(VIRTIO_BLK_T_FLUSH, 0, 0, &used), 0);
	/* 1.2 MiB from two odd-addressed buffers: bounced in 1 MiB steps,
	 * one step ending inside the second buffer. */
	for (uint32_t i = 0; i < BIG_PART; i++)
		fake_at(DATA + 5)[i] = (uint8_t)(i * 29 + (i >> 9));
	ck_assert_int_eq(big_write(DATA + 5, 2048), 0);
	ck_assert_int_eq(pread(img, big, sizeof(big), 2048 * 512),
			 sizeof(big));
	ck_assert(!memcmp(big, fake_at(DATA + 5), BIG_PART));
	ck_assert(!memcmp(big + BIG_PART, fake_at(DATA + 5), BIG_PART));
	/* A request not aligned to the offered block fails, as in QEMU. */
	if (blk > 512)
		ck_assert_int_eq(req(VIRTIO_BLK_T_IN, 1, 512, &used),
				 VIRTIO_BLK_S_IOERR);
	unlink(dpath);
}
END_TEST

/* --- vmm/machine/disk.c ------------------------------------------------------------ */

static int try_open(const char *p, bool ro, const char **err)
{
	static struct capture cap;
	struct disk_opt o = { .ro = ro };
	struct disk d;
	int r;

	snprintf(o.path, sizeof(o.path), "%s", p);
	capture_start(&cap, 2);
	r = disk_open(&o, &d);
	*err = capture_end(&cap);
	if (r == 0)
		disk_close(&d);
	return r;
}

START_TEST(test_disk_open)
{
	struct disk_opt o = { .ro = false };
	char empty[PATH_MAX], link_path[PATH_MAX + 8];
	const char *err;
	struct disk held;

	ck_assert_int_eq(try_open(path, false, &err), 0);
	assert_one_line(err, "warning", "the last 100 bytes");
	ck_assert_int_eq(try_open("/nonexistent/img", true, &err), -1);
	assert_one_line(err, "--disk '/nonexistent/img'", "cannot open");
	ck_assert_int_eq(try_open(unit_tmpdir(), true, &err), -1);
	assert_one_line(err, "not a regular file or block device", NULL);
	tmpfile_with(empty, "x", 1);
	ck_assert_int_eq(try_open(empty, true, &err), -1);
	assert_one_line(err, "smaller than one 512-byte sector", NULL);
	unlink(empty);
	/* Held for writing: nobody else gets it, not even read-only. */
	snprintf(o.path, sizeof(o.path), "%s", path);
	ck_assert_int_eq(disk_open(&o, &held), 0);
	ck_assert_uint_eq(held.size, SECTORS * 512 + 100);
	ck_assert_int_eq(try_open(path, false, &err), -1);
	assert_one_line(err, "locked", "another VM");
	ck_assert_int_eq(try_open(path, true, &err), -1);
	assert_one_line(err, "locked", NULL);
	/* The lock is the inode's: a symlink or hard link finds it. */
	snprintf(link_path, sizeof(link_path), "%s.sym", path);
	ck_assert_int_eq(symlink(path, link_path), 0);
	ck_assert_int_eq(try_open(link_path, false, &err), -1);
	assert_one_line(err, "locked", "another VM");
	unlink(link_path);
	snprintf(link_path, sizeof(link_path), "%s.hard", path);
	ck_assert_int_eq(link(path, link_path), 0);
	ck_assert_int_eq(try_open(link_path, false, &err), -1);
	assert_one_line(err, "locked", "another VM");
	unlink(link_path);
	disk_close(&held);
	/* Held read-only: more readers, no writer. */
	o.ro = true;
	ck_assert_int_eq(disk_open(&o, &held), 0);
	ck_assert_int_eq(try_open(path, true, &err), 0);
	ck_assert_int_eq(try_open(path, false, &err), -1);
	disk_close(&held);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("virtio_blk");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_read_write);
	tcase_add_test(tc, test_large_parallel);
	tcase_add_test(tc, test_zeroes_and_discard);
	tcase_add_test(tc, test_read_only);
	tcase_add_test(tc, test_disk_open);
	tcase_add_test(tc, test_unsafe);
	tcase_add_test(tc, test_direct);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
