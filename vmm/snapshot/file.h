/* SPDX-License-Identifier: MIT */
/*
 * Snapshot files on disk: writing one atomically (a temp file beside the
 * target, then rename), with state sections packed after the table and
 * memory images page-aligned, all-zero pages left as holes; and opening
 * one for restore: the whole container checked (format.h), every state
 * section read and its checksum verified, memory images mapped
 * copy-on-write (MAP_PRIVATE | MAP_FIXED) over the ranges that back them.
 */
#ifndef MINIVMM_SNAPSHOT_FILE_H
#define MINIVMM_SNAPSHOT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/snapshot/format.h"

/* One section to write: bytes (state) or a host range (memory). */
struct snap_out {
	uint32_t type, instance;
	const uint8_t *data;
	size_t len;
	/* Memory that is private anonymous: a page the process never
	 * touched (not present, not swapped, per /proc/self/pagemap) is
	 * zero without reading it (reading would fault each one in). */
	bool anon;
};

struct snap_write_stats {
	uint64_t file_size;		/* logical size */
	uint64_t data_bytes;		/* bytes written (holes excluded) */
	uint64_t zero_pages;		/* memory pages left as holes */
	uint64_t untouched_pages;	/* of which never touched (pagemap) */
};

/* Creates "<path>.tmp.<pid>" (O_EXCL); fd, or -1 with err.  tmp gets the
 * name (PATH_MAX). */
int snap_file_create_tmp(const char *path, char *tmp, char *err,
			 size_t errlen);
/* Writes the n sections into fd (a fresh temp file), fsyncs it and renames
 * tmp to path.  pagemap_fd: /proc/self/pagemap, or -1.  0, or -1 with err
 * (tmp is then removed). */
int snap_file_write(int fd, const char *tmp, const char *path,
		    const struct snap_out *s, uint32_t n, int pagemap_fd,
		    struct snap_write_stats *st, char *err, size_t errlen);

struct snap_file {
	int fd;
	uint64_t size;
	struct snap_index idx;
	uint8_t **state;		/* per entry: its bytes (state) or NULL */
};

/* Opens and checks path; every state section is read and verified.  0, or
 * -1 with err. */
int snap_file_open(const char *path, struct snap_file *f, char *err,
		   size_t errlen);
void snap_file_close(struct snap_file *f);
/* The bytes of state section (type, instance), or NULL. */
const uint8_t *snap_file_state(const struct snap_file *f, uint32_t type,
			       uint32_t instance, size_t *len);
/* Verifies the memory sections' checksums (reads them all). */
int snap_file_verify_memory(const struct snap_file *f, char *err,
			    size_t errlen);
/* Maps memory section e over host (e->length bytes) copy-on-write. */
int snap_file_map(const struct snap_file *f, const struct snap_entry *e,
		  void *host, bool readonly);

#endif
