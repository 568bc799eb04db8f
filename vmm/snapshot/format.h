/* SPDX-License-Identifier: MIT */
/*
 * The snapshot file format (docs/snapshot.md), version 2.  Pure: builds
 * and checks headers and section tables in memory, encodes and decodes
 * section payloads; no files, no KVM.  The parser (snap_parse) is what
 * tests/fuzz/fuzz_snapshot.c drives.
 *
 * A file is
 *	[header, 64 bytes][section table, n x 32 bytes][state sections]
 *	[memory sections, each starting on a 4 KiB boundary]
 * all little-endian.  The header carries the magic, the version, the
 * section count, the file's total size (truncation is caught before
 * anything else is read) and CRC-32s of itself and of the table.  Each
 * table entry names a section: type, instance (which vCPU, which bus
 * function, which RAM part), offset, length, CRC-32 of its bytes, flags.
 * State sections are small and always verified; memory sections (guest
 * RAM, the ROM, RAM-backed BARs) are mapped copy-on-write at restore, so
 * their CRCs are only verified on request (--restore-verify).
 *
 * Versions: 2 (vCPU sections also carry the MSRs KVM's index list leaves
 * out: MTRRs, machine-check banks...; sections/msr_extra.h).  A reader
 * takes only its own version: a version 1 file restored would lose the
 * guest's MTRRs without a word.
 *
 * Section types are stable numbers; a new device takes a new number and
 * adds one section, the container never changes.  A reader refuses types
 * it does not know.
 */
#ifndef MINIVMM_SNAPSHOT_FORMAT_H
#define MINIVMM_SNAPSHOT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SNAP_MAGIC		"MVMSNAP\x1a"
#define SNAP_VERSION		2u
#define SNAP_HEADER_SIZE	64u
#define SNAP_ENTRY_SIZE		32u
#define SNAP_PAGE		4096u
#define SNAP_MAX_SECTIONS	4096u
#define SNAP_MAX_STATE		(64u << 20)	/* one state section */
#define SNAP_MAX_STATE_TOTAL	(256u << 20)	/* all of them */

/* Section types.  Numbers are part of the format: never reuse one. */
enum snap_type {
	SNAP_SEC_META		= 1,	/* build id, host, KVM (meta.c) */
	SNAP_SEC_CONFIG		= 2,	/* machine options (config.c) */
	SNAP_SEC_VCPU		= 16,	/* instance: vCPU id */
	SNAP_SEC_MSR_EMUL	= 17,	/* MSR policy emulate store, per vCPU */
	SNAP_SEC_IRQCHIP	= 32,	/* PIC master, slave, IOAPIC */
	SNAP_SEC_PIT		= 33,
	SNAP_SEC_CLOCK		= 34,	/* kvmclock */
	SNAP_SEC_UART		= 48,	/* instance: COM port number - 1 */
	SNAP_SEC_ACPI_PM	= 49,
	SNAP_SEC_XEN_PLATFORM	= 50,
	SNAP_SEC_PCI_BUS	= 51,	/* CF8 */
	SNAP_SEC_PCI_FN		= 52,	/* instance: bdf */
	SNAP_SEC_SNAPCTL	= 53,	/* the snapshot control page */
	SNAP_SEC_RTC		= 54,	/* CMOS RAM and the RTC's clock */
	/* 64..79: memory images (SNAP_F_MEMORY) */
	SNAP_SEC_RAM		= 64,	/* instance: 0 low RAM, 1 high RAM */
	SNAP_SEC_ROM		= 65,
	SNAP_SEC_XEN_BAR1	= 66,
	SNAP_SEC_VIRTIO		= 80,	/* instance: bdf; transport, queues,
					 * MSI-X (devices/virtio/state.h) */
	SNAP_SEC_VCONSOLE	= 85,	/* instance: bdf; virtio-console's
					 * input not yet in the guest */
	SNAP_SEC_SYSCALL	= 96,	/* syscall completion, per vCPU */
	SNAP_SEC_FW_CFG		= 97,	/* selector and offset */
	SNAP_SEC_TESTDEV	= 98,	/* QEMU test devices; instance
					 * SNAP_TESTDEV_PC or _PCI */
	/* Reserved for the devices that come next (docs/snapshot.md):
	 * 81 virtqueue (unused: queues are in 80), 82 virtio-blk, 83
	 * virtio-rng (neither has state beyond 80), 84 virtio-net. */
};

