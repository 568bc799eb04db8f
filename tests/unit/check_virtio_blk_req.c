// SPDX-License-Identifier: MIT
/*
 * devices/virtio/blk_req.c: virtio-blk request parsing on hand-built
 * chains: headers split across buffers, the data slices of reads and
 * writes, the status byte, sector and length checks at the edges of the
 * disk and of 2^64, read-only disks, get-id, discard and write-zeroes
 * segments, unknown types, and chains with no room for a status.
 */
#include <check.h>
#include <endian.h>

#include "tests/unit/unit.h"
#include "devices/virtio/blk_req.h"
#include "devices/virtio/spec.h"

#define CAP	1000ull		/* sectors */

static struct vq_chain c;
static struct iovec slice[VQ_CHAIN_MAX];
static struct blk_req r;
static uint8_t hdr[16], data[8192], st[4], segs[16 * 20];
static struct blk_geom g;

static void hdr_set(uint32_t type, uint64_t sector)
{
	uint32_t t = htole32(type);
	uint64_t s = htole64(sector);

	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, &t, 4);
	memcpy(hdr + 8, &s, 8);
}

static void add(void *p, size_t len, bool wr)
{
	c.iov[c.n_out + c.n_in] = (struct iovec){ p, len };
	if (wr) {
		c.n_in++;
		c.in_len += len;
	} else {
		c.n_out++;
		c.out_len += len;
	}
}

static void setup(void)
{
	memset(&c, 0, sizeof(c));
	g = (struct blk_geom){ .capacity = CAP, .max_discard_sectors = 64,
			       .max_discard_seg = 4, .max_wz_sectors = 64,
			       .max_wz_seg = 4 };
}

static void parse(void)
{
	blk_req_parse(&c, &g, slice, &r);
}

START_TEST(test_read)
{
	hdr_set(VIRTIO_BLK_T_IN, 10);
	add(hdr, 16, false);
	add(data, 1024, true);
	add(data + 4096, 1024, true);
	add(st, 1, true);
	parse();
	ck_assert_uint_eq(r.status, VIRTIO_BLK_S_OK);
	ck_assert_uint_eq(r.sector, 10);
	ck_assert_uint_eq(r.len, 2048);
	ck_assert_uint_eq(r.niov, 2);
	ck_assert_ptr_eq(r.status_at, st);
	ck_assert_uint_eq(blk_req_used_len(&r), 2049);
}
END_TEST

/* Header split 5 + 11; the status byte shares the data's last buffer. */
START_TEST(test_split_header_shared_status)
{
	uint8_t h2[16];

	hdr_set(VIRTIO_BLK_T_IN, CAP - 2);
	memcpy(h2, hdr, 16);
	add(h2, 5, false);
	add(h2 + 5, 11, false);
	add(data, 1025, true);
	parse();
	ck_assert_uint_eq(r.status, VIRTIO_BLK_S_OK);
	ck_assert_uint_eq(r.sector, CAP - 2);
	ck_assert_uint_eq(r.len, 1024);
	ck_assert_ptr_eq(r.status_at, data + 1024);
}
END_TEST

START_TEST(test_write)
{
	hdr_set(VIRTIO_BLK_T_OUT, 0);
	add(hdr, 8, false);
	/* Header's second half and the data in one buffer. */
	memcpy(data, hdr + 8, 8);
	add(data, 8 + 512, false);
	add(st, 1, true);
	parse();
	ck_assert_uint_eq(r.status, VIRTIO_BLK_S_OK);
	ck_assert_uint_eq(r.len, 512);
	ck_assert_uint_eq(r.niov, 1);
	ck_assert_ptr_eq(r.iov[0].iov_base, data + 8);
	ck_assert_uint_eq(blk_req_used_len(&r), 1);
	g.ro = true;
	parse();
	ck_assert_uint_eq(r.status, VIRTIO_BLK_S_IOERR);
}
END_TEST

static uint8_t status_for(uint32_t type, uint64_t sector, size_t len)
{
	setup();
	hdr_set(type, sector);
	add(hdr, 16, false);
	if (len)
		add(data, len, type == VIRTIO_BLK_T_IN);
	add(st, 1, true);
	parse();
	return r.status;
}

START_TEST(test_ranges)
{
	ck_assert_uint_eq(status_for(VIRTIO_BLK_T_IN, CAP - 1, 512),
			  VIRTIO_BLK_S_OK);
	ck_assert_uint_eq(status_for(VIRTIO_BLK_T_IN, CAP, 0), VIRTIO_BLK_S_OK);
	ck_assert_uint_eq(status_for(VIRTIO_BLK_T_IN, CAP, 512),
			  VIRTIO_BLK_S_IOERR);
	ck_assert_uint_eq(status_for(VIRTIO_BLK_T_IN, CAP - 1, 1024),
			  VIRTIO_BLK_S_IOERR);
	ck_assert_uint_eq(status_for(VIRTIO_BLK_T_OUT, ~0ull, 512),
			  VIRTIO_BLK_S_IOERR);
	ck_assert_uint_eq(status_for(VIRTIO_BLK_T_OUT, ~0ull / 512 + 1, 512),
			  VIRTIO_BLK_S_IOERR);
	ck_assert_uint_eq(status_for(VIRTIO_BLK_T_IN, 0, 513),
			  VIRTIO_BLK_S_IOERR);
	ck_assert_uint_eq(status_for(VIRTIO_BLK_T_OUT, 0, 100),
			  VIRTIO_BLK_S_IOERR);
	ck_assert_uint_eq(status_for(0x77, 0, 0), VIRTIO_BLK_S_UNSUPP);
	ck_assert_uint_eq(status_for(VIRTIO_BLK_T_GET_LIFETIME, 0, 0),
			  VIRTIO_BLK_S_UNSUPP);
	ck_assert_uint_eq(status_for(VIRTIO_BLK_T_SECURE_ERASE, 0, 0),
			  VIRTIO_BLK_S_UNSUPP);
	ck_assert_uint_eq(status_for(VIRTIO_BLK_T_FLUSH, 12345, 0),
			  VIRTIO_BLK_S_OK);
}
END_TEST

