// SPDX-License-Identifier: MIT
/* The CMOS RTC on a fake clock: time in BCD and binary, 12-hour mode,
 * UIP before each update, setting the clock, update and alarm flags with
 * "don't care" fields, the IRQ 8 edge, the next-alarm time the S3 wake-up
 * uses, and the calendar against libc's. */
#include "tests/unit/unit.h"
#include "devices/rtc.h"

#include <time.h>

#define NS	1000000000ull

static struct rtc R;
static uint64_t now;
static int edges, changes;

static uint64_t clock_now(void)
{
	return now;
}

static void irq(void *ctx, int level)
{
	(void)ctx;
	edges += level;
}

static void changed(void *ctx)
{
	(void)ctx;
	changes++;
}

static uint8_t rd(uint8_t reg)
{
	uint8_t v;

	rtc_ops.write(&R, 0, &reg, 1);
	rtc_ops.read(&R, 1, &v, 1);
	return v;
}

static void wr(uint8_t reg, uint8_t v)
{
	rtc_ops.write(&R, 0, &reg, 1);
	rtc_ops.write(&R, 1, &v, 1);
}

/* 2026-12-01 13:45:30 UTC, a Tuesday */
#define T0	1796132730ull

static void setup(void)
{
	now = T0 * NS;
	edges = changes = 0;
	rtc_init(&R, clock_now, irq, changed, NULL);
}

static void teardown(void)
{
	rtc_destroy(&R);
}

START_TEST(reads_the_time)
{
	ck_assert_uint_eq(rd(0), 0x30);
	ck_assert_uint_eq(rd(2), 0x45);
	ck_assert_uint_eq(rd(4), 0x13);
	ck_assert_uint_eq(rd(6), 3);			/* Tuesday = 3 */
	ck_assert_uint_eq(rd(7), 0x01);
	ck_assert_uint_eq(rd(8), 0x12);
	ck_assert_uint_eq(rd(9), 0x26);
	ck_assert_uint_eq(rd(RTC_REG_CENTURY), 0x20);
	ck_assert_uint_eq(rd(RTC_REG_D), 0x80);
	ck_assert_uint_eq(rd(RTC_REG_B), RTC_B_24H);
	wr(RTC_REG_B, RTC_B_DM_BINARY);			/* binary, 12 h */
	ck_assert_uint_eq(rd(0), 30);
	ck_assert_uint_eq(rd(4), 0x80 | 1);		/* 1 PM */
	ck_assert_uint_eq(rd(9), 26);
	/* the index port is write-only; the NMI bit is not an index bit */
	{
		uint8_t v, idx = 0x80 | 2;

		rtc_ops.read(&R, 0, &v, 1);
		ck_assert_uint_eq(v, 0xff);
		rtc_ops.write(&R, 0, &idx, 1);
		rtc_ops.read(&R, 1, &v, 1);
		ck_assert_uint_eq(v, 45);
	}
}
END_TEST

START_TEST(uip_before_the_update)
{
	ck_assert_uint_eq(rd(RTC_REG_A) & RTC_A_UIP, 0);
	now = (T0 + 1) * NS - RTC_UIP_NS;
	ck_assert_uint_eq(rd(RTC_REG_A) & RTC_A_UIP, RTC_A_UIP);
	now = (T0 + 1) * NS;
	ck_assert_uint_eq(rd(RTC_REG_A), 0x26);
	wr(RTC_REG_A, 0x70);			/* divider off: no updates */
	now = (T0 + 2) * NS - 1;
	ck_assert_uint_eq(rd(RTC_REG_A), 0x70);
}
END_TEST

START_TEST(set_the_clock)
{
	wr(RTC_REG_B, RTC_B_SET | RTC_B_24H);
	wr(4, 0x08);
	wr(2, 0x00);
	wr(0, 0x59);
	now += 5 * NS;				/* frozen while SET */
	ck_assert_uint_eq(rd(0), 0x59);
	wr(RTC_REG_B, RTC_B_24H);
	now += 2 * NS;
	ck_assert_uint_eq(rd(0), 0x01);
	ck_assert_uint_eq(rd(2), 0x01);
	ck_assert_uint_eq(rd(4), 0x08);
	ck_assert_uint_eq(rd(7), 0x01);		/* the date stays */
	wr(9, 0x99);				/* the year, directly */
	ck_assert_uint_eq(rd(9), 0x99);
	ck_assert_uint_eq(rd(RTC_REG_CENTURY), 0x20);
	wr(RTC_REG_CENTURY, 0x21);
	ck_assert_uint_eq(rd(RTC_REG_CENTURY), 0x21);
	ck_assert_uint_eq(rd(9), 0x99);
	ck_assert_int_gt(changes, 0);
}
END_TEST

