// SPDX-License-Identifier: MIT
/* Snapshot files (file.h). */
#include "vmm/snapshot/file.h"
#include "vmm/snapshot/errmsg.h"
#include "firmware/lib/le.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define STATE_ALIGN	8u
#define WRITE_CHUNK	(8u << 20)

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

int snap_file_create_tmp(const char *path, char *tmp, char *err,
			 size_t errlen)
{
	int fd;

	if (snprintf(tmp, PATH_MAX, "%s.tmp.%d", path, (int)getpid()) >=
	    PATH_MAX)
		return fail(err, errlen, "'%s': name too long", path);
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return fail(err, errlen, "cannot create '%s': %s", tmp,
			    strerror(errno));
	return fd;
}

/* --- writing --------------------------------------------------------------- */

static bool page_is_zero(const uint8_t *p)
{
	const uint64_t *w = (const uint64_t *)(const void *)p;

	for (size_t i = 0; i < SNAP_PAGE / 8; i += 4)
		if (w[i] | w[i + 1] | w[i + 2] | w[i + 3])
			return false;
	return true;
}

static int pwrite_all(int fd, const uint8_t *p, size_t len, uint64_t off)
{
	while (len) {
		ssize_t w = pwrite(fd, p, len > WRITE_CHUNK ? WRITE_CHUNK : len,
				   (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

#define PM_PRESENT	(1ull << 63)
#define PM_SWAPPED	(1ull << 62)
#define PM_CHUNK	4096u		/* pagemap entries per read */

/* Pages of an anonymous range that were never touched, from pagemap. */
struct untouched {
	int fd;
	const uint8_t *base;
	size_t first;			/* page index of pm[0] */
	size_t n;			/* valid entries in pm */
	uint64_t pm[PM_CHUNK];
};

static bool never_touched(struct untouched *u, size_t page)
{
	if (u->fd < 0)
		return false;
	if (page < u->first || page >= u->first + u->n) {
		uint64_t off = ((uintptr_t)u->base / SNAP_PAGE + page) * 8;
		ssize_t r = pread(u->fd, u->pm, sizeof(u->pm), (off_t)off);

		if (r <= 0) {
			u->fd = -1;	/* no pagemap: read every page */
			return false;
		}
		u->first = page;
		u->n = (size_t)r / 8;
	}
	return !(u->pm[page - u->first] & (PM_PRESENT | PM_SWAPPED));
}

static bool page_zero(struct untouched *u, const struct snap_out *s,
		      size_t page)
{
	return never_touched(u, page) ||
	       page_is_zero(s->data + page * SNAP_PAGE);
}

/* crc extended by n zero pages: one crc32_combine per set bit of n,
 * with the CRCs of 2^k zero pages computed once (a combine per page
 * would cost 0.3 s for 5 GiB). */
static uLong crc_zero_pages(uLong crc, size_t n)
{
	static const uint8_t zero[SNAP_PAGE];
	static uLong pow2[64];		/* CRC of 2^k zero pages */
	static int known;

	if (!known) {
		pow2[0] = crc32(0, zero, SNAP_PAGE);
		for (int k = 1; k < 64 - 13; k++)
			pow2[k] = crc32_combine(pow2[k - 1], pow2[k - 1],
						(z_off_t)SNAP_PAGE << (k - 1));
		known = 1;
	}
	for (int k = 0; n; k++, n >>= 1)
		if (n & 1)
			crc = crc32_combine(crc, pow2[k],
					    (z_off_t)SNAP_PAGE << k);
	return crc;
}

/* Writes the non-zero runs of pages of a memory image; CRC over all. */
static int write_memory(int fd, const struct snap_out *s, uint64_t off,
			int pagemap_fd, uint32_t *crc,
			struct snap_write_stats *st)
{
	uLong zcrc = crc32(0, NULL, 0);
	static struct untouched u;	/* main thread only */
	size_t i = 0, npages = s->len / SNAP_PAGE;

	u = (struct untouched){ .fd = s->anon ? pagemap_fd : -1,
				.base = s->data };
	while (i < npages) {
		size_t run = 0, zeros = 0;

		while (i + run < npages && !page_zero(&u, s, i + run))
			run++;
		if (run) {
			const uint8_t *p = s->data + i * SNAP_PAGE;

			zcrc = snap_crc((uint32_t)zcrc, p, run * SNAP_PAGE);
			if (pwrite_all(fd, p, run * SNAP_PAGE,
				       off + i * SNAP_PAGE) < 0)
				return -1;
			st->data_bytes += run * SNAP_PAGE;
			i += run;
			continue;
		}
		while (i + zeros < npages && page_zero(&u, s, i + zeros)) {
			st->untouched_pages += never_touched(&u, i + zeros);
			zeros++;
		}
		zcrc = crc_zero_pages(zcrc, zeros);
		st->zero_pages += zeros;
		i += zeros;
	}
	*crc = (uint32_t)zcrc;
	return 0;
}

static int write_all(int fd, const struct snap_out *s, uint32_t n,
		     int pagemap_fd, struct snap_entry *e,
		     struct snap_write_stats *st)
{
	uint64_t off = snap_head_size(n);

	for (uint32_t i = 0; i < n; i++) {
		bool mem = snap_type_is_memory(s[i].type);

		off = align_up(off, mem ? SNAP_PAGE : STATE_ALIGN);
		e[i] = (struct snap_entry){
			.type = s[i].type, .instance = s[i].instance,
			.offset = off, .length = s[i].len,
			.flags = mem ? SNAP_F_MEMORY : 0,
		};
		off += s[i].len;
	}
	st->file_size = off;
	if (ftruncate(fd, (off_t)off) < 0)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		if (snap_type_is_memory(s[i].type)) {
			if (write_memory(fd, &s[i], e[i].offset, pagemap_fd,
					 &e[i].crc, st) < 0)
				return -1;
			continue;
		}
		e[i].crc = snap_crc(0, s[i].data, s[i].len);
		if (pwrite_all(fd, s[i].data, s[i].len, e[i].offset) < 0)
			return -1;
		st->data_bytes += s[i].len;
	}
	return 0;
}

int snap_file_write(int fd, const char *tmp, const char *path,
		    const struct snap_out *s, uint32_t n, int pagemap_fd,
		    struct snap_write_stats *st, char *err, size_t errlen)
{
	struct snap_entry *e = calloc(n, sizeof(*e));
	uint8_t *head = malloc(snap_head_size(n));
	int rc = -1;

	memset(st, 0, sizeof(*st));
	if (!e || !head) {
		fail(err, errlen, "out of memory");
		goto out;
	}
	/* The header goes last: a torn write leaves a file that fails its
	 * checks (it is still a temp file anyway). */
	if (write_all(fd, s, n, pagemap_fd, e, st) < 0)
		goto sys;
	snap_build_head(head, e, n, st->file_size);
	if (pwrite_all(fd, head, snap_head_size(n), 0) < 0 || fsync(fd) < 0 ||
	    rename(tmp, path) < 0)
		goto sys;
	st->data_bytes += snap_head_size(n);
	rc = 0;
	goto out;
sys:
	fail(err, errlen, "writing '%s': %s", tmp, strerror(errno));
	unlink(tmp);
out:
	free(e);
	free(head);
	return rc;
}

/* --- reading --------------------------------------------------------------- */

static int pread_all(int fd, uint8_t *p, size_t len, uint64_t off)
{
	while (len) {
		ssize_t r = pread(fd, p, len, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		len -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

static int read_head(struct snap_file *f, char *err, size_t errlen)
{
	size_t len = f->size < SNAP_HEADER_SIZE ? f->size : SNAP_HEADER_SIZE;
	uint8_t h[SNAP_HEADER_SIZE];
	uint8_t *head;
	uint32_t n;
	int rc;

	if (pread_all(f->fd, h, len, 0) < 0)
		return fail(err, errlen, "cannot read: %s", strerror(errno));
	n = le32_get(h + 16);
	if (len < SNAP_HEADER_SIZE || n > SNAP_MAX_SECTIONS)
		return snap_parse(h, len, f->size, &f->idx, err, errlen);
	len = snap_head_size(n);
	if (len > f->size)
		len = f->size;
	head = malloc(len);
	if (!head)
		return fail(err, errlen, "out of memory");
	if (pread_all(f->fd, head, len, 0) < 0) {
		free(head);
		return fail(err, errlen, "cannot read: %s", strerror(errno));
	}
	rc = snap_parse(head, len, f->size, &f->idx, err, errlen);
	free(head);
	return rc;
}

static int read_states(struct snap_file *f, char *err, size_t errlen)
{
	f->state = calloc(f->idx.n, sizeof(*f->state));
	if (!f->state)
		return fail(err, errlen, "out of memory");
	for (uint32_t i = 0; i < f->idx.n; i++) {
		const struct snap_entry *e = &f->idx.e[i];

		if (e->flags & SNAP_F_MEMORY)
			continue;
		f->state[i] = malloc(e->length ? e->length : 1);
		if (!f->state[i])
			return fail(err, errlen, "out of memory");
		if (pread_all(f->fd, f->state[i], e->length, e->offset) < 0)
			return fail(err, errlen, "cannot read: %s",
				    strerror(errno));
		if (snap_crc(0, f->state[i], e->length) != e->crc)
			return fail(err, errlen, "section %s/%u: checksum "
				    "mismatch (corrupted)",
				    snap_type_name(e->type), e->instance);
	}
	return 0;
}

int snap_file_open(const char *path, struct snap_file *f, char *err,
		   size_t errlen)
{
	struct stat st;

	memset(f, 0, sizeof(*f));
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return fail(err, errlen, "%s", strerror(errno));
	if (fstat(f->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snap_file_close(f);
		return fail(err, errlen, "not a regular file");
	}
	f->size = (uint64_t)st.st_size;
	if (read_head(f, err, errlen) < 0 || read_states(f, err, errlen) < 0) {
		snap_file_close(f);
		return -1;
	}
	return 0;
}

void snap_file_close(struct snap_file *f)
{
	for (uint32_t i = 0; f->state && i < f->idx.n; i++)
		free(f->state[i]);
	free(f->state);
	f->state = NULL;
	snap_index_free(&f->idx);
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

const uint8_t *snap_file_state(const struct snap_file *f, uint32_t type,
			       uint32_t instance, size_t *len)
{
	for (uint32_t i = 0; i < f->idx.n; i++) {
		const struct snap_entry *e = &f->idx.e[i];

		if (e->type == type && e->instance == instance &&
		    f->state[i]) {
			*len = e->length;
			return f->state[i];
		}
	}
	return NULL;
}

int snap_file_verify_memory(const struct snap_file *f, char *err,
			    size_t errlen)
{
	for (uint32_t i = 0; i < f->idx.n; i++) {
		const struct snap_entry *e = &f->idx.e[i];
		void *p;
		uint32_t crc;

		if (!(e->flags & SNAP_F_MEMORY))
			continue;
		p = mmap(NULL, e->length, PROT_READ, MAP_PRIVATE, f->fd,
			 (off_t)e->offset);
		if (p == MAP_FAILED)
			return fail(err, errlen, "cannot map: %s",
				    strerror(errno));
		crc = snap_crc(0, p, e->length);
		munmap(p, e->length);
		if (crc != e->crc)
			return fail(err, errlen, "memory section %s/%u: "
				    "checksum mismatch (corrupted)",
				    snap_type_name(e->type), e->instance);
	}
	return 0;
}

int snap_file_map(const struct snap_file *f, const struct snap_entry *e,
		  void *host, bool readonly)
{
	int prot = PROT_READ | (readonly ? 0 : PROT_WRITE);
	void *p = mmap(host, e->length, prot, MAP_PRIVATE | MAP_FIXED, f->fd,
		       (off_t)e->offset);

	return p == MAP_FAILED ? -1 : 0;
}