START_TEST(test_malformed)
{
	/* No writable byte: no status, nothing to complete with. */
	hdr_set(VIRTIO_BLK_T_IN, 0);
	add(hdr, 16, false);
	parse();
	ck_assert_ptr_null(r.status_at);
	ck_assert_uint_eq(blk_req_used_len(&r), 0);
	/* Short header. */
	setup();
	add(hdr, 15, false);
	add(st, 1, true);
	parse();
	ck_assert_uint_eq(r.status, VIRTIO_BLK_S_IOERR);
	ck_assert_ptr_eq(r.status_at, st);
	ck_assert_uint_eq(blk_req_used_len(&r), 1);
	/* Nothing readable at all. */
	setup();
	add(st, 1, true);
	parse();
	ck_assert_uint_eq(r.status, VIRTIO_BLK_S_IOERR);
}
END_TEST

START_TEST(test_get_id)
{
	hdr_set(VIRTIO_BLK_T_GET_ID, 0);
	add(hdr, 16, false);
	add(data, 64, true);
	add(st, 1, true);
	parse();
	ck_assert_uint_eq(r.status, VIRTIO_BLK_S_OK);
	ck_assert_uint_eq(blk_req_used_len(&r), VIRTIO_BLK_ID_BYTES + 1);
	setup();
	hdr_set(VIRTIO_BLK_T_GET_ID, 0);
	add(hdr, 16, false);
	add(data, 8, true);
	add(st, 1, true);
	parse();
	ck_assert_uint_eq(blk_req_used_len(&r), 9);
}
END_TEST

static void seg(unsigned int i, uint64_t sector, uint32_t num, uint32_t fl)
{
	uint64_t s = htole64(sector);
	uint32_t n = htole32(num), f = htole32(fl);

	memcpy(segs + 16 * i, &s, 8);
	memcpy(segs + 16 * i + 8, &n, 4);
	memcpy(segs + 16 * i + 12, &f, 4);
}

static uint8_t ranges(uint32_t type, unsigned int nseg, size_t extra)
{
	memset(&c, 0, sizeof(c));
	hdr_set(type, 0);
	add(hdr, 16, false);
	add(segs, 16 * nseg + extra, false);
	add(st, 1, true);
	parse();
	return r.status;
}

START_TEST(test_segments)
{
	seg(0, 0, 64, 0);
	seg(1, CAP - 8, 8, 0);
	ck_assert_uint_eq(ranges(VIRTIO_BLK_T_DISCARD, 2, 0), VIRTIO_BLK_S_OK);
	ck_assert_uint_eq(r.nsegs, 2);
	ck_assert_uint_eq(r.segs[1].sector, CAP - 8);
	ck_assert_uint_eq(ranges(VIRTIO_BLK_T_DISCARD, 0, 0),
			  VIRTIO_BLK_S_IOERR);
	ck_assert_uint_eq(ranges(VIRTIO_BLK_T_DISCARD, 1, 3),
			  VIRTIO_BLK_S_IOERR);
	ck_assert_uint_eq(ranges(VIRTIO_BLK_T_DISCARD, 5, 0),
			  VIRTIO_BLK_S_IOERR);		/* > max_discard_seg */
	seg(1, CAP - 8, 9, 0);
	ck_assert_uint_eq(ranges(VIRTIO_BLK_T_DISCARD, 2, 0),
			  VIRTIO_BLK_S_IOERR);		/* past the end */
	seg(1, 0, 65, 0);
	ck_assert_uint_eq(ranges(VIRTIO_BLK_T_DISCARD, 2, 0),
			  VIRTIO_BLK_S_IOERR);		/* > max sectors */
	seg(1, ~0ull, 1, 0);
	ck_assert_uint_eq(ranges(VIRTIO_BLK_T_WRITE_ZEROES, 2, 0),
			  VIRTIO_BLK_S_IOERR);
	seg(1, 0, 1, VIRTIO_BLK_WZ_F_UNMAP);
	ck_assert_uint_eq(ranges(VIRTIO_BLK_T_WRITE_ZEROES, 2, 0),
			  VIRTIO_BLK_S_OK);
	ck_assert_uint_eq(ranges(VIRTIO_BLK_T_DISCARD, 2, 0),
			  VIRTIO_BLK_S_UNSUPP);		/* unmap on discard */
	seg(1, 0, 1, 2);
	ck_assert_uint_eq(ranges(VIRTIO_BLK_T_WRITE_ZEROES, 2, 0),
			  VIRTIO_BLK_S_UNSUPP);
	g.ro = true;
	seg(1, 0, 1, 0);
	ck_assert_uint_eq(ranges(VIRTIO_BLK_T_WRITE_ZEROES, 2, 0),
			  VIRTIO_BLK_S_IOERR);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("virtio_blk_req");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_read);
	tcase_add_test(tc, test_split_header_shared_status);
	tcase_add_test(tc, test_write);
	tcase_add_test(tc, test_ranges);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_get_id);
	tcase_add_test(tc, test_segments);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