START_TEST(update_and_alarm_flags)
{
	ck_assert_uint_eq(rd(RTC_REG_C), 0);
	now += NS;
	ck_assert_uint_eq(rd(RTC_REG_C), RTC_C_UF);	/* no AIE/UIE: no IRQF */
	ck_assert_uint_eq(rd(RTC_REG_C), 0);		/* read clears */
	wr(1, 0xc0);
	wr(3, 0xc0);
	wr(5, 0xc0);			/* every second, as the s3 test sets */
	wr(RTC_REG_B, RTC_B_24H | RTC_B_AIE);
	ck_assert_int_eq(edges, 0);
	now += NS;
	rtc_poll(&R);
	ck_assert_int_eq(edges, 1);
	ck_assert_uint_eq(rd(RTC_REG_C), RTC_C_IRQF | RTC_C_AF | RTC_C_UF);
	now += NS;
	rtc_poll(&R);
	ck_assert_int_eq(edges, 2);
	rtc_poll(&R);					/* no new edge */
	ck_assert_int_eq(edges, 2);
	rd(RTC_REG_C);
	/* an alarm at 13:46:00 only */
	wr(1, 0x00);
	wr(3, 0x46);
	wr(5, 0x13);
	now = (T0 + 10) * NS;
	ck_assert_uint_eq(rd(RTC_REG_C) & RTC_C_AF, 0);
	ck_assert_uint_eq(rtc_next_alarm_ns(&R), (T0 + 30) * NS);
	ck_assert_uint_eq(rtc_next_event_ns(&R), (T0 + 30) * NS);
	now = (T0 + 31) * NS;
	ck_assert_uint_eq(rd(RTC_REG_C) & RTC_C_AF, RTC_C_AF);
	/* tomorrow's */
	ck_assert_uint_eq(rtc_next_alarm_ns(&R), (T0 + 30 + 86400) * NS);
	wr(5, 0x25);					/* never matches */
	ck_assert_uint_eq(rtc_next_alarm_ns(&R), 0);
	wr(RTC_REG_B, RTC_B_24H | RTC_B_UIE);
	ck_assert_uint_eq(rtc_next_event_ns(&R), (T0 + 32) * NS);
}
END_TEST

START_TEST(calendar_matches_libc)
{
	for (int64_t s = -2000000000ll; s < 5000000000ll; s += 86399 * 7 + 13) {
		time_t t = (time_t)s;
		struct tm tm;
		uint8_t b = RTC_B_SET | RTC_B_24H | RTC_B_DM_BINARY;

		gmtime_r(&t, &tm);
		now = (uint64_t)(s + 3000000000ll) * NS;
		/* set the guest clock to s through the registers */
		wr(RTC_REG_B, b);
		wr(RTC_REG_CENTURY, (uint8_t)((tm.tm_year + 1900) / 100));
		wr(9, (uint8_t)((tm.tm_year + 1900) % 100));
		wr(8, (uint8_t)(tm.tm_mon + 1));
		wr(7, (uint8_t)tm.tm_mday);
		wr(4, (uint8_t)tm.tm_hour);
		wr(2, (uint8_t)tm.tm_min);
		wr(0, (uint8_t)tm.tm_sec);
		ck_assert_uint_eq(rd(6), (unsigned int)tm.tm_wday + 1);
		wr(RTC_REG_B, b & ~RTC_B_SET);
		ck_assert_uint_eq(rd(0), (unsigned int)tm.tm_sec);
		ck_assert_uint_eq(rd(7), (unsigned int)tm.tm_mday);
		ck_assert_uint_eq(rd(8), (unsigned int)tm.tm_mon + 1);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("rtc");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, reads_the_time);
	tcase_add_test(tc, uip_before_the_update);
	tcase_add_test(tc, set_the_clock);
	tcase_add_test(tc, update_and_alarm_flags);
	tcase_add_test(tc, calendar_matches_libc);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
