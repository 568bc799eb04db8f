// SPDX-License-Identifier: MIT
#include "devices/rtc.h"

#include <string.h>
#include <time.h>

#define NS		1000000000ll
#define OFF_INDEX	0
#define OFF_DATA	1
#define DIVIDER_ON	0x20		/* register A bits 6:4 = 010 */
#define DONT_CARE	0xc0
#define SEARCH_S	(2 * 86400)	/* an alarm that can match does so
					 * within two days */

enum { SEC, SEC_ALARM, MIN, MIN_ALARM, HOUR, HOUR_ALARM, WDAY, MDAY, MON,
       YEAR };

void rtc_init(struct rtc *r, uint64_t (*now_ns)(void),
	      void (*irq)(void *ctx, int level), void (*changed)(void *ctx),
	      void *ctx)
{
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	r->now_ns = now_ns;
	r->irq = irq;
	r->changed = changed;
	r->ctx = ctx;
	r->cmos[RTC_REG_A] = DIVIDER_ON | 0x06;	/* 32.768 kHz, 1024 Hz */
	r->cmos[RTC_REG_B] = RTC_B_24H;
	r->cmos[RTC_REG_D] = 0x80;		/* valid RAM and time */
	r->seen_s = (int64_t)(now_ns() / NS);
}

void rtc_destroy(struct rtc *r)
{
	pthread_mutex_destroy(&r->lock);
}

static bool binary(const struct rtc *r)
{
	return r->cmos[RTC_REG_B] & RTC_B_DM_BINARY;
}

static uint8_t enc(const struct rtc *r, int v)
{
	return binary(r) ? (uint8_t)v : (uint8_t)((v / 10) << 4 | v % 10);
}

static int dec(const struct rtc *r, uint8_t v)
{
	return binary(r) ? v : (v >> 4) * 10 + (v & 15);
}

static int64_t guest_s(const struct rtc *r)
{
	if (r->cmos[RTC_REG_B] & RTC_B_SET)
		return r->frozen_s;
	return (int64_t)(r->now_ns() / NS) + r->offset_s;
}

/* Civil dates from day numbers and back (proleptic Gregorian, day 0 =
 * 1970-01-01), by 400-year eras; libc's gmtime would read the time zone
 * files on first use, which the sandbox forbids. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

static struct tm broken(int64_t s)
{
	int64_t days = (s >= 0 ? s : s - 86399) / 86400, sod = s - days * 86400;
	int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	int m = (int)(mp < 10 ? mp + 3 : mp - 9);
	struct tm tm = {
		.tm_sec = (int)(sod % 60), .tm_min = (int)(sod / 60 % 60),
		.tm_hour = (int)(sod / 3600),
		.tm_mday = (int)(doy - (153 * mp + 2) / 5 + 1),
		.tm_mon = m - 1,
		.tm_year = (int)(yoe + era * 400 + (m <= 2) - 1900),
		.tm_wday = (int)(((days % 7) + 11) % 7),	/* 1970: Thu */
	};

	return tm;
}

/* Like timegm, out-of-range fields included (a guest may write 61 s). */
static int64_t seconds_of(const struct tm *tm)
{
	int64_t y = tm->tm_year + 1900ll + tm->tm_mon / 12;
	int mon = tm->tm_mon % 12;

	if (mon < 0) {
		mon += 12;
		y--;
	}
	return days_from_civil(y, mon + 1, 1) * 86400 +
	       (int64_t)(tm->tm_mday - 1) * 86400 + tm->tm_hour * 3600ll +
	       tm->tm_min * 60ll + tm->tm_sec;
}

static uint8_t enc_hour(const struct rtc *r, int h)
{
	if (r->cmos[RTC_REG_B] & RTC_B_24H)
		return enc(r, h);
	return (uint8_t)(enc(r, h % 12 ? h % 12 : 12) | (h >= 12 ? 0x80 : 0));
}

static int dec_hour(const struct rtc *r, uint8_t v)
{
	int h;

	if (r->cmos[RTC_REG_B] & RTC_B_24H)
		return dec(r, v);
	h = dec(r, v & 0x7f) % 12;
	return v & 0x80 ? h + 12 : h;
}

static uint8_t read_time(const struct rtc *r, unsigned int reg)
{
	struct tm tm = broken(guest_s(r));

	switch (reg) {
	case SEC:	return enc(r, tm.tm_sec);
	case MIN:	return enc(r, tm.tm_min);
	case HOUR:	return enc_hour(r, tm.tm_hour);
	case WDAY:	return enc(r, tm.tm_wday + 1);
	case MDAY:	return enc(r, tm.tm_mday);
	case MON:	return enc(r, tm.tm_mon + 1);
	case YEAR:	return enc(r, (tm.tm_year + 1900) % 100);
	}
	return enc(r, (tm.tm_year + 1900) / 100);	/* century */
}

