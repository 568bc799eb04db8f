// SPDX-License-Identifier: MIT
/* The snapshot container: header, section table, payload encoding.  See
 * format.h and docs/snapshot.md. */
#include "vmm/snapshot/format.h"
#include "vmm/snapshot/errmsg.h"
#include "firmware/lib/le.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Header layout (offsets): magic 0, version 8, header size 12, sections
 * 16, flags 20, file size 24, table CRC 32, reserved 36..59, header CRC
 * 60 (over bytes 0..59). */
#define H_VERSION	8
#define H_SIZE		12
#define H_COUNT		16
#define H_FLAGS		20
#define H_FILE_SIZE	24
#define H_TABLE_CRC	32
#define H_CRC		60

static const struct {
	uint32_t type;
	const char *name;
} types[] = {
	{ SNAP_SEC_META, "meta" }, { SNAP_SEC_CONFIG, "config" },
	{ SNAP_SEC_VCPU, "vcpu" }, { SNAP_SEC_MSR_EMUL, "msr-emulate" },
	{ SNAP_SEC_IRQCHIP, "irqchip" }, { SNAP_SEC_PIT, "pit" },
	{ SNAP_SEC_CLOCK, "kvmclock" }, { SNAP_SEC_UART, "uart" },
	{ SNAP_SEC_ACPI_PM, "acpi-pm" },
	{ SNAP_SEC_XEN_PLATFORM, "xen-platform" },
	{ SNAP_SEC_PCI_BUS, "pci-bus" }, { SNAP_SEC_PCI_FN, "pci-function" },
	{ SNAP_SEC_SNAPCTL, "snapshot-control" }, { SNAP_SEC_RAM, "ram" },
	{ SNAP_SEC_ROM, "rom" }, { SNAP_SEC_XEN_BAR1, "xen-bar1" },
	{ SNAP_SEC_VCONSOLE, "virtio-console" },
	{ SNAP_SEC_VIRTIO, "virtio" }, { SNAP_SEC_RTC, "rtc" },
	{ SNAP_SEC_SYSCALL, "syscall-fix" },
	{ SNAP_SEC_FW_CFG, "fw-cfg" }, { SNAP_SEC_TESTDEV, "testdev" },
};

const char *snap_type_name(uint32_t type)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].type == type)
			return types[i].name;
	return NULL;
}

bool snap_type_is_memory(uint32_t type)
{
	return type >= 64 && type < 80;
}

uint32_t snap_crc(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	/* zlib takes uInt lengths. */
	while (len) {
		uInt n = len > (1u << 30) ? (1u << 30) : (uInt)len;

		crc = (uint32_t)crc32(crc, p, n);
		p += n;
		len -= n;
	}
	return crc;
}

size_t snap_head_size(uint32_t n)
{
	return SNAP_HEADER_SIZE + (size_t)n * SNAP_ENTRY_SIZE;
}

static void put_entry(uint8_t *p, const struct snap_entry *e)
{
	le32_put(p, e->type);
	le32_put(p + 4, e->instance);
	le64_put(p + 8, e->offset);
	le64_put(p + 16, e->length);
	le32_put(p + 24, e->crc);
	le32_put(p + 28, e->flags);
}

static void get_entry(const uint8_t *p, struct snap_entry *e)
{
	e->type = le32_get(p);
	e->instance = le32_get(p + 4);
	e->offset = le64_get(p + 8);
	e->length = le64_get(p + 16);
	e->crc = le32_get(p + 24);
	e->flags = le32_get(p + 28);
}

void snap_build_head(uint8_t *buf, const struct snap_entry *e, uint32_t n,
		     uint64_t file_size)
{
	uint8_t *table = buf + SNAP_HEADER_SIZE;

	memset(buf, 0, snap_head_size(n));
	memcpy(buf, SNAP_MAGIC, 8);
	le32_put(buf + H_VERSION, SNAP_VERSION);
	le32_put(buf + H_SIZE, SNAP_HEADER_SIZE);
	le32_put(buf + H_COUNT, n);
	le64_put(buf + H_FILE_SIZE, file_size);
	for (uint32_t i = 0; i < n; i++)
		put_entry(table + (size_t)i * SNAP_ENTRY_SIZE, &e[i]);
	le32_put(buf + H_TABLE_CRC, snap_crc(0, table,
					 (size_t)n * SNAP_ENTRY_SIZE));
	le32_put(buf + H_CRC, snap_crc(0, buf, H_CRC));
}

