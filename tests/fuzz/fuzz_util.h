/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the fuzz targets: a reader that turns the fuzzer's
 * bytes into typed values (running dry yields zeros, never reads past the
 * end), and a check that aborts with a message so an invariant violation is
 * a crash libFuzzer records like any other.
 */
#ifndef MINIVMM_FUZZ_UTIL_H
#define MINIVMM_FUZZ_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fz {
	const uint8_t *p;
	size_t n;
};

static inline bool fz_empty(const struct fz *f)
{
	return f->n == 0;
}

static inline uint64_t fz_uint(struct fz *f, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < bytes && f->n; i++) {
		v |= (uint64_t)f->p[0] << (8 * i);
		f->p++;
		f->n--;
	}
	return v;
}

static inline uint8_t fz_u8(struct fz *f) { return (uint8_t)fz_uint(f, 1); }
static inline uint16_t fz_u16(struct fz *f) { return (uint16_t)fz_uint(f, 2); }
static inline uint32_t fz_u32(struct fz *f) { return (uint32_t)fz_uint(f, 4); }
static inline uint64_t fz_u64(struct fz *f) { return fz_uint(f, 8); }

/* Up to max bytes as a pointer into the input; *len gets the count. */
static inline const uint8_t *fz_bytes(struct fz *f, size_t max, size_t *len)
{
	const uint8_t *p = f->p;

	*len = max < f->n ? max : f->n;
	f->p += *len;
	f->n -= *len;
	return p;
}

/* A NUL-terminated copy of the next bytes up to a NUL or max bytes;
 * caller frees. */
static inline char *fz_str(struct fz *f, size_t max)
{
	size_t len = 0;
	char *s;

	while (len < max && len < f->n && f->p[len])
		len++;
	s = malloc(len + 1);
	if (!s)
		abort();
	memcpy(s, f->p, len);
	s[len] = 0;
	f->p += len;
	f->n -= len;
	if (f->n) {		/* the terminator */
		f->p++;
		f->n--;
	}
	return s;
}

/* Invariant messages go to a copy of stderr taken at start-up: with
 * -close_fd_mask=2 libFuzzer closes stderr after LLVMFuzzerInitialize. */
static int fz_msg_fd = 2;

static inline void fz_init(void)
{
	int fd = dup(2);

	if (fd >= 0)
		fz_msg_fd = fd;
}

#define FZ_CHECK(cond, ...) do {					\
	if (!(cond)) {							\
		dprintf(fz_msg_fd, "fuzz invariant failed: %s (%s:%d): ",\
			#cond, __FILE__, __LINE__);			\
		dprintf(fz_msg_fd, __VA_ARGS__);			\
		dprintf(fz_msg_fd, "\n");				\
		__builtin_trap();					\
	}								\
} while (0)

#endif
