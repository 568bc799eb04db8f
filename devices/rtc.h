/* SPDX-License-Identifier: MIT */
/*
 * The PC's CMOS real-time clock (MC146818): two ports, index (offset 0;
 * bit 7 is the NMI mask, kept but without effect) and data (offset 1):
 *
 *   0x00-0x09  time and date (BCD or binary per register B, 12/24 h),
 *              alarm seconds/minutes/hours at 0x01/0x03/0x05 (0xc0-0xff:
 *              "don't care"); the clock is the host's UTC plus whatever
 *              the guest set
 *   0x0a  A    UIP (bit 7) reads 1 during the last 244 us before each
 *              second's update, while the divider runs (bits 6:4 = 010)
 *   0x0b  B    SET (freezes the clock for setting), PIE, AIE, UIE, SQWE,
 *              DM (binary), 24/12, DSE (kept, no effect)
 *   0x0c  C    IRQF, PF, AF, UF; reading clears them
 *   0x0d  D    VRT (battery good)
 *   0x0e-0x7f  battery-backed RAM (0x32: century, BCD)
 *
 * Update-ended and alarm events are computed from the clock whenever the
 * guest looks, or when the VMM asks (rtc_poll, at rtc_next_event_ns):
 * each raises the interrupt line (an edge) if its interrupt is enabled.  No
 * periodic interrupt (PF never sets).  rtc_next_alarm_ns serves S3 wake-up.
 */
#ifndef MINIVMM_RTC_H
#define MINIVMM_RTC_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "vmm/bus.h"

#define RTC_PORTS_LEN		2
#define RTC_CMOS_SIZE		128

#define RTC_REG_A		0x0a
#define RTC_REG_B		0x0b
#define RTC_REG_C		0x0c
#define RTC_REG_D		0x0d
#define RTC_REG_CENTURY		0x32

#define RTC_A_UIP		0x80
#define RTC_B_SET		0x80
#define RTC_B_PIE		0x40
#define RTC_B_AIE		0x20
#define RTC_B_UIE		0x10
#define RTC_B_DM_BINARY		0x04
#define RTC_B_24H		0x02
#define RTC_C_IRQF		0x80
#define RTC_C_AF		0x20
#define RTC_C_UF		0x10
#define RTC_UIP_NS		244000ull

struct rtc {
	pthread_mutex_t lock;
	uint8_t index;			/* with the NMI mask bit */
	uint8_t cmos[RTC_CMOS_SIZE];	/* A-D and RAM; time regs unused */
	int64_t offset_s;		/* guest time = host UTC + offset */
	int64_t frozen_s;		/* the clock while B.SET */
	int64_t seen_s;			/* events are computed up to here */
	uint64_t (*now_ns)(void);	/* host UTC, ns (a fake in tests) */
	void (*irq)(void *ctx, int level);
	void (*changed)(void *ctx);	/* the next event time moved */
	void *ctx;
};

void rtc_init(struct rtc *r, uint64_t (*now_ns)(void),
	      void (*irq)(void *ctx, int level), void (*changed)(void *ctx),
	      void *ctx);
void rtc_destroy(struct rtc *r);

/* Brings the flags up to the present (raising the line as needed). */
void rtc_poll(struct rtc *r);
/* Host time (ns) of the next event that raises an interrupt (alarm with
 * AIE, update with UIE), or 0 for none. */
uint64_t rtc_next_event_ns(struct rtc *r);
/* Host time (ns) of the next alarm match whether AIE is set or not, or 0
 * if the alarm registers can never match. */
uint64_t rtc_next_alarm_ns(struct rtc *r);

/* For snapshots.  The clock is kept as its offset from host UTC, so a
 * restored RTC goes on telling the time the guest set, run on by the
 * time the snapshot sat on disk, as a battery-backed clock does over a
 * power-off; seen_s is in guest seconds. */
struct rtc_state {
	uint8_t index;
	uint8_t reserved[7];		/* 0 */
	uint8_t cmos[RTC_CMOS_SIZE];
	int64_t offset_s;
	int64_t frozen_s;
	int64_t seen_s;
};

void rtc_get_state(struct rtc *r, struct rtc_state *s);
/* 0, or -1 (nothing changed) for a state the chip cannot be in.  Calls
 * the changed callback: the next event moved. */
int rtc_set_state(struct rtc *r, const struct rtc_state *s);

/* Registered for RTC_PORTS_LEN ports (0x70 on a PC). */
extern const struct bus_ops rtc_ops;

#endif
