// SPDX-License-Identifier: MIT
/* The blk cases' disk image and host floor; see hostio.h. */
#include "tools/bench/hostio.h"
#include "tools/bench/plan.h"
#include "tools/bench/stats.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK		(1u << 20)
#define MAX_OPS		(1ull << 24)

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

int bench_disk_prepare(struct bench_run *b)
{
	uint64_t x = 0x2545f4914f6cdd1dull, *buf;
	int fd;

	if (b->disk[0])
		return 0;
	snprintf(b->disk, sizeof(b->disk), "%s/disk.img", b->tmp);
	buf = malloc(CHUNK);
	fd = open(b->disk, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	for (unsigned int i = 0; buf && fd >= 0 && i < BENCH_DISK_MB; i++) {
		for (size_t j = 0; j < CHUNK / 8; j++)
			buf[j] = xorshift(&x);
		if (write(fd, buf, CHUNK) != CHUNK)
			break;
		if (i + 1 == BENCH_DISK_MB) {
			free(buf);
			close(fd);
			return 0;
		}
	}
	fprintf(stderr, "minivmm: error: bench: cannot write %s: %s\n", b->disk,
		strerror(errno));
	free(buf);
	if (fd >= 0)
		close(fd);
	return -1;
}

void bench_disk_remove(struct bench_run *b)
{
	if (b->disk[0])
		unlink(b->disk);
}

struct io {
	int fd;
	uint8_t *buf;
	size_t size;
	bool random, write;
	uint64_t x, next, slots;
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* n requests as the guest makes them; ns taken, or 0 on an I/O error. */
static uint64_t run(struct io *io, uint64_t n)
{
	uint64_t t0 = now_ns();

	for (uint64_t i = 0; i < n; i++) {
		uint64_t slot = io->random ? xorshift(&io->x) % io->slots :
					     io->next;
		off_t off = (off_t)(slot * io->size);
		ssize_t r = io->write ? pwrite(io->fd, io->buf, io->size, off) :
					pread(io->fd, io->buf, io->size, off);

		if (r != (ssize_t)io->size)
			return 0;
		if (!io->random)
			io->next = io->next + 2 > io->slots ? 0 : io->next + 1;
	}
	return now_ns() - t0;
}

static int measure(struct bench_run *b, struct io *io, const char *name,
		   struct bench_sample *out)
{
	uint64_t target = (uint64_t)b->o.target_ms * 1000000, n = BENCH_UNROLL;
	uint64_t samples[BENCH_MAX_REPEATS], total = 0, ns;
	struct bench_summary s;
	struct bench_calib cal;

	bench_calib_init(&cal, n, target, BENCH_UNROLL, MAX_OPS);
	do {
		n = cal.n;
		if (!(ns = run(io, n)))
			return -1;
		total += n;
	} while (!bench_calib_step(&cal, ns));
	n = cal.n;
	for (unsigned int i = 0; i < b->o.repeat; i++) {
		if (!(ns = run(io, n)))
			return -1;
		total += n;
		samples[i] = bench_per_op_milli(ns, n);
	}
	bench_summarize(samples, b->o.repeat, &s);
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", name);
	out->ring = 3;
	out->iters = n;
	out->repeats = b->o.repeat;
	out->ops_total = total;
	out->median_ns = s.median / 1e3;
	out->p10_ns = s.p10 / 1e3;
	out->p90_ns = s.p90 / 1e3;
	out->median_cycles = out->p10_cycles = out->p90_cycles = -1;
	snprintf(out->extra, sizeof(out->extra), "size=%zu mbps=%.0f iops=%.0f",
		 io->size, io->size * 1e3 / out->median_ns,
		 1e9 / out->median_ns);
	return 0;
}

int bench_hostio(struct bench_run *b, const char *name,
		 struct bench_sample *out)
{
	struct io io = {
		.size = strstr(name, "1m") ? 1u << 20 : 4096,
		.random = strstr(name, "rand") != NULL,
		.write = strstr(name, "wr") != NULL,
		.x = 0x9e3779b97f4a7c15ull,
	};
	int r;

	if (bench_disk_prepare(b) < 0)
		return -1;
	io.slots = ((uint64_t)BENCH_DISK_MB << 20) / io.size;
	io.fd = open(b->disk, (io.write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	io.buf = aligned_alloc(4096, io.size);
	r = io.fd >= 0 && io.buf ? measure(b, &io, name, out) : -1;
	free(io.buf);
	if (io.fd >= 0)
		close(io.fd);
	return r;
}

void bench_run_hostio(struct bench_run *b)
{
	for (size_t i = 0; i < bench_ncases; i++) {
		const struct bench_case *k = &bench_cases[i];
		struct bench_sample s;
		struct bench_result *x;

		if (!bench_is_blk(k->name) ||
		    !bench_case_selected(b->o.cases, k))
			continue;
		bench_progress(b, "host pread/pwrite", k->name);
		x = bench_new_row(b, k->name, 3, "pread/pwrite", "host", "blk");
		if (bench_hostio(b, k->name, &s) < 0) {
			x->status = BENCH_FAILED;
			snprintf(x->note, sizeof(x->note), "host I/O failed");
			b->failed = true;
			continue;
		}
		bench_result_from_sample(x, &s);
		if (b->nfloor < BENCH_MAX_FLOOR)
			b->floor_s[b->nfloor++] = s;
	}
}