#define SNAP_TESTDEV_PC		0u	/* pc-testdev (ISA) */
#define SNAP_TESTDEV_PCI	1u	/* pci-testdev (--pci-testdev) */

#define SNAP_F_MEMORY		0x1u	/* page-aligned memory image */

struct snap_entry {
	uint32_t type;
	uint32_t instance;
	uint64_t offset;
	uint64_t length;
	uint32_t crc;
	uint32_t flags;
};

/* A parsed file: the header fields and the table. */
struct snap_index {
	uint32_t version;
	uint64_t file_size;
	uint32_t n;
	struct snap_entry *e;		/* n entries, malloc'ed */
};

/* Name of a section type ("vcpu", ...), or NULL if unknown. */
const char *snap_type_name(uint32_t type);
bool snap_type_is_memory(uint32_t type);

uint32_t snap_crc(uint32_t crc, const void *buf, size_t len);

/*
 * Checks a file's first bytes (head: at least the header and table, or
 * all of the file if shorter) against the format: magic, version, header
 * and table CRCs, the size the header promises equals file_size, every
 * section inside the file and not overlapping the header, table or
 * another section, memory sections page-aligned with the memory flag,
 * state sections within the size limits, known types, no duplicate
 * (type, instance).  Fills idx (free with snap_index_free).  0, or -1
 * with one line in err.  Never reads past head_len.
 */
int snap_parse(const uint8_t *head, size_t head_len, uint64_t file_size,
	       struct snap_index *idx, char *err, size_t errlen);
void snap_index_free(struct snap_index *idx);
/* Bytes the header and table of a file with n sections take. */
size_t snap_head_size(uint32_t n);
/* Writes header and table for entries e[0..n) into buf
 * (snap_head_size(n) bytes). */
void snap_build_head(uint8_t *buf, const struct snap_entry *e, uint32_t n,
		     uint64_t file_size);
/* The entry for (type, instance), or NULL. */
const struct snap_entry *snap_find(const struct snap_index *idx,
				   uint32_t type, uint32_t instance);

/* --- section payloads: a growable writer and a bounds-checked reader -- */

struct snap_buf {
	uint8_t *p;
	size_t len, cap;
	bool failed;			/* allocation failed: drop the result */
};

void snap_buf_init(struct snap_buf *b);
void snap_buf_free(struct snap_buf *b);
void snap_put(struct snap_buf *b, const void *data, size_t len);
void snap_put_u32(struct snap_buf *b, uint32_t v);
void snap_put_u64(struct snap_buf *b, uint64_t v);
/* A length-prefixed (u32) string, NUL not included. */
void snap_put_str(struct snap_buf *b, const char *s);

struct snap_rd {
	const uint8_t *p;
	size_t len, off;
	bool bad;			/* read past the end: everything after
					 * reads zero */
};

void snap_rd_init(struct snap_rd *r, const void *p, size_t len);
void snap_get(struct snap_rd *r, void *out, size_t len);
uint32_t snap_get_u32(struct snap_rd *r);
uint64_t snap_get_u64(struct snap_rd *r);
/* Pointer to len bytes in place (NULL, and bad set, if they are not all
 * there). */
const uint8_t *snap_get_ptr(struct snap_rd *r, size_t len);
/* True if the whole payload was read and nothing ran past its end. */
bool snap_rd_done(const struct snap_rd *r);

#endif
