// SPDX-License-Identifier: MIT
/* Benchmark statistics and the result line; freestanding (see the header:
 * the guest payload compiles this file too). */
#include "tools/bench/stats.h"

void bench_sort_u64(uint64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint64_t x = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

uint64_t bench_percentile(const uint64_t *sorted, size_t n, unsigned int pct)
{
	uint64_t pos, idx, frac, lo, diff;

	if (n == 0)
		return 0;
	if (pct > 100)
		pct = 100;
	pos = (uint64_t)pct * (n - 1);	/* rank, in hundredths */
	idx = pos / 100;
	frac = pos % 100;
	lo = sorted[idx];
	if (frac == 0 || idx + 1 >= n)
		return lo;
	diff = sorted[idx + 1] - lo;	/* sorted: no underflow */
	/* diff * frac / 100 without overflowing for huge diffs. */
	return lo + diff / 100 * frac + diff % 100 * frac / 100;
}

int bench_summarize(uint64_t *samples, size_t n, struct bench_summary *out)
{
	if (n == 0)
		return -1;
	bench_sort_u64(samples, n);
	out->min = samples[0];
	out->max = samples[n - 1];
	out->median = bench_percentile(samples, n, 50);
	out->p10 = bench_percentile(samples, n, 10);
	out->p90 = bench_percentile(samples, n, 90);
	return 0;
}

/* a * mul / div, saturating (the product may not fit 64 bits). */
static uint64_t mul_div(uint64_t a, uint64_t mul, uint64_t div)
{
	unsigned __int128 p = (unsigned __int128)a * mul / div;

	return p > UINT64_MAX ? UINT64_MAX : (uint64_t)p;
}

uint64_t bench_per_op_milli(uint64_t total, uint64_t iters)
{
	if (iters == 0)
		return 0;
	return mul_div(total, 1000, iters);
}

uint64_t bench_cycles_to_ns(uint64_t milli_cycles, uint32_t tsc_khz)
{
	if (tsc_khz == 0)
		return 0;
	/* cycles / (kHz * 1000) s = cycles * 1e6 / kHz ns */
	return mul_div(milli_cycles, 1000000, tsc_khz);
}

static uint64_t round_to(uint64_t n, unsigned int unroll, uint64_t max_n)
{
	uint64_t u = unroll ? unroll : 1;

	if (n > max_n)
		n = max_n;
	n -= n % u;
	return n < u ? u : n;
}

uint64_t bench_calibrate(uint64_t n, uint64_t elapsed, uint64_t target,
			 unsigned int unroll, uint64_t max_n, bool *done)
{
	uint64_t factor, m;

	if (elapsed == 0)
		elapsed = 1;
	if (n == 0)
		n = 1;
	*done = elapsed >= target / 2 || n >= max_n;
	if (*done) {
		m = mul_div(n, target, elapsed);
		return round_to(m, unroll, max_n);	/* 0 becomes unroll */
	}
	factor = target / elapsed;
	if (factor < 2)
		factor = 2;
	if (factor > 16)
		factor = 16;
	if (n > max_n / factor)
		return round_to(max_n, unroll, max_n);
	return round_to(n * factor, unroll, max_n);
}

void bench_calib_init(struct bench_calib *c, uint64_t n, uint64_t target,
		      unsigned int unroll, uint64_t max_n)
{
	*c = (struct bench_calib){ .n = n ? n : (unroll ? unroll : 1),
		.target = target, .max_n = max_n, .unroll = unroll,
		.rechecks = BENCH_CALIB_RECHECKS };
}

bool bench_calib_step(struct bench_calib *c, uint64_t elapsed)
{
	bool done;

	if (c->checking) {
		if (elapsed >= c->target / 4 || c->n >= c->max_n ||
		    !c->rechecks)
			return true;
		c->rechecks--;
	}
	c->n = bench_calibrate(c->n, elapsed, c->target, c->unroll, c->max_n,
			       &done);
	c->checking = done;
	return false;
}

/* --- the result line ---------------------------------------------------- */

static size_t put_ch(char *buf, size_t len, size_t pos, char c)
{
	if (pos + 1 < len) {
		buf[pos] = c;
		buf[pos + 1] = 0;
	}
	return pos + 1;
}

static size_t put_str(char *buf, size_t len, size_t pos, const char *s)
{
	while (s && *s)
		pos = put_ch(buf, len, pos, *s++);
	return pos;
}

static size_t put_u64(char *buf, size_t len, size_t pos, uint64_t v)
{
	char digits[20];
	int n = 0;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		pos = put_ch(buf, len, pos, digits[--n]);
	return pos;
}

size_t bench_put_milli(char *buf, size_t len, size_t pos, uint64_t milli)
{
	uint64_t frac = milli % 1000;

	pos = put_u64(buf, len, pos, milli / 1000);
	pos = put_ch(buf, len, pos, '.');
	pos = put_ch(buf, len, pos, (char)('0' + frac / 100));
	pos = put_ch(buf, len, pos, (char)('0' + frac / 10 % 10));
	return put_ch(buf, len, pos, (char)('0' + frac % 10));
}

static size_t put_key_milli(char *buf, size_t len, size_t pos,
			    const char *key, uint64_t milli, bool known)
{
	pos = put_str(buf, len, pos, key);
	if (!known)
		return put_ch(buf, len, pos, '-');
	return bench_put_milli(buf, len, pos, milli);
}

size_t bench_format_line(char *buf, size_t len, const struct bench_line *l)
{
	const struct bench_summary *c = &l->cycles;
	bool ns = l->tsc_khz != 0;
	size_t pos = 0;

	if (len)
		buf[0] = 0;
	pos = put_str(buf, len, pos, "BENCH case=");
	pos = put_str(buf, len, pos, l->name ? l->name : "?");
	pos = put_str(buf, len, pos, " ring=");
	pos = put_u64(buf, len, pos, l->ring < 0 ? 0 : (uint64_t)l->ring);
	pos = put_str(buf, len, pos, " iters=");
	pos = put_u64(buf, len, pos, l->iters);
	pos = put_key_milli(buf, len, pos, " median_cycles=", c->median, true);
	pos = put_key_milli(buf, len, pos, " p10_cycles=", c->p10, true);
	pos = put_key_milli(buf, len, pos, " p90_cycles=", c->p90, true);
	pos = put_key_milli(buf, len, pos, " median_ns=",
			    bench_cycles_to_ns(c->median, l->tsc_khz), ns);
	pos = put_key_milli(buf, len, pos, " p10_ns=",
			    bench_cycles_to_ns(c->p10, l->tsc_khz), ns);
	pos = put_key_milli(buf, len, pos, " p90_ns=",
			    bench_cycles_to_ns(c->p90, l->tsc_khz), ns);
	pos = put_str(buf, len, pos, " repeats=");
	pos = put_u64(buf, len, pos, l->repeats);
	pos = put_str(buf, len, pos, " ops_total=");
	pos = put_u64(buf, len, pos, l->ops_total);
	if (l->extra && *l->extra) {
		pos = put_ch(buf, len, pos, ' ');
		pos = put_str(buf, len, pos, l->extra);
	}
	return pos;
}