/* Sets one field of the clock: frozen while B.SET, else at once. */
static void write_time(struct rtc *r, unsigned int reg, uint8_t v)
{
	int64_t now = guest_s(r);
	struct tm tm = broken(now);
	int century = (tm.tm_year + 1900) / 100;
	int64_t s;

	switch (reg) {
	case SEC:	tm.tm_sec = dec(r, v); break;
	case MIN:	tm.tm_min = dec(r, v); break;
	case HOUR:	tm.tm_hour = dec_hour(r, v); break;
	case WDAY:	return;		/* follows from the date */
	case MDAY:	tm.tm_mday = dec(r, v); break;
	case MON:	tm.tm_mon = dec(r, v) - 1; break;
	case YEAR:	tm.tm_year = century * 100 + dec(r, v) % 100 - 1900;
			break;
	default:	/* century */
		tm.tm_year = dec(r, v) * 100 + (tm.tm_year + 1900) % 100 - 1900;
	}
	s = seconds_of(&tm);
	if (r->cmos[RTC_REG_B] & RTC_B_SET)
		r->frozen_s = s;
	else
		r->offset_s += s - now;
	r->seen_s = s;		/* setting the clock is no update event */
}

static bool field_matches(const struct rtc *r, unsigned int reg, int v)
{
	uint8_t a = r->cmos[reg];

	if ((a & DONT_CARE) == DONT_CARE)
		return true;
	return (reg == HOUR_ALARM ? dec_hour(r, a) : dec(r, a)) == v;
}

/* The first guest second after s whose time matches the alarm, or -1. */
static int64_t next_match(const struct rtc *r, int64_t s)
{
	for (int64_t t = s + 1; t <= s + SEARCH_S;) {
		struct tm tm = broken(t);

		if (!field_matches(r, HOUR_ALARM, tm.tm_hour))
			t += 3600 - tm.tm_min * 60 - tm.tm_sec;
		else if (!field_matches(r, MIN_ALARM, tm.tm_min))
			t += 60 - tm.tm_sec;
		else if (!field_matches(r, SEC_ALARM, tm.tm_sec))
			t++;
		else
			return t;
	}
	return -1;
}

static uint8_t irqf(const struct rtc *r)
{
	uint8_t b = r->cmos[RTC_REG_B], c = r->cmos[RTC_REG_C];

	return ((b & RTC_B_AIE) && (c & RTC_C_AF)) ||
	       ((b & RTC_B_UIE) && (c & RTC_C_UF)) ? RTC_C_IRQF : 0;
}

/* IRQF follows the flags; a rising IRQF is an edge on IRQ 8. */
static void update_irq(struct rtc *r)
{
	uint8_t old = r->cmos[RTC_REG_C] & RTC_C_IRQF;
	uint8_t now = irqf(r);

	r->cmos[RTC_REG_C] = (uint8_t)((r->cmos[RTC_REG_C] & ~RTC_C_IRQF) |
				       now);
	if (now && !old && r->irq) {
		r->irq(r->ctx, 1);
		r->irq(r->ctx, 0);
	}
}

/* Update and alarm events for the seconds that ended since last time. */
static void catch_up(struct rtc *r)
{
	int64_t now = guest_s(r);
	int64_t m;

	if ((r->cmos[RTC_REG_B] & RTC_B_SET) ||
	    (r->cmos[RTC_REG_A] & 0x70) != DIVIDER_ON || now <= r->seen_s) {
		r->seen_s = now < r->seen_s ? now : r->seen_s;
		return;
	}
	r->cmos[RTC_REG_C] |= RTC_C_UF;
	m = next_match(r, r->seen_s);
	if (m >= 0 && m <= now)
		r->cmos[RTC_REG_C] |= RTC_C_AF;
	r->seen_s = now;
	update_irq(r);
}

void rtc_poll(struct rtc *r)
{
	pthread_mutex_lock(&r->lock);
	catch_up(r);
	pthread_mutex_unlock(&r->lock);
}

static uint64_t host_ns_of(const struct rtc *r, int64_t s)
{
	int64_t h = s - r->offset_s;

	return h > 0 ? (uint64_t)h * NS : 1;
}

static uint64_t next_alarm(const struct rtc *r)
{
	int64_t m;

	if ((r->cmos[RTC_REG_B] & RTC_B_SET) ||
	    (r->cmos[RTC_REG_A] & 0x70) != DIVIDER_ON)
		return 0;
	m = next_match(r, guest_s(r));
	return m < 0 ? 0 : host_ns_of(r, m);
}

uint64_t rtc_next_alarm_ns(struct rtc *r)
{
	uint64_t t;

	pthread_mutex_lock(&r->lock);
	t = next_alarm(r);
	pthread_mutex_unlock(&r->lock);
	return t;
}

uint64_t rtc_next_event_ns(struct rtc *r)
{
	uint8_t b;
	uint64_t t = 0, a;

	pthread_mutex_lock(&r->lock);
	b = r->cmos[RTC_REG_B];
	if ((b & RTC_B_UIE) && !(b & RTC_B_SET) &&
	    (r->cmos[RTC_REG_A] & 0x70) == DIVIDER_ON)
		t = host_ns_of(r, guest_s(r) + 1);
	a = b & RTC_B_AIE ? next_alarm(r) : 0;
	if (a && (!t || a < t))
		t = a;
	pthread_mutex_unlock(&r->lock);
	return t;
}