static int check_header(const uint8_t *h, size_t len, uint64_t file_size,
			char *err, size_t errlen)
{
	uint32_t version;

	if (memcmp(h, SNAP_MAGIC, len < 8 ? len : 8))
		return fail(err, errlen, "not a minivmm snapshot (bad magic)");
	if (len < SNAP_HEADER_SIZE)
		return fail(err, errlen, "truncated: %zu bytes, not even a "
			    "header", len);
	version = le32_get(h + H_VERSION);
	if (version != SNAP_VERSION)
		return fail(err, errlen, "format version %u, this minivmm "
			    "reads version %u", version, SNAP_VERSION);
	if (le32_get(h + H_CRC) != snap_crc(0, h, H_CRC))
		return fail(err, errlen, "header checksum mismatch (corrupted)");
	if (le32_get(h + H_SIZE) != SNAP_HEADER_SIZE || le32_get(h + H_FLAGS))
		return fail(err, errlen, "unsupported header size or flags");
	if (le64_get(h + H_FILE_SIZE) != file_size)
		return fail(err, errlen, "truncated or extended: the header "
			    "says %llu bytes, the file has %llu",
			    (unsigned long long)le64_get(h + H_FILE_SIZE),
			    (unsigned long long)file_size);
	return 0;
}

static int check_entry(const struct snap_entry *e, uint64_t data_start,
		       uint64_t file_size, char *err, size_t errlen)
{
	const char *name = snap_type_name(e->type);
	bool mem = snap_type_is_memory(e->type);

	if (!name)
		return fail(err, errlen, "unknown section type %u", e->type);
	if (e->flags != (mem ? SNAP_F_MEMORY : 0))
		return fail(err, errlen, "section %s/%u: bad flags 0x%x", name,
			    e->instance, e->flags);
	if (e->offset < data_start || e->offset > file_size ||
	    e->length > file_size - e->offset)
		return fail(err, errlen, "section %s/%u lies outside the file",
			    name, e->instance);
	if (mem && (e->offset % SNAP_PAGE || e->length % SNAP_PAGE ||
		    !e->length))
		return fail(err, errlen, "memory section %s/%u is not "
			    "page-aligned", name, e->instance);
	if (!mem && e->length > SNAP_MAX_STATE)
		return fail(err, errlen, "section %s/%u is too large", name,
			    e->instance);
	return 0;
}