static uint8_t reg_a(const struct rtc *r)
{
	uint8_t a = r->cmos[RTC_REG_A] & 0x7f;
	uint64_t ns = r->now_ns() % NS;

	if (!(r->cmos[RTC_REG_B] & RTC_B_SET) && (a & 0x70) == DIVIDER_ON &&
	    ns >= NS - RTC_UIP_NS)
		a |= RTC_A_UIP;
	return a;
}

static uint8_t read_reg(struct rtc *r, unsigned int reg)
{
	uint8_t c;

	if (reg <= YEAR && reg != SEC_ALARM && reg != MIN_ALARM &&
	    reg != HOUR_ALARM)
		return read_time(r, reg);
	switch (reg) {
	case RTC_REG_A:
		return reg_a(r);
	case RTC_REG_C:
		catch_up(r);
		c = r->cmos[RTC_REG_C];
		r->cmos[RTC_REG_C] = 0;
		return c;
	case RTC_REG_CENTURY:
		return read_time(r, reg);
	}
	return r->cmos[reg];
}

static void write_b(struct rtc *r, uint8_t v)
{
	uint8_t old = r->cmos[RTC_REG_B];

	catch_up(r);
	if ((v & RTC_B_SET) && !(old & RTC_B_SET))
		r->frozen_s = guest_s(r);
	if (!(v & RTC_B_SET) && (old & RTC_B_SET)) {
		r->offset_s = r->frozen_s - (int64_t)(r->now_ns() / NS);
		r->seen_s = r->frozen_s;
	}
	r->cmos[RTC_REG_B] = v;
	update_irq(r);
}

static void write_reg(struct rtc *r, unsigned int reg, uint8_t v)
{
	if ((reg <= YEAR && reg != SEC_ALARM && reg != MIN_ALARM &&
	     reg != HOUR_ALARM) || reg == RTC_REG_CENTURY) {
		write_time(r, reg, v);
		return;
	}
	switch (reg) {
	case RTC_REG_A:
		catch_up(r);
		r->cmos[RTC_REG_A] = v & 0x7f;
		r->seen_s = guest_s(r);
		return;
	case RTC_REG_B:
		write_b(r, v);
		return;
	case RTC_REG_C:
	case RTC_REG_D:
		return;			/* read-only */
	}
	r->cmos[reg] = v;
}

static void rtc_read(void *opaque, uint64_t off, uint8_t *data, uint32_t len)
{
	struct rtc *r = opaque;

	memset(data, 0xff, len);
	if (off != OFF_DATA)
		return;			/* the index port is write-only */
	pthread_mutex_lock(&r->lock);
	data[0] = read_reg(r, r->index & 0x7f);
	pthread_mutex_unlock(&r->lock);
}

static void rtc_write(void *opaque, uint64_t off, const uint8_t *data,
		      uint32_t len)
{
	struct rtc *r = opaque;
	bool changed = false;

	(void)len;		/* the first byte is the one for this port */
	pthread_mutex_lock(&r->lock);
	if (off == OFF_INDEX) {
		r->index = data[0];
	} else if (off == OFF_DATA) {
		unsigned int reg = r->index & 0x7f;

		write_reg(r, reg, data[0]);
		changed = reg <= HOUR_ALARM || reg == RTC_REG_A ||
			  reg == RTC_REG_B;
	}
	pthread_mutex_unlock(&r->lock);
	if (changed && r->changed)
		r->changed(r->ctx);
}

void rtc_get_state(struct rtc *r, struct rtc_state *s)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_lock(&r->lock);
	s->index = r->index;
	memcpy(s->cmos, r->cmos, sizeof(s->cmos));
	s->offset_s = r->offset_s;
	s->frozen_s = r->frozen_s;
	s->seen_s = r->seen_s;
	pthread_mutex_unlock(&r->lock);
}

/* Bounds keep every date computation far from overflow (±2^40 s is
 * some 35 000 years). */
static bool sane_seconds(int64_t s)
{
	return s > -(1ll << 40) && s < 1ll << 40;
}

int rtc_set_state(struct rtc *r, const struct rtc_state *s)
{
	for (size_t i = 0; i < sizeof(s->reserved); i++)
		if (s->reserved[i])
			return -1;
	if ((s->cmos[RTC_REG_A] & RTC_A_UIP) || (s->cmos[RTC_REG_C] & 0x0f) ||
	    !sane_seconds(s->offset_s) || !sane_seconds(s->frozen_s) ||
	    !sane_seconds(s->seen_s))
		return -1;
	pthread_mutex_lock(&r->lock);
	r->index = s->index;
	memcpy(r->cmos, s->cmos, sizeof(r->cmos));
	r->offset_s = s->offset_s;
	r->frozen_s = s->frozen_s;
	r->seen_s = s->seen_s;
	pthread_mutex_unlock(&r->lock);
	if (r->changed)
		r->changed(r->ctx);
	return 0;
}

const struct bus_ops rtc_ops = { .read = rtc_read, .write = rtc_write };