static int cmp_offset(const void *a, const void *b)
{
	const struct snap_entry *x = *(const struct snap_entry *const *)a;
	const struct snap_entry *y = *(const struct snap_entry *const *)b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* No two sections overlap; no (type, instance) twice. */
static int check_layout(struct snap_index *idx, char *err, size_t errlen)
{
	const struct snap_entry **s = malloc(idx->n * sizeof(*s) + 1);
	uint64_t state = 0;
	int rc = 0;

	if (!s)
		return fail(err, errlen, "out of memory");
	for (uint32_t i = 0; i < idx->n; i++) {
		s[i] = &idx->e[i];
		if (!snap_type_is_memory(idx->e[i].type))
			state += idx->e[i].length;
		for (uint32_t j = 0; j < i && !rc; j++)
			if (idx->e[j].type == idx->e[i].type &&
			    idx->e[j].instance == idx->e[i].instance)
				rc = fail(err, errlen, "section %s/%u appears "
					  "twice", snap_type_name(idx->e[i].type),
					  idx->e[i].instance);
	}
	if (!rc && state > SNAP_MAX_STATE_TOTAL)
		rc = fail(err, errlen, "state sections too large in total");
	qsort(s, idx->n, sizeof(*s), cmp_offset);
	for (uint32_t i = 1; i < idx->n && !rc; i++)
		if (s[i - 1]->offset + s[i - 1]->length > s[i]->offset)
			rc = fail(err, errlen, "sections overlap");
	free(s);
	return rc;
}

int snap_parse(const uint8_t *head, size_t head_len, uint64_t file_size,
	       struct snap_index *idx, char *err, size_t errlen)
{
	uint32_t n;
	size_t need;

	memset(idx, 0, sizeof(*idx));
	if (check_header(head, head_len, file_size, err, errlen) < 0)
		return -1;
	n = le32_get(head + H_COUNT);
	if (!n || n > SNAP_MAX_SECTIONS)
		return fail(err, errlen, "bad section count %u", n);
	need = snap_head_size(n);
	if (head_len < need || file_size < need)
		return fail(err, errlen, "truncated section table");
	if (le32_get(head + H_TABLE_CRC) !=
	    snap_crc(0, head + SNAP_HEADER_SIZE, need - SNAP_HEADER_SIZE))
		return fail(err, errlen, "section table checksum mismatch "
			    "(corrupted)");
	idx->e = calloc(n, sizeof(*idx->e));
	if (!idx->e)
		return fail(err, errlen, "out of memory");
	idx->n = n;
	idx->version = SNAP_VERSION;
	idx->file_size = file_size;
	for (uint32_t i = 0; i < n; i++) {
		get_entry(head + SNAP_HEADER_SIZE + (size_t)i * SNAP_ENTRY_SIZE,
			  &idx->e[i]);
		if (check_entry(&idx->e[i], need, file_size, err, errlen) < 0)
			goto bad;
	}
	if (check_layout(idx, err, errlen) < 0)
		goto bad;
	return 0;
bad:
	snap_index_free(idx);
	return -1;
}

void snap_index_free(struct snap_index *idx)
{
	free(idx->e);
	idx->e = NULL;
	idx->n = 0;
}

const struct snap_entry *snap_find(const struct snap_index *idx,
				   uint32_t type, uint32_t instance)
{
	for (uint32_t i = 0; i < idx->n; i++)
		if (idx->e[i].type == type && idx->e[i].instance == instance)
			return &idx->e[i];
	return NULL;
}

/* --- payload encoding ---------------------------------------------------- */

void snap_buf_init(struct snap_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void snap_buf_free(struct snap_buf *b)
{
	free(b->p);
	snap_buf_init(b);
}

void snap_put(struct snap_buf *b, const void *data, size_t len)
{
	if (b->failed || !len)
		return;
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *p;

		while (cap < b->len + len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->failed = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

void snap_put_u32(struct snap_buf *b, uint32_t v)
{
	snap_put(b, &v, 4);
}

void snap_put_u64(struct snap_buf *b, uint64_t v)
{
	snap_put(b, &v, 8);
}

void snap_put_str(struct snap_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	snap_put_u32(b, (uint32_t)n);
	snap_put(b, s, n);
}

void snap_rd_init(struct snap_rd *r, const void *p, size_t len)
{
	*r = (struct snap_rd){ .p = p, .len = len };
}

const uint8_t *snap_get_ptr(struct snap_rd *r, size_t len)
{
	const uint8_t *p;

	if (r->bad || len > r->len - r->off) {
		r->bad = true;
		return NULL;
	}
	p = r->p + r->off;
	r->off += len;
	return p;
}

void snap_get(struct snap_rd *r, void *out, size_t len)
{
	const uint8_t *p = snap_get_ptr(r, len);

	if (p)
		memcpy(out, p, len);
	else
		memset(out, 0, len);
}

uint32_t snap_get_u32(struct snap_rd *r)
{
	uint32_t v;

	snap_get(r, &v, 4);
	return v;
}

uint64_t snap_get_u64(struct snap_rd *r)
{
	uint64_t v;

	snap_get(r, &v, 8);
	return v;
}

bool snap_rd_done(const struct snap_rd *r)
{
	return !r->bad && r->off == r->len;
}
